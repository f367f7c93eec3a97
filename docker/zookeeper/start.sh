#!/bin/bash
# Writes the server's configuration from the environment and runs ZooKeeper in the foreground.
set -euo pipefail
config=/var/lib/zookeeper/zoo.cfg
cat > "$config" <<CFG
dataDir=/var/lib/zookeeper/data
clientPort=${ZOOKEEPER_CLIENT_PORT}
tickTime=${ZOOKEEPER_TICK_TIME}
initLimit=10
syncLimit=5
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
CFG
# shellcheck disable=SC2086 # the heap options are several words
exec java ${ZOOKEEPER_HEAP_OPTS} -Dzookeeper.log.dir=/var/lib/zookeeper \
    -cp /usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar \
    org.apache.zookeeper.server.quorum.QuorumPeerMain "$config"
