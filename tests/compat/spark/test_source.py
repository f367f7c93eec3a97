"""Spark Structured Streaming's Kafka source (``readStream``/``read.format("kafka")``) on pybroker.

Each test sets up its topics with librdkafka, lets Spark read them, and compares what Spark saw
with what was produced. The scenarios whose outcome depends on broker answers Spark interprets
itself (offsets by timestamp, the log start moving under a query) also run against Apache Kafka
3.9, with the same expectations.
"""

from __future__ import annotations

import json
import shutil
import threading
import time

import pytest
from pyspark.errors import StreamingQueryException

from tests.compat.spark.conftest import Kafka, Record, records_by_partition

pytestmark = [pytest.mark.compat, pytest.mark.usefixtures("stop_queries")]

BROKERS = ["pybroker", "kafka"]

#: a topic that keeps its records whatever their age: some tests stamp theirs in November 2023,
#: older than the default retention.ms (7 days), so the broker's next retention check, which
#: comes when it comes, could delete them under the test
KEEP_FOREVER = {"retention.ms": "-1"}


def reader(spark, kafka: Kafka, *, stream: bool = True, **options: str):
    r = (spark.readStream if stream else spark.read).format("kafka")
    r = r.option("kafka.bootstrap.servers", kafka.bootstrap)
    for key, value in options.items():
        r = r.option(key, value)
    return r.load()


def as_strings(df):
    return df.selectExpr(
        "topic", "partition", "offset", "CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value"
    )


def values(rows) -> set[str]:
    return {r["value"] for r in rows}


def run_to_memory(df, name: str):
    """Run an AvailableNow query into the memory table ``name``; return the query and its rows.

    (A memory sink cannot resume from a checkpoint: restarts use :func:`run_to_files`.)
    """
    query = as_strings(df).writeStream.format("memory").queryName(name) \
        .trigger(availableNow=True).start()
    assert query.awaitTermination(120), f"query {name} did not finish"
    return query, df.sparkSession.table(name).collect()


def run_to_files(df, path: str, checkpoint: str):
    """Run an AvailableNow query into a JSON file sink (exactly once across restarts)."""
    writer = as_strings(df).writeStream.format("json").option("path", path)
    writer = writer.option("checkpointLocation", checkpoint)
    query = writer.trigger(availableNow=True).start()
    assert query.awaitTermination(120), "AvailableNow query did not finish"
    return query


def file_rows(spark, path: str):
    return spark.read.schema(
        "topic STRING, partition INT, offset LONG, key STRING, value STRING"
    ).json(path).collect()


# -- what to read ----------------------------------------------------------------------------


def test_batch_read_sees_every_record_with_its_metadata(spark, pybroker: Kafka):
    topic = pybroker.create_topic("meta", config=KEEP_FOREVER)
    base = 1_700_000_000_000
    produced = [
        Record(
            value=f"v{p}-{i}".encode(), key=f"k{i}".encode(), partition=p,
            timestamp=base + 1000 * i + p, headers=[("n", str(i).encode()), ("p", b"x" * p)],
        )
        for p in range(3)
        for i in range(5)
    ]
    produced.append(Record(value=b"no-key", key=None, partition=1, timestamp=base))
    pybroker.produce(topic, produced)

    rows = reader(spark, pybroker, stream=False, subscribe=topic, includeHeaders="true").collect()

    def as_tuple(r):
        return (r.partition, r.key, r.value, r.timestamp, tuple(r.headers))

    seen = {
        (r["partition"], r["key"] and bytes(r["key"]), bytes(r["value"]),
         int(r["timestamp"].timestamp() * 1000) if r["timestamp"] else None,
         tuple((h["key"], bytes(h["value"])) for h in r["headers"] or ()))
        for r in rows
    }
    assert seen == {as_tuple(r) for r in produced}
    assert {r["topic"] for r in rows} == {topic}
    assert {r["timestampType"] for r in rows} == {0}  # CreateTime
    by_partition = {}
    for r in rows:
        by_partition.setdefault(r["partition"], []).append(r["offset"])
    assert {p: sorted(o) for p, o in by_partition.items()} == {
        0: list(range(5)), 1: list(range(6)), 2: list(range(5))
    }


