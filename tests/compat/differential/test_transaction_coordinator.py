"""Differential tests of the transaction coordinator's request flows: InitProducerId with a
transactional id, AddPartitionsToTxn (the client's v0-v3 and the leaders' v4 verification),
AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions, with their errors; and
KIP-890's verification as a raw transactional producer meets it: Produce and TxnOffsetCommit to
partitions its transaction never added (AddPartitionsToTxn or AddOffsetsToTxn skipped).

Each scenario runs against pybroker and against Apache Kafka 3.9 (see differ.py); the answers
must agree field by field except where KNOWN (below) says why not. Producer ids (handed out from
each broker's own blocks) and transaction start times (clock readings) are masked; everything a
scenario sends next is built from that broker's own answers. The coordinator writes its markers
after it answers EndTxn, so a scenario waits, unrecorded, for DescribeTransactions to show the
transaction complete before it asks anything that depends on it.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    add_offsets_to_txn_request as aot,
    add_partitions_to_txn_request as apt,
    describe_transactions_request as dtx,
    end_txn_request as et,
    find_coordinator_request as fc,
    init_producer_id_request as ipi,
    list_transactions_request as ltx,
    produce_request as pr,
    txn_offset_commit_request as toc,
)
from protocol.records.record import build_batch
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Known, Recorder
from tests.compat.differential.steps import create_topic, wait_until

ADD_PARTITIONS_TO_TXN, ADD_OFFSETS_TO_TXN, END_TXN, TXN_OFFSET_COMMIT = 24, 25, 26, 28
DESCRIBE_TRANSACTIONS, LIST_TRANSACTIONS = 65, 66
TIMEOUT_MS = 60_000
PID = ("producer_id",)
DESCRIBED = ("transaction_states[*].producer_id",
             "transaction_states[*].transaction_start_time_ms")
PARTITION_LISTS = ("transaction_states[*].topics", "transaction_states[*].topics[*].partitions")

#: the differences from Apache Kafka these scenarios show, each with its reason
KNOWN: list[Known] = []


# -- set-up ------------------------------------------------------------------------------------


def coordinator_ready(rec: Recorder, transactional_id: str) -> None:
    """Unrecorded: until the broker has producer ids to hand out (a fresh Kafka answers
    COORDINATOR_LOAD_IN_PROGRESS until its first block arrives), ``__transaction_state`` exists
    (FindCoordinator creates it) and the id's partition is loaded (DescribeTransactions stops
    answering that it is loading)."""
    wait_until("producer ids", lambda: rec.quietly(rq.INIT_PRODUCER_ID, 4, ipi.InitProducerIdRequest(
        transactional_id=None, transaction_timeout_ms=TIMEOUT_MS)).error_code == ErrorCode.NONE)
    wait_until("the transaction coordinator", lambda: rec.quietly(
        rq.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=transactional_id, key_type=1)
    ).error_code == ErrorCode.NONE)
    wait_until("the transaction log loaded", lambda: describe_quietly(
        rec, transactional_id).error_code not in (
            ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.NOT_COORDINATOR,
            ErrorCode.COORDINATOR_NOT_AVAILABLE))


def describe_quietly(rec: Recorder, transactional_id: str):
    [state] = rec.quietly(DESCRIBE_TRANSACTIONS, 0, dtx.DescribeTransactionsRequest(
        transactional_ids=[transactional_id])).transaction_states
    return state


def wait_for_state(rec: Recorder, transactional_id: str, state: str) -> None:
    """Unrecorded: until the markers are written and the transaction is ``state``."""
    wait_until(f"{transactional_id} to be {state}",
               lambda: describe_quietly(rec, transactional_id).transaction_state == state)


# -- request builders ------------------------------------------------------------------------


def init(transactional_id: str, timeout_ms: int = TIMEOUT_MS,
         expected: tuple[int, int] = (-1, -1)) -> ipi.InitProducerIdRequest:
    return ipi.InitProducerIdRequest(transactional_id=transactional_id,
                                     transaction_timeout_ms=timeout_ms,
                                     producer_id=expected[0], producer_epoch=expected[1])


def add(transactional_id: str, pid: int, epoch: int,
        partitions: dict[str, list[int]]) -> apt.AddPartitionsToTxnRequest:
    """The client's form (v0-v3)."""
    return apt.AddPartitionsToTxnRequest(
        v3_and_below_transactional_id=transactional_id, v3_and_below_producer_id=pid,
        v3_and_below_producer_epoch=epoch,
        v3_and_below_topics=[apt.AddPartitionsToTxnTopic(name=t, partitions=ps)
                             for t, ps in partitions.items()])


