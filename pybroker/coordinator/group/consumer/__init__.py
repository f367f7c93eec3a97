"""The KIP-848 consumer group protocol (Kafka 4's ``modern.consumer`` package): groups whose
members heartbeat with ConsumerGroupHeartbeat and get their partitions from a server-side
assignor.

* :mod:`.member` - a member, its reconciliation states (a state table);
* :mod:`.reconciliation` - one member's next assignment (Kafka's CurrentAssignmentBuilder);
* :mod:`.assignors` - the ``uniform`` and ``range`` assignors;
* :mod:`.records` - the group's records in ``__consumer_offsets``;
* :mod:`.group` - a group rebuilt from its records;
* :mod:`.coordinator` - the heartbeat, describe, timers and the group side of the other APIs.
"""
