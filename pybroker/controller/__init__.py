"""Controllers decide topic and partition layout. The embedded single-node mode uses
:class:`pybroker.controller.local.LocalController`; the ZooKeeper mode adds its own beside it."""