def verify(transactional_id: str, pid: int, epoch: int,
           partitions: dict[str, list[int]]) -> apt.AddPartitionsToTxnRequest:
    """The leaders' form (v4+), verifying only (KIP-890)."""
    return apt.AddPartitionsToTxnRequest(transactions=[apt.AddPartitionsToTxnTransaction(
        transactional_id=transactional_id, producer_id=pid, producer_epoch=epoch,
        verify_only=True,
        topics=[apt.AddPartitionsToTxnTopic(name=t, partitions=ps)
                for t, ps in partitions.items()])])


def end(transactional_id: str, pid: int, epoch: int, commit: bool) -> et.EndTxnRequest:
    return et.EndTxnRequest(transactional_id=transactional_id, producer_id=pid,
                            producer_epoch=epoch, committed=commit)


def describe(*transactional_ids: str) -> dtx.DescribeTransactionsRequest:
    return dtx.DescribeTransactionsRequest(transactional_ids=list(transactional_ids))


# -- scenarios ---------------------------------------------------------------------------------


def transaction_life(rec: Recorder, names) -> None:
    """InitProducerId at v0-v5 (an epoch bump each), a transaction over two partitions and a
    group's offsets with the errors of each step, the KIP-890 verification, commit, the retries
    of EndTxn after it completed, DescribeTransactions and ListTransactions."""
    topic, txn, group = names.topic, names("txn"), names("group")
    create_topic(rec, topic, 2)
    coordinator_ready(rec, txn)
    rec.call("describe before init", DESCRIBE_TRANSACTIONS, 0, describe(txn))
    for version in range(6):
        last = rec.call(f"init v{version}", rq.INIT_PRODUCER_ID, version, init(txn), mask=PID)
    pid, epoch = last.producer_id, last.producer_epoch
    rec.call("describe empty", DESCRIBE_TRANSACTIONS, 0, describe(txn), mask=DESCRIBED)
    rec.call("end an empty transaction", END_TXN, 3, end(txn, pid, epoch, True))
    for version in range(4):
        rec.call(f"add partition 0 v{version}", ADD_PARTITIONS_TO_TXN, version,
                 add(txn, pid, epoch, {topic: [0]}))
    rec.call("verify v4", ADD_PARTITIONS_TO_TXN, 4, verify(txn, pid, epoch, {topic: [0, 1]}))
    rec.call("verify v5 with an old epoch", ADD_PARTITIONS_TO_TXN, 5,
             verify(txn, pid, epoch - 1, {topic: [0]}))
    rec.call("add an unknown topic", ADD_PARTITIONS_TO_TXN, 3,
             add(txn, pid, epoch, {topic: [1], names("missing"): [0]}))
    rec.call("add an unknown partition", ADD_PARTITIONS_TO_TXN, 3,
             add(txn, pid, epoch, {topic: [1, 7]}))
    rec.call("add an internal topic", ADD_PARTITIONS_TO_TXN, 3,
             add(txn, pid, epoch, {topic: [1], "__consumer_offsets": [0]}))
    for version in (1, 2):
        rec.call(f"add with an old epoch v{version}", ADD_PARTITIONS_TO_TXN, version,
                 add(txn, pid, epoch - 1, {topic: [1]}))
    rec.call("add with another producer id", ADD_PARTITIONS_TO_TXN, 3,
             add(txn, pid + 1, epoch, {topic: [1]}))
    rec.call("add partition 1", ADD_PARTITIONS_TO_TXN, 3, add(txn, pid, epoch, {topic: [1]}))
    for version in range(5):
        rec.call(f"add offsets v{version}", ADD_OFFSETS_TO_TXN, version,
                 aot.AddOffsetsToTxnRequest(transactional_id=txn, producer_id=pid,
                                            producer_epoch=epoch, group_id=group))
    rec.call("describe ongoing", DESCRIBE_TRANSACTIONS, 0, describe(txn), mask=DESCRIBED,
             unordered=PARTITION_LISTS)
    rec.call("end with an old epoch v1", END_TXN, 1, end(txn, pid, epoch - 1, True))
    rec.call("end with an old epoch v2", END_TXN, 2, end(txn, pid, epoch - 1, True))
    rec.call("commit", END_TXN, 4, end(txn, pid, epoch, True))
    wait_for_state(rec, txn, "CompleteCommit")
    rec.call("commit again", END_TXN, 4, end(txn, pid, epoch, True))
    rec.call("abort after the commit", END_TXN, 4, end(txn, pid, epoch, False))
    rec.call("describe committed", DESCRIBE_TRANSACTIONS, 0, describe(txn, names("nobody")),
             mask=DESCRIBED)
    for version in (0, 1):
        rec.call(f"list v{version}", LIST_TRANSACTIONS, version, ltx.ListTransactionsRequest(
            producer_id_filters=[pid], state_filters=["CompleteCommit", "Bogus"],
            duration_filter=-1), mask=("transaction_states[*].producer_id",))
    rec.call("list by another state", LIST_TRANSACTIONS, 1, ltx.ListTransactionsRequest(
        producer_id_filters=[pid], state_filters=["Ongoing"]))


