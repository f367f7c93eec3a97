"""How a broker is run: each mode's adapters (ZooKeeper mode in :mod:`.zookeeper`, the embedded
single node in :mod:`.embedded`) behind the store protocols the subsystems define; no subsystem
imports a mode."""
