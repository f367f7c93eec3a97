"""The transactional workload of a chaos run: a confluent-kafka transactional producer writing
each transaction to several partitions of one topic and committing or aborting it at random
(seeded), while a read_committed consumer group reads the topic throughout
(:class:`~pybroker.testing.chaos_workload.GroupConsumer` with ``isolation.level``).

Each transaction is kept as a :class:`~pybroker.testing.chaos_check.Txn` with the outcome the
producer was told. What the client library says decides it:

* ``commit_transaction`` returned: committed;
* ``abort_transaction`` returned, or the commit was never asked for (a failure before it: the
  transaction can only be aborted, by this producer or by its coordinator's timeout): aborted;
* the commit was asked for and no answer settled it (a fatal error, or a retriable one that
  lasted past the retries): unknown - it may have gone either way, but must have gone whole.

A retriable commit error is retried, as the client's documentation asks; one that needs an abort
is aborted; a fatal one (fenced, an epoch the coordinator no longer knows) ends the producer, and
a new one with the same ``transactional.id`` takes over (its ``init_transactions`` completes or
aborts whatever the old one left open). Nothing here judges: ``chaos_check`` does.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from confluent_kafka import KafkaError, KafkaException, Producer

from pybroker.kernel.types import TopicPartition
from pybroker.testing.chaos_check import ABORTED, COMMITTED, UNKNOWN, Txn

Clock = Callable[[], float]


class TransactionalWorkload:
    """Transactions to ``topic``: each writes 1-3 values to each of 2..``partitions`` of its
    partitions (chosen by ``seed``) and is committed with probability ``commit_ratio``, else
    aborted; one after another, ``pause`` seconds apart, from a thread."""

    name = "transactions"

    def __init__(self, bootstrap: str, topic: str, partitions: int, *, clock: Clock, seed: int,
                 transactional_id: str = "chaos-txn", commit_ratio: float = 0.7,
                 pause: float = 0.02, transaction_timeout_ms: int = 30_000,
                 call_timeout: float = 30.0) -> None:
        self.bootstrap = bootstrap
        self.topic = topic
        self.partitions = partitions
        self.clock = clock
        self.rng = random.Random(seed)
        self.transactional_id = transactional_id
        self.commit_ratio = commit_ratio
        self.pause = pause
        self.transaction_timeout_ms = transaction_timeout_ms
        self.call_timeout = call_timeout
        self.txns: list[Txn] = []
        self.errors: list[str] = []
        #: producers made after the first (a fatal error ended the one before)
        self.restarts = 0
        self.started: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="transactions", daemon=True)

    def _producer(self) -> Producer | None:
        """A new transactional producer, its transactions initialised (None if stopped first)."""
        while not self._stop.is_set():
            producer = Producer({
                "bootstrap.servers": self.bootstrap, "transactional.id": self.transactional_id,
                "linger.ms": 5, "transaction.timeout.ms": self.transaction_timeout_ms,
                "client.id": "chaos-transactions"})
            try:
                producer.init_transactions(self.call_timeout)
                return producer
            except KafkaException as exc:
                self._error("init_transactions", exc)
                self._stop.wait(1.0)
        return None

    def _error(self, what: str, exc: KafkaException) -> None:
        self.errors.append(f"t={self.clock():.1f}s {what}: {exc.args[0]}")

    def _writes(self, n: int) -> tuple[tuple[TopicPartition, bytes], ...]:
        chosen = sorted(self.rng.sample(range(self.partitions),
                                        self.rng.randint(min(2, self.partitions),
                                                         self.partitions)))
        return tuple(((self.topic, p), b"txn.%d.p%d.%d" % (n, p, i))
                     for p in chosen for i in range(self.rng.randint(1, 3)))

    def _run(self) -> None:
        self.started = self.clock()
        producer: Producer | None = None
        n = 0
        while not self._stop.is_set():
            if producer is None:
                producer = self._producer()
                if producer is None:
                    break
            writes = self._writes(n)
            commit = self.rng.random() < self.commit_ratio
            outcome, fatal = self._one(producer, writes, commit)
            self.txns.append(Txn(n, outcome, writes, self.clock()))
            n += 1
            if fatal:
                producer = None
                self.restarts += 1
            self._stop.wait(self.pause)
        if producer is not None:
            producer.flush(10)

    def _one(self, producer: Producer, writes: tuple[tuple[TopicPartition, bytes], ...],
             commit: bool) -> tuple[str, bool]:
        """One transaction: its outcome, and whether the producer is done for."""
        asked_commit = False
        try:
            producer.begin_transaction()
            for (topic, partition), value in writes:
                producer.produce(topic, value, partition=partition)
            if not commit:
                producer.abort_transaction(self.call_timeout)
                return ABORTED, False
            asked_commit = True
            deadline = time.monotonic() + 2 * self.call_timeout
            while True:
                try:
                    producer.commit_transaction(self.call_timeout)
                    return COMMITTED, False
                except KafkaException as exc:
                    retry: KafkaError = exc.args[0]
                    if not retry.retriable() or retry.fatal() or retry.txn_requires_abort() \
                            or time.monotonic() > deadline:
                        raise
                    self._error("commit_transaction (retried)", exc)
        except (KafkaException, BufferError) as exc:
            err: KafkaError | None = exc.args[0] if isinstance(exc, KafkaException) else None
            if isinstance(exc, KafkaException):
                self._error("commit_transaction" if asked_commit else "transaction", exc)
            else:
                self.errors.append(f"t={self.clock():.1f}s produce: {exc}")
            if err is not None and err.fatal():
                return (UNKNOWN if asked_commit else ABORTED), True
            try:
                producer.abort_transaction(self.call_timeout)
                return ABORTED, False
            except KafkaException as again:
                self._error("abort_transaction", again)
                # the transaction's end is the coordinator's now; a new producer finds out
                return (UNKNOWN if asked_commit else ABORTED), True

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 150.0) -> None:
        """Stop after the transaction under way (its commit or abort is waited for)."""
        self._stop.set()
        self._thread.join(timeout)

    @property
    def counts(self) -> dict[str, int]:
        out = {COMMITTED: 0, ABORTED: 0, UNKNOWN: 0}
        for t in self.txns:
            out[t.outcome] += 1
        return out