def fencing(rec: Recorder, names) -> None:
    """A second InitProducerId while a transaction is open aborts it with a fencing bump and
    answers CONCURRENT_TRANSACTIONS; the old producer is fenced (INVALID_PRODUCER_EPOCH before
    the versions that know PRODUCER_FENCED); KIP-360's bump of its own epoch, and its retry."""
    topic, txn = names.topic, names("txn")
    create_topic(rec, topic, 1)
    coordinator_ready(rec, txn)
    first = rec.call("init", rq.INIT_PRODUCER_ID, 4, init(txn), mask=PID)
    pid, epoch = first.producer_id, first.producer_epoch
    rec.call("add", ADD_PARTITIONS_TO_TXN, 3, add(txn, pid, epoch, {topic: [0]}))
    rec.call("init while open", rq.INIT_PRODUCER_ID, 4, init(txn), mask=PID)
    wait_for_state(rec, txn, "CompleteAbort")
    rec.call("describe aborted", DESCRIBE_TRANSACTIONS, 0, describe(txn), mask=DESCRIBED)
    for version in (1, 2):
        rec.call(f"the zombie ends v{version}", END_TXN, version, end(txn, pid, epoch, True))
        rec.call(f"the zombie adds v{version}", ADD_PARTITIONS_TO_TXN, version,
                 add(txn, pid, epoch, {topic: [0]}))
    rec.call("the zombie adds offsets v1", ADD_OFFSETS_TO_TXN, 1, aot.AddOffsetsToTxnRequest(
        transactional_id=txn, producer_id=pid, producer_epoch=epoch, group_id=names("g")))
    fresh = rec.call("init again", rq.INIT_PRODUCER_ID, 4, init(txn), mask=PID)
    now = fresh.producer_epoch
    rec.call("bump its own epoch", rq.INIT_PRODUCER_ID, 4, init(txn, expected=(pid, now)),
             mask=PID)
    rec.call("retry of the bump", rq.INIT_PRODUCER_ID, 4, init(txn, expected=(pid, now)),
             mask=PID)
    for version in (3, 4):
        rec.call(f"bump with a fenced epoch v{version}", rq.INIT_PRODUCER_ID, version,
                 init(txn, expected=(pid, now - 1)), mask=PID)
    rec.call("bump another producer id", rq.INIT_PRODUCER_ID, 4,
             init(txn, expected=(pid + 1, now)), mask=PID)


def bad_requests(rec: Recorder, names) -> None:
    """Timeouts above transaction.max.timeout.ms or not positive, empty and unknown ids."""
    txn = names("txn")
    coordinator_ready(rec, txn)
    rec.call("timeout above the maximum", rq.INIT_PRODUCER_ID, 4, init(txn, 900_001))
    rec.call("timeout 0", rq.INIT_PRODUCER_ID, 4, init(txn, 0))
    rec.call("the maximum timeout", rq.INIT_PRODUCER_ID, 4, init(txn, 900_000), mask=PID)
    rec.call("epoch without a producer id", rq.INIT_PRODUCER_ID, 4,
             init(txn, expected=(-1, 3)))
    unknown = names("unknown")
    rec.call("end an unknown id", END_TXN, 4, end(unknown, 7, 0, True))
    rec.call("add to an unknown id", ADD_PARTITIONS_TO_TXN, 3,
             add(unknown, 7, 0, {names.topic: [0]}))
    rec.call("describe unknown and empty ids", DESCRIBE_TRANSACTIONS, 0, describe(unknown, ""))


