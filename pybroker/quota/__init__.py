"""Client quotas (KIP-13, KIP-55, KIP-124, KIP-219): who is held to which rate, how the rate is
measured and how long a client that exceeds it is throttled, as Kafka 3.9's
``ClientQuotaManager`` decides it.

- :mod:`.entities` - the quota entities (users, client ids, their combinations, IPs), the
  quota keys and Kafka's rules for AlterClientQuotas and DescribeClientQuotas;
- :mod:`.rate` - Kafka's sampled rate: samples of a fixed window, the rate over what they hold;
- :mod:`.manager` - one manager per quota type (produce, fetch, request): the quotas this
  broker knows, the most specific one for a request's (user, client id), the throttle time.

Nothing here reads ZooKeeper or the network: the mode's adapter feeds the managers the quota
entities (``pybroker.modes.zookeeper.client_quotas``), the handlers ask them for throttle times
and the connection mutes itself for that long.
"""
