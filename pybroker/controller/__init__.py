"""The controller (Kafka's ``KafkaController``): decides topic and partition layout, leaders and
ISRs over the znode tree, and tells the brokers - of a ZooKeeper-mode cluster and the embedded
single node alike."""
