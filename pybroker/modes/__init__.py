"""How a broker is run: each mode's adapters (ZooKeeper mode in :mod:`.zookeeper`) behind the
store protocols the subsystems define; no subsystem imports a mode."""