def test_min_partitions_and_read_committed_read_the_same_records(spark, pybroker: Kafka):
    """Several tasks reading slices of one partition at once, and a read_committed consumer
    (no transactions here: the last stable offset is the high watermark)."""
    topic = pybroker.create_topic("split", partitions=2)
    pybroker.produce(topic, records_by_partition({0: [f"a{i}" for i in range(50)], 1: ["b0"]}))
    plain = as_strings(reader(spark, pybroker, stream=False, subscribe=topic)).collect()
    split = reader(spark, pybroker, stream=False, subscribe=topic, minPartitions="8")
    assert split.rdd.getNumPartitions() >= 8
    committed = reader(
        spark, pybroker, stream=False, subscribe=topic, minPartitions="4",
        **{"kafka.isolation.level": "read_committed"},
    )
    expected = sorted((r["partition"], r["offset"], r["value"]) for r in plain)
    assert len(expected) == 51
    for df in (split, committed):
        assert sorted((r["partition"], r["offset"], r["value"]) for r in as_strings(df).collect()) == expected


def test_subscribe_pattern_reads_matching_topics_and_finds_new_ones(spark, pybroker: Kafka):
    tag = f"pat{time.monotonic_ns() % 10**8}"
    first = pybroker.create_topic(f"{tag}-a", partitions=2)
    # (Spark looks for the pattern anywhere in a name, so this one must not contain "{tag}-")
    pybroker.create_topic(f"{tag}_other", partitions=1)
    pybroker.produce(first, records_by_partition({0: ["a0"], 1: ["a1"]}))
    pybroker.produce(pybroker.created[-1], [Record(b"not-matched")])

    df = reader(spark, pybroker, subscribePattern=f"{tag}-.*", startingOffsets="earliest")
    query = (
        as_strings(df).writeStream.format("memory").queryName("pattern")
        .trigger(processingTime="500 milliseconds").start()
    )
    query.processAllAvailable()
    assert values(spark.table("pattern").collect()) == {"a0", "a1"}

    # a topic created while the query runs is discovered at a later trigger, read from its start
    later = pybroker.create_topic(f"{tag}-b", partitions=1)
    pybroker.produce(later, [Record(b"b0"), Record(b"b1")])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        query.processAllAvailable()
        rows = spark.table("pattern").collect()
        if len(rows) >= 4:
            break
        time.sleep(0.5)
    query.stop()
    assert values(rows) == {"a0", "a1", "b0", "b1"}
    assert {r["topic"] for r in rows} == {first, later}


def test_assign_reads_only_the_named_partitions(spark, pybroker: Kafka):
    topic = pybroker.create_topic("assign", partitions=3)
    pybroker.produce(topic, records_by_partition({0: ["p0a", "p0b"], 1: ["p1"], 2: ["p2a", "p2b"]}))
    df = reader(spark, pybroker, assign=json.dumps({topic: [0, 2]}), startingOffsets="earliest")
    _, rows = run_to_memory(df, "assigned")
    assert sorted((r["partition"], r["offset"], r["value"]) for r in rows) == [
        (0, 0, "p0a"), (0, 1, "p0b"), (2, 0, "p2a"), (2, 1, "p2b")
    ]


# -- where to start and stop -----------------------------------------------------------------


def test_starting_offsets_earliest_latest_and_per_partition(spark, pybroker: Kafka):
    topic = pybroker.create_topic("start", partitions=3)
    pybroker.produce(topic, records_by_partition({p: [f"old{p}-{i}" for i in range(4)] for p in range(3)}))

    _, rows = run_to_memory(reader(spark, pybroker, subscribe=topic, startingOffsets="earliest"), "earliest")
    assert len(rows) == 12

    # per partition: an offset, -2 for earliest, -1 for latest
    spec = json.dumps({topic: {"0": 2, "1": -2, "2": -1}})
    _, rows = run_to_memory(reader(spark, pybroker, subscribe=topic, startingOffsets=spec), "json")
    assert sorted((r["partition"], r["offset"]) for r in rows) == [
        (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)
    ]

    # latest: what is there when the query starts is skipped; what comes after is read
    df = reader(spark, pybroker, subscribe=topic, startingOffsets="latest")
    query = (
        as_strings(df).writeStream.format("memory").queryName("latest")
        .trigger(processingTime="500 milliseconds").start()
    )
    query.processAllAvailable()
    pybroker.produce(topic, records_by_partition({0: ["new0"], 2: ["new2"]}))
    query.processAllAvailable()
    query.stop()
    rows = spark.table("latest").collect()
    assert sorted((r["partition"], r["offset"], r["value"]) for r in rows) == [
        (0, 4, "new0"), (2, 4, "new2")
    ]


def timestamped_topic(kafka: Kafka) -> tuple[str, int]:
    """Three partitions of five records each, stamped base + 10 s * i (+ p ms)."""
    topic = kafka.create_topic("ts", partitions=3, config=KEEP_FOREVER)
    base = 1_700_000_000_000
    kafka.produce(topic, [
        Record(value=f"p{p}-{i}".encode(), partition=p, timestamp=base + 10_000 * i + p)
        for p in range(3)
        for i in range(5)
    ])
    return topic, base


