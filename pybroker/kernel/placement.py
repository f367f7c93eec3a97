"""Replica assignment of new topics and partitions, as Kafka computes it in ZooKeeper mode
(``org.apache.kafka.admin.AdminUtils.assignReplicasToBrokers``).

Theory of operation
-------------------
Rack-unaware (no broker has a rack): the first replica of partition ``p`` goes to broker
``(p + start) mod n`` of the brokers sorted by id - round robin from a random start - and the
others follow it at a shift that grows by one each time ``p`` wraps around the brokers, so the
followers of one broker's partitions spread over the other brokers::

    replica j (j >= 1) of p:  (first + 1 + (shift + j - 1) mod (n - 1)) mod n

Kafka draws ``start`` and the initial ``shift`` independently at random unless a fixed start
index is given, which then fixes both (CreatePartitions passes the position of partition 0's
first replica, and the number of existing partitions as the first partition id). Here both are
parameters, ``None`` meaning "draw at random" from the given ``random.Random``.

Rack-aware (every broker has a rack): the same walk over a rack-alternated broker list (racks
sorted by name, brokers of a rack by id, taking one broker from each rack in turn), where a
follower is skipped while some rack, or some broker, has no replica of the partition yet.

Kafka's brokers come sorted by id (``AdminZkClient.getBrokerMetadatas``); :func:`assign_replicas`
sorts them so, and uses the rack-aware variant only when every broker has a rack (some but not all
is refused, as ``RackAwareMode.Enforced`` refuses it).
"""

from __future__ import annotations

import random as _random
from collections.abc import Iterable, Mapping

from protocol.errors import ErrorCode, KafkaError


def replica_index(first_replica_index: int, second_replica_shift: int, replica_index: int,
                  n_brokers: int) -> int:
    shift = 1 + (second_replica_shift + replica_index) % (n_brokers - 1)
    return (first_replica_index + shift) % n_brokers


def _validate(n_partitions: int, replication_factor: int, n_brokers: int) -> None:
    if n_partitions <= 0:
        raise KafkaError(ErrorCode.INVALID_PARTITIONS,
                         "Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR,
                         "Replication factor must be larger than 0.")
    if replication_factor > n_brokers:
        raise KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR,
                         f"Replication factor: {replication_factor} larger than available "
                         f"brokers: {n_brokers}.")


def _start_and_shift(n: int, start_index: int | None, replica_shift: int | None,
                     rng: _random.Random | None) -> tuple[int, int]:
    rng = rng if rng is not None else _random.Random()
    start = start_index if start_index is not None else rng.randrange(n)
    shift = replica_shift if replica_shift is not None else rng.randrange(n)
    return start, shift


def assign_replicas_rack_unaware(n_partitions: int, replication_factor: int,
                                 brokers: list[int], start_index: int | None = None,
                                 replica_shift: int | None = None, start_partition_id: int = 0,
                                 rng: _random.Random | None = None) -> dict[int, list[int]]:
    """Partition id -> replicas, over ``brokers`` in the order given."""
    _validate(n_partitions, replication_factor, len(brokers))
    n = len(brokers)
    start, shift = _start_and_shift(n, start_index, replica_shift, rng)
    result: dict[int, list[int]] = {}
    partition = max(0, start_partition_id)
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift += 1
        first = (partition + start) % n
        replicas = [brokers[first]]
        replicas += [brokers[replica_index(first, shift, j, n)]
                     for j in range(replication_factor - 1)]
        result[partition] = replicas
        partition += 1
    return result


def rack_alternated_broker_list(broker_racks: Mapping[int, str]) -> list[int]:
    """Brokers taken one rack at a time, racks by name, each rack's brokers by id:
    ``{0: r1, 1: r1, 2: r1, 3: r2, 4: r2, 5: r2}`` -> ``[0, 3, 1, 4, 2, 5]``."""
    by_rack: dict[str, list[int]] = {}
    for broker, rack in broker_racks.items():
        by_rack.setdefault(rack, []).append(broker)
    iterators = [iter(sorted(by_rack[rack])) for rack in sorted(by_rack)]
    result: list[int] = []
    i = 0
    while len(result) < len(broker_racks):
        following = next(iterators[i], None)
        if following is not None:
            result.append(following)
        i = (i + 1) % len(iterators)
    return result


def assign_replicas_rack_aware(n_partitions: int, replication_factor: int,
                               broker_racks: Mapping[int, str], start_index: int | None = None,
                               replica_shift: int | None = None, start_partition_id: int = 0,
                               rng: _random.Random | None = None) -> dict[int, list[int]]:
    _validate(n_partitions, replication_factor, len(broker_racks))
    n_racks = len(set(broker_racks.values()))
    arranged = rack_alternated_broker_list(broker_racks)
    n = len(arranged)
    start, shift = _start_and_shift(n, start_index, replica_shift, rng)
    result: dict[int, list[int]] = {}
    partition = max(0, start_partition_id)
    for _ in range(n_partitions):
        if partition > 0 and partition % n == 0:
            shift += 1
        first = (partition + start) % n
        leader = arranged[first]
        replicas = [leader]
        racks_with_replicas = {broker_racks[leader]}
        brokers_with_replicas = {leader}
        k = 0
        for _j in range(replication_factor - 1):
            while True:
                broker = arranged[replica_index(first, shift * n_racks, k, n)]
                rack = broker_racks[broker]
                k += 1
                # Skip a broker whose rack already has a replica while a rack has none, or
                # that has a replica itself while a broker has none.
                if ((rack not in racks_with_replicas or len(racks_with_replicas) == n_racks)
                        and (broker not in brokers_with_replicas
                             or len(brokers_with_replicas) == n)):
                    replicas.append(broker)
                    racks_with_replicas.add(rack)
                    brokers_with_replicas.add(broker)
                    break
        result[partition] = replicas
        partition += 1
    return result


def assign_replicas(brokers: Iterable[tuple[int, str | None]], n_partitions: int,
                    replication_factor: int, start_index: int | None = None,
                    replica_shift: int | None = None, start_partition_id: int = 0,
                    rng: _random.Random | None = None) -> dict[int, list[int]]:
    """Kafka's ``assignReplicasToBrokers`` over ``(broker id, rack)`` pairs. A fixed
    ``start_index`` with no ``replica_shift`` fixes the shift to it too, as Kafka's
    ``fixedStartIndex`` does."""
    ordered = sorted(brokers)
    if start_index is not None and replica_shift is None:
        replica_shift = start_index
    racks = {b: r for b, r in ordered if r is not None}
    if not racks:
        return assign_replicas_rack_unaware(n_partitions, replication_factor,
                                            [b for b, _ in ordered], start_index, replica_shift,
                                            start_partition_id, rng)
    if len(racks) < len(ordered):
        # Kafka's AdminOperationException, which reaches clients as UNKNOWN_SERVER_ERROR
        raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR,
                         "Not all brokers have rack information for replica rack aware "
                         "assignment.")
    return assign_replicas_rack_aware(n_partitions, replication_factor, racks, start_index,
                                      replica_shift, start_partition_id, rng)


def new_partitions_start_index(brokers: Iterable[int], first_replica_of_partition0: int) -> int:
    """CreatePartitions' fixed start: the position, among the brokers sorted by id, of the first
    broker whose id is at least partition 0's first replica (0 if none)."""
    for i, b in enumerate(sorted(brokers)):
        if b >= first_replica_of_partition0:
            return i
    return 0
