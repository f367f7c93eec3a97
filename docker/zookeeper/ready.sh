#!/bin/bash
# Exit 0 once the server serves: its `srvr` answer names its mode.
exec 3<>"/dev/tcp/127.0.0.1/${ZOOKEEPER_CLIENT_PORT:-2181}"
printf srvr >&3
grep -q '^Mode:' <&3