@pytest.mark.parametrize("broker", BROKERS)
def test_starting_offsets_by_timestamp(spark, kafka_of, broker: str):
    kafka = kafka_of(broker)
    topic, base = timestamped_topic(kafka)

    # one timestamp for every partition: the first record at or after it
    df = reader(spark, kafka, stream=False, subscribe=topic, startingTimestamp=str(base + 20_000))
    assert sorted((r["partition"], r["offset"]) for r in df.collect()) == [
        (p, o) for p in range(3) for o in (2, 3, 4)
    ]

    # per partition, streaming
    spec = json.dumps({topic: {"0": base + 35_000, "1": base, "2": base + 40_002}})
    df = reader(spark, kafka, subscribe=topic, startingOffsetsByTimestamp=spec)
    _, rows = run_to_memory(df, f"by_ts_{broker}")
    assert sorted((r["partition"], r["offset"]) for r in rows) == [
        (0, 4), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (2, 4)
    ]

    # a timestamp past every record: an error by default, the end with strategy "latest"
    past = json.dumps({topic: {"0": base + 999_999, "1": base, "2": base}})
    with pytest.raises(Exception, match="No offset matched from request"):
        reader(spark, kafka, stream=False, subscribe=topic, startingOffsetsByTimestamp=past).collect()
    df = reader(
        spark, kafka, stream=False, subscribe=topic, startingOffsetsByTimestamp=past,
        startingOffsetsByTimestampStrategy="latest",
    )
    assert sorted({r["partition"] for r in df.collect()}) == [1, 2]


def test_ending_offsets_bound_a_batch_query(spark, pybroker: Kafka):
    topic = pybroker.create_topic("end", partitions=3)
    pybroker.produce(topic, records_by_partition({p: [f"p{p}-{i}" for i in range(6)] for p in range(3)}))

    spec = json.dumps({topic: {"0": 2, "1": -1, "2": 5}})
    df = reader(spark, pybroker, stream=False, subscribe=topic, endingOffsets=spec)
    counts = {p: 0 for p in range(3)}
    for r in df.collect():
        counts[r["partition"]] += 1
    assert counts == {0: 2, 1: 6, 2: 5}

    start = json.dumps({topic: {"0": 1, "1": 4, "2": -2}})
    df = reader(
        spark, pybroker, stream=False, subscribe=topic, startingOffsets=start, endingOffsets=spec
    )
    assert sorted((r["partition"], r["offset"]) for r in df.collect()) == [
        (0, 1), (1, 4), (1, 5), (2, 0), (2, 1), (2, 2), (2, 3), (2, 4)
    ]


def test_ending_offsets_by_timestamp(spark, pybroker: Kafka):
    topic, base = timestamped_topic(pybroker)
    spec = json.dumps({topic: {"0": base + 20_000, "1": base + 999_999, "2": base}})
    df = reader(spark, pybroker, stream=False, subscribe=topic, endingOffsetsByTimestamp=spec)
    # ends before the first record at or after the timestamp; no such record means the end
    assert sorted((r["partition"], r["offset"]) for r in df.collect()) == [
        (0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4)
    ]


# -- how much per batch ----------------------------------------------------------------------


def test_max_offsets_per_trigger_splits_available_now_into_bounded_batches(spark, pybroker: Kafka):
    topic = pybroker.create_topic("rate", partitions=3)
    pybroker.produce(topic, records_by_partition({p: [f"p{p}-{i}" for i in range(20)] for p in range(3)}))
    df = reader(spark, pybroker, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="16")
    query, rows = run_to_memory(df, "bounded")
    sizes = [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]
    assert sum(sizes) == 60 and len(rows) == 60
    assert max(sizes) <= 16 and len(sizes) >= 4, sizes
    assert len({(r["partition"], r["offset"]) for r in rows}) == 60


def test_available_now_reads_what_is_there_and_stops(spark, pybroker: Kafka, checkpoint, tmp_path):
    topic = pybroker.create_topic("now", partitions=2)
    cp = checkpoint()
    pybroker.produce(topic, records_by_partition({0: ["a", "b"], 1: ["c"]}))
    df = reader(spark, pybroker, subscribe=topic, startingOffsets="earliest")
    out = str(tmp_path / "out")
    query = run_to_files(df, out, cp)
    assert not query.isActive and values(file_rows(spark, out)) == {"a", "b", "c"}

    # the next run from the same checkpoint reads only what came since
    pybroker.produce(topic, records_by_partition({1: ["d"]}))
    query = run_to_files(df, out, cp)
    assert not query.isActive and query.lastProgress["numInputRows"] == 1
    assert values(file_rows(spark, out)) == {"a", "b", "c", "d"}
    query = run_to_files(df, out, cp)
    assert sum(p["numInputRows"] for p in query.recentProgress) == 0
    assert len(file_rows(spark, out)) == 4


