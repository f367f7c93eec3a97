"""The shared kernel: the vocabulary every layer of the broker uses for the same things.

It imports the standard library and :mod:`protocol` only (an ``.importlinter`` contract), so
any package may import it without pulling in another layer:

* :mod:`.types`: ``TopicPartition``, the one name for a partition's ``(topic, index)`` key;
  ``IsrChange`` and ``Reassignment``, which the handlers, the admin seam and the controller
  all pass around.
* :mod:`.outcome`: ``Outcome[T]``, a result now or a future of it, and the helpers that map
  one (``when_ready``, ``chain``, ``when_settled``, ``gather``, ``is_pending``, ``settle``);
* :mod:`.state_table`: ``StateTable``, the one type the state machines declare their
  transitions with (and ``docs/state-machines.md`` is drawn from), and ``IllegalTransition``;
* :mod:`.clock`: the ``Clock`` protocol, ``SystemClock`` (each broker builds one and hands it
  to the subsystems it constructs) and ``ManualClock`` for tests.
* :mod:`.placement`: Kafka's replica placement of new partitions (``assignReplicasToBrokers``),
  for the controller's new topics and partitions and the console's reassignment plans alike.

Import from the modules, not from this package.
"""
