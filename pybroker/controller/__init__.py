"""Controllers decide topic and partition layout: the embedded node's ``LocalController``, and
``KafkaController``, which every broker of a ZooKeeper-mode cluster runs."""