# -- restarts and lost data ------------------------------------------------------------------


def test_restart_from_checkpoint_continues_exactly(spark, pybroker: Kafka, checkpoint, tmp_path):
    """Stop a running query twice while records keep arriving: no record lost or repeated."""
    topic = pybroker.create_topic("restart", partitions=3)
    out, cp = str(tmp_path / "out"), checkpoint()
    total = 600
    done = threading.Event()

    def produce() -> None:
        for start in range(0, total, 30):
            pybroker.produce(topic, [
                Record(value=f"v{i}".encode(), key=f"u{i % 17}".encode(), partition=i % 3)
                for i in range(start, start + 30)
            ])
            time.sleep(0.05)
        done.set()

    def start_query():
        df = reader(spark, pybroker, subscribe=topic, startingOffsets="earliest", maxOffsetsPerTrigger="50")
        return (
            as_strings(df).writeStream.format("json").option("path", out)
            .option("checkpointLocation", cp).trigger(processingTime="100 milliseconds").start()
        )

    producer = threading.Thread(target=produce)
    producer.start()
    for _ in range(2):
        query = start_query()
        time.sleep(2.5)
        query.stop()  # mid-stream, possibly mid-batch
    producer.join()
    assert done.is_set()
    query = start_query()
    query.processAllAvailable()
    query.stop()

    rows = file_rows(spark, out)
    assert len(rows) == total
    assert sorted(int(r["value"][1:]) for r in rows) == list(range(total))
    assert len({(r["partition"], r["offset"]) for r in rows}) == total


@pytest.mark.parametrize("hard", [False, True], ids=["sigterm", "sigkill"])
def test_running_query_rides_out_a_broker_restart(spark, broker_factory, hard, checkpoint, tmp_path):
    """The broker restarts (cleanly, or killed) under a running query: Spark's clients reconnect
    and the query goes on; every acknowledged record reaches the sink exactly once."""
    broker = broker_factory(**{"num.partitions": 3})
    kafka = Kafka(broker.bootstrap)
    topic = kafka.create_topic("bounce", partitions=3)
    out = str(tmp_path / "out")

    def batch(start: int) -> list[Record]:
        return [Record(f"v{i}".encode(), partition=i % 3) for i in range(start, start + 50)]

    kafka.produce(topic, batch(0))
    df = reader(spark, kafka, subscribe=topic, startingOffsets="earliest")
    query = (
        as_strings(df).writeStream.format("json").option("path", out)
        .option("checkpointLocation", checkpoint()).trigger(processingTime="200 milliseconds").start()
    )
    query.processAllAvailable()
    broker.restart(hard=hard)
    kafka.produce(topic, batch(50))
    query.processAllAvailable()
    assert query.isActive and query.exception() is None
    query.stop()
    assert numbers(file_rows(spark, out)) == list(range(100))


def lose_records_under_a_query(spark, kafka: Kafka, topic: str, checkpoint, tmp_path, move_log_start):
    """Spark reads the ten records ``topic`` holds; ``move_log_start(topic)`` adds ten more and
    moves the log start to 15; then the query resumes from two copies of its checkpoint, once
    with ``failOnDataLoss`` true and once false. Returns the first's error and the rows the
    second wrote after resuming (into a sink of its own: a file sink's log names its folder)."""
    cp_fail, out_fail = checkpoint(), str(tmp_path / "out-fail")
    run_to_files(reader(spark, kafka, subscribe=topic, startingOffsets="earliest"), out_fail, cp_fail)
    assert len(file_rows(spark, out_fail)) == 10
    cp_skip, out_skip = str(tmp_path / "cp-skip"), str(tmp_path / "out-skip")
    shutil.copytree(cp_fail, cp_skip)

    move_log_start(topic)

    df = reader(spark, kafka, subscribe=topic, failOnDataLoss="true")
    with pytest.raises(StreamingQueryException) as failed:
        run_to_files(df, out_fail, cp_fail)
    df = reader(spark, kafka, subscribe=topic, failOnDataLoss="false")
    run_to_files(df, out_skip, cp_skip)
    # (the part files themselves: the sink's log starts at a batch this folder never saw)
    return str(failed.value), file_rows(spark, f"{out_skip}/part-*")


