"""``make pipeline``: an embedded pybroker, the page-view generator and the Spark job, end to end.

1. start pybroker (single node, no ZooKeeper) on a free port, with its data in the work folder;
2. create ``page-views`` (3 partitions, no time retention) and ``page-view-counts``;
3. start the Spark job (two streaming queries: to the topic and to JSON files);
4. produce the page views while the job runs;
5. wait until the job has read them all and closed every window it can;
6. print the top pages of each window, read back from ``page-view-counts``, and check that the
   file sink holds the same counts.

    python -m examples.activity_stream.run [--seed 42] [--events 6000] [--work-dir data/pipeline]

Windows the watermark has not yet passed stay open, as in any append-mode streaming job: the
last minute or so of the stream is counted only when later events arrive.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from examples.activity_stream import generator, job
from examples.activity_stream.events import generate

#: ``(window start, page) -> views``, window starts as ``2026-01-01T09:00:00Z``
Counts = dict[tuple[str, str], int]


@dataclass
class PipelineResult:
    produced: int
    from_topic: Counts
    from_files: Counts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def embedded_broker(data_dir: Path) -> Iterator[str]:
    """A single-node pybroker on 127.0.0.1; yields its bootstrap address, stops it on exit."""
    port = free_port()
    listener = f"PLAINTEXT://127.0.0.1:{port}"
    overrides = {
        "listeners": listener, "advertised.listeners": listener, "log.dirs": str(data_dir),
        "num.partitions": "3", "auto.create.topics.enable": "false",
    }
    cmd = [sys.executable, "-m", "pybroker", "serve", "--log-level", "WARNING"]
    for key, value in overrides.items():
        cmd += ["--override", f"{key}={value}"]
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir.parent / "broker.log", "ab") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"pybroker exited with {proc.returncode}: see {log.name}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("pybroker did not start listening within 30 s") from None
                time.sleep(0.05)
        yield f"127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def create_topics(bootstrap: str, *, replication_factor: int = 1,
                  min_insync_replicas: int = 1) -> None:
    """``page-views`` keeps its records whatever their age: the views are stamped with their
    event times, from 2026-01-01 on, and a topic with time retention (Kafka's default is 7
    days) would lose them at the broker's next retention check, in the middle of a run.

    On a cluster, ``replication_factor=3, min_insync_replicas=2`` keeps both topics writable
    and every acknowledged view through the loss of any one broker (the generator writes with
    acks=all)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    durability = {"min.insync.replicas": str(min_insync_replicas)}
    futures = admin.create_topics([
        NewTopic(job.INPUT_TOPIC, 3, replication_factor,
                 config={"retention.ms": "-1", **durability}),
        NewTopic(job.OUTPUT_TOPIC, 1, replication_factor, config=durability),
    ], operation_timeout=10)
    for f in futures.values():
        f.result(timeout=30)


def read_counts_topic(bootstrap: str, topic: str = job.OUTPUT_TOPIC) -> Counts:
    """Every record of the output topic, read to its end by a plain Kafka consumer."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": "pipeline-report",
        "enable.auto.commit": False, "auto.offset.reset": "earliest",
    })
    try:
        end = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)[1]
        consumer.assign([TopicPartition(topic, 0, 0)])
        counts: Counts = {}
        deadline = time.monotonic() + 60
        position = 0
        while position < end:
            if time.monotonic() > deadline:
                raise RuntimeError(f"read {position} of {end} records of {topic}")
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            position = msg.offset() + 1
            row = json.loads(msg.value())
            key = (row["window_start"], row["page"])
            if key in counts:
                raise RuntimeError(f"{topic} holds two counts for {key}")
            counts[key] = row["views"]
        return counts
    finally:
        consumer.close()


def read_counts_files(spark, output_dir: Path) -> Counts:
    rows = spark.read.json(str(output_dir)).collect()
    counts: Counts = {}
    for r in rows:
        start = r["window_start"].replace(".000Z", "Z")
        if (start, r["page"]) in counts:
            raise RuntimeError(f"the file sink holds two counts for {(start, r['page'])}")
        counts[(start, r["page"])] = r["views"]
    return counts


def run_pipeline(
    bootstrap: str, work_dir: Path, *, seed: int, events: int, spark=None,
    replication_factor: int = 1, min_insync_replicas: int = 1,
) -> PipelineResult:
    """Produce ``events`` page views while the job runs; return the counts both sinks hold.
    The topics are created with ``replication_factor`` and ``min_insync_replicas``."""
    from examples.spark_connector import local_session

    spark = spark or local_session("activity-stream")
    create_topics(bootstrap, replication_factor=replication_factor,
                  min_insync_replicas=min_insync_replicas)
    output_dir, checkpoints = work_dir / "page-view-counts", work_dir / "checkpoints"
    queries = job.start(spark, bootstrap, output_dir, checkpoints)
    try:
        # the queries run in Spark's JVM meanwhile, reading each round as it lands
        views = generate(seed, events)
        generator.produce(bootstrap, views, pause=0.02)
        queries.process_all_available()
    finally:
        queries.stop()
    return PipelineResult(
        produced=len(views),
        from_topic=read_counts_topic(bootstrap),
        from_files=read_counts_files(spark, output_dir),
    )


def top_pages(counts: Counts, n: int = 3) -> dict[str, list[tuple[str, int]]]:
    """The ``n`` most viewed pages of each window (ties by page name)."""
    windows: dict[str, Counter[str]] = {}
    for (start, page), views in counts.items():
        windows.setdefault(start, Counter())[page] = views
    return {
        start: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        for start, c in sorted(windows.items())
    }


def report(result: PipelineResult, n: int = 3) -> str:
    lines = [f"{result.produced} page views produced; top {n} pages per one-minute window:"]
    for start, pages in top_pages(result.from_topic, n).items():
        total = sum(v for (s, _), v in result.from_topic.items() if s == start)
        lines.append(f"  {start}  ({total} views)")
        lines += [f"      {views:5d}  {page}" for page, views in pages]
    same = "the same" if result.from_files == result.from_topic else "DIFFERENT"
    lines.append(f"the file sink holds {same} counts ({len(result.from_files)} rows)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--events", type=int, default=6000)
    parser.add_argument("--work-dir", type=Path, default=Path("data/pipeline"))
    parser.add_argument("--top", type=int, default=3)
    args = parser.parse_args(argv)

    from examples.spark_connector import local_session

    shutil.rmtree(args.work_dir, ignore_errors=True)  # a fresh broker, topics and checkpoints
    os.makedirs(args.work_dir)
    with embedded_broker(args.work_dir / "kafka-logs") as bootstrap:
        print(f"pybroker listening on {bootstrap}; starting Spark", flush=True)
        spark = local_session("activity-stream")
        spark.sparkContext.setLogLevel("ERROR")
        try:
            result = run_pipeline(bootstrap, args.work_dir, seed=args.seed, events=args.events,
                                  spark=spark)
        finally:
            spark.stop()
    print(report(result, args.top))
    return 0 if result.from_files == result.from_topic else 1


if __name__ == "__main__":
    sys.exit(main())