class RawProducer:
    """A transactional producer over raw requests: its batches and their sequence numbers per
    partition (a refused batch takes none)."""

    def __init__(self, rec: Recorder, topic: str, transactional_id: str, pid: int,
                 epoch: int) -> None:
        self.rec, self.topic, self.txn = rec, topic, transactional_id
        self.pid, self.epoch = pid, epoch
        self.seq: dict[int, int] = {}

    def batch(self, partition: int, n: int = 1, *, pid: int | None = None,
              epoch: int | None = None, control: bool = False) -> bytes:
        seq = self.seq.get(partition, 0)
        return bytes(build_batch(
            [(b"k%d" % i, b"v%d" % i, (), rq.T0 + i) for i in range(seq, seq + n)],
            producer_id=self.pid if pid is None else pid,
            producer_epoch=self.epoch if epoch is None else epoch, base_sequence=seq,
            is_transactional=True, is_control=control))

    def produce(self, label: str, version: int, *parts: tuple[int, bytes],
                transactional_id: str | None = "", written: dict[int, int] | None = None,
                ) -> None:
        """Record one Produce of ``parts`` (partition, batch); ``written``: how many records
        it writes to each partition (their sequence moves on)."""
        self.rec.call(label, rq.PRODUCE, version, pr.ProduceRequest(
            transactional_id=self.txn if transactional_id == "" else transactional_id,
            acks=-1, timeout_ms=30_000, topic_data=[pr.TopicProduceData(
                name=self.topic, partition_data=[pr.PartitionProduceData(index=i, records=r)
                                                 for i, r in parts])]),
            unordered=("responses[*].partition_responses",))
        for partition, n in (written or {}).items():
            self.seq[partition] = self.seq.get(partition, 0) + n

    def offsets(self, label: str, version: int, group: str) -> None:
        self.rec.call(label, TXN_OFFSET_COMMIT, version, toc.TxnOffsetCommitRequest(
            transactional_id=self.txn, group_id=group, producer_id=self.pid,
            producer_epoch=self.epoch, generation_id=-1, member_id="",
            topics=[toc.TxnOffsetCommitRequestTopic(name=self.topic, partitions=[
                toc.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=1)])]))


def verification(rec: Recorder, names) -> None:
    """KIP-890 part 1: transactional records need a transactional id; a producer's first batch
    of a transaction in a partition is written only if its coordinator has the partition in
    the transaction (INVALID_TXN_STATE with Kafka's message, TRANSACTION_ABORTABLE from Produce
    v11), and so are a TxnOffsetCommit's offsets (INVALID_TXN_STATE, TRANSACTION_ABORTABLE from
    v4); a zombie's epoch, an unknown transactional id and two producers in one request; after
    the commit, the next transaction is verified again."""
    topic, txn, group = names.topic, names("txn"), names("group")
    create_topic(rec, topic, 2)
    coordinator_ready(rec, txn)
    wait_until("the group coordinator", lambda: rec.quietly(
        rq.FIND_COORDINATOR, 3, fc.FindCoordinatorRequest(key=group)).error_code == ErrorCode.NONE)
    first = rec.call("init", rq.INIT_PRODUCER_ID, 4, init(txn), mask=PID)
    p = RawProducer(rec, topic, txn, first.producer_id, first.producer_epoch)
    p.produce("without a transactional id", 9, (0, p.batch(0)), (1, p.batch(1)),
              transactional_id=None)
    for version in (3, 9, 10, 11):
        p.produce(f"partition never added v{version}", version, (0, p.batch(0)))
    p.produce("an unknown transactional id", 9, (0, p.batch(0)), transactional_id=names("no"))
    rec.call("add partition 0", ADD_PARTITIONS_TO_TXN, 3, add(txn, p.pid, p.epoch, {topic: [0]}))
    p.produce("a zombie's epoch", 9, (0, p.batch(0, epoch=p.epoch - 1)))
    p.produce("two producers", 9, (0, p.batch(0)), (1, p.batch(1, pid=p.pid + 1)))
    p.produce("partition 0 added, 1 not", 9, (0, p.batch(0, 2)), (1, p.batch(1)),
              written={0: 2})
    p.produce("the transaction is open in partition 0", 11, (0, p.batch(0)), written={0: 1})
    p.produce("a client's control batch to partition 1", 9, (1, p.batch(1, control=True)))
    for version in (3, 4):
        p.offsets(f"offsets before AddOffsetsToTxn v{version}", version, group)
    rec.call("add offsets", ADD_OFFSETS_TO_TXN, 3, aot.AddOffsetsToTxnRequest(
        transactional_id=txn, producer_id=p.pid, producer_epoch=p.epoch, group_id=group))
    p.offsets("offsets after AddOffsetsToTxn", 3, group)
    rec.call("commit", END_TXN, 3, end(txn, p.pid, p.epoch, True))
    wait_for_state(rec, txn, "CompleteCommit")
    p.produce("the next transaction, partition 0 not added again", 9, (0, p.batch(0)))
    rec.call("what was written", rq.LIST_OFFSETS, 7, rq.list_offsets(topic, (0, -1), (1, -1)))


# -- tests -------------------------------------------------------------------------------------


def test_transaction_life(pair, names) -> None:
    pair.check(transaction_life, names, KNOWN)


def test_fencing(pair, names) -> None:
    pair.check(fencing, names, KNOWN)


def test_bad_requests(pair, names) -> None:
    pair.check(bad_requests, names, KNOWN)


def test_verification(pair, names) -> None:
    pair.check(verification, names, KNOWN)