def numbers(rows) -> list[int]:
    return sorted(int(r["value"].rsplit("v", 1)[1]) for r in rows)


@pytest.mark.parametrize("broker", BROKERS)
def test_fail_on_data_loss_after_delete_records(spark, kafka_of, broker, checkpoint, tmp_path):
    kafka = kafka_of(broker)
    topic = kafka.create_topic("loss", partitions=1)
    kafka.produce(topic, [Record(f"v{i}".encode()) for i in range(10)])

    def delete_records(topic: str) -> None:
        kafka.produce(topic, [Record(f"v{i}".encode()) for i in range(10, 20)])
        kafka.delete_records(topic, {0: 15})

    error, rows = lose_records_under_a_query(spark, kafka, topic, checkpoint, tmp_path, delete_records)
    assert "Some data may have been lost" in error, error
    assert "set the source option failOnDataLoss to false" in error, error
    assert numbers(rows) == list(range(15, 20))


@pytest.mark.parametrize("broker", [
    "pybroker",
    pytest.param("kafka", marks=pytest.mark.long),  # make test-long: the reference's side
])
def test_fail_on_data_loss_after_retention(spark, fresh_kafka_of, broker, checkpoint, tmp_path):
    """Time-based retention deletes the segments holding offsets 10-14 before Spark reads them."""
    kafka = fresh_kafka_of(broker, **{"log.retention.check.interval.ms": 200})
    # one record per batch and one batch per segment (two would not fit); retention is
    # switched on once Spark has read the first ten
    topic = kafka.create_topic("retained", partitions=1, config={"segment.bytes": "1000"})
    hour_ago = int(time.time() * 1000) - 3_600_000
    padding = b"x" * 600 + b"|"

    def record(i: int) -> Record:
        return Record(padding + f"v{i}".encode(), timestamp=hour_ago if i < 15 else None)

    for i in range(10):
        kafka.produce(topic, [record(i)])

    def age_out(topic: str) -> None:
        for i in range(10, 20):
            kafka.produce(topic, [record(i)])
        # 30 min: records 0-14 (an hour old) are past it, 15-19 (fresh) far from it. They must
        # outlive the wait below and both queries after it, or their segments go as well and
        # the log start moves past 15 (with a minute, that depended on how fast Spark ran).
        kafka.alter_topic(topic, {"retention.ms": str(30 * 60_000)})
        # Kafka's first retention check comes 30 s after its start-up (then every 200 ms)
        deadline = time.monotonic() + 60
        while (start := kafka.log_start(topic)) < 15 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert start == 15, f"retention moved the log start to {start}, not 15"

    error, rows = lose_records_under_a_query(spark, kafka, topic, checkpoint, tmp_path, age_out)
    assert "Some data may have been lost" in error, error
    assert numbers(rows) == list(range(15, 20))


#: the reference Kafka shows the read_committed scenario itself is right
TRANSACTION_BROKERS = ["pybroker", "kafka"]


@pytest.mark.parametrize("broker", TRANSACTION_BROKERS)
def test_read_committed_over_transactional_input(spark, kafka_of, broker: str):
    """Committed and aborted transactions in two partitions: Spark with
    ``kafka.isolation.level=read_committed`` reads exactly the committed records, batch and
    streaming, across the offsets the markers and the aborted records take."""
    from confluent_kafka import Producer

    kafka = kafka_of(broker)
    topic = kafka.create_topic("spark-txn", partitions=2, config=KEEP_FOREVER)
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5,
                         "transactional.id": f"{topic}-tid"})
    producer.init_transactions(30)
    committed: set[str] = set()
    for txn, (outcome, n) in enumerate((("commit", 10), ("abort", 4), ("commit", 6))):
        producer.begin_transaction()
        for i in range(n):
            value = f"{outcome}-{txn}-{i}"
            producer.produce(topic, value.encode(), partition=i % 2)
            if outcome == "commit":
                committed.add(value)
        producer.flush(30)
        if outcome == "commit":
            producer.commit_transaction(30)
        else:
            producer.abort_transaction(30)

    options = {"subscribe": topic, "kafka.isolation.level": "read_committed",
               "startingOffsets": "earliest"}
    rows = as_strings(reader(spark, kafka, stream=False, **options)).collect()
    assert values(rows) == committed and len(rows) == len(committed)
    _, rows = run_to_memory(reader(spark, kafka, **options), f"read_committed_{broker}")
    assert values(rows) == committed and len(rows) == len(committed)
    # read_uncommitted (Spark's default) sees the aborted records too
    everything = reader(spark, kafka, stream=False, subscribe=topic,
                        startingOffsets="earliest").collect()
    assert len(everything) == 20
