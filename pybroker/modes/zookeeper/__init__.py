"""ZooKeeper mode (Kafka's ``KafkaServer``): the broker and its adapters over
:mod:`pybroker.zk` - the controller's, admin seam's, ACLs' and users' stores, and the
change-notification listener that serves configs and ACLs.
"""
