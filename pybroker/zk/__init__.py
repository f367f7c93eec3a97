"""ZooKeeper, as a Kafka cluster in ZooKeeper mode uses it.

* :mod:`pybroker.zk.client` - :class:`ZkClient`, an asyncio front for a ZooKeeper session
  (over kazoo): requests as coroutines, watches and session changes delivered on the loop.
* :mod:`pybroker.zk.znodes` - Kafka's znode paths and JSON, one codec per znode, by family.
* :mod:`pybroker.zk.kafka_zk` - :class:`KafkaZkClient`, the operations brokers and the
  controller perform (registration, election, topics, partition states, configs...), fenced
  as Kafka fences them; made of its parts by concern (``kafka_zk_base``, ``kafka_zk_brokers``,
  ``kafka_zk_topics``, ``kafka_zk_configs``, ``kafka_zk_admin``).
* :mod:`pybroker.zk.topic_store` - the admin manager's ``TopicStore`` over ZooKeeper.

This package imports nothing else of the broker (``.importlinter``).
"""
