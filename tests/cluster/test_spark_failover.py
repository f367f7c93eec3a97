"""The activity-stream example (``examples/activity_stream``, what ``make pipeline`` runs) on three
pybroker processes, with a broker killed (SIGKILL) while the page views are being produced: the
one leading ``page-view-counts``, the topic Spark's Kafka sink writes, and so also a partition of
``page-views``, the topic its Kafka source reads. Both topics at replication factor 3 with
``min.insync.replicas=2``.

The counts the pipeline writes are exactly those of ``tests/compat/spark/test_pipeline.py`` on a
single broker: no view lost, none counted twice, no window written twice (the example's reader
refuses one). The test prints how long each writer waited across the failover (the kill to the
first write acknowledged after it, seen as the topic's high watermark moving on) and how long
Spark stalled (the kill to the end of the first micro-batch that read a view written after it).

Spark's stall is mostly the Java admin client's: the driver asks for the latest offsets with
``Admin.listOffsets`` every trigger, and a call whose partition leader dies waits out
``default.api.timeout.ms`` (60 s: "Timed out waiting for a node assignment") before Spark tries
again. Three Apache Kafka 3.9.1 brokers give the same 60 s with the same client, so the stall
lies between the ZooKeeper session timeout (6 s) and about 70 s depending on whether such a call
is in flight at the kill.

One Spark test, on the session's shared SparkSession (``tests/conftest.py``).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from examples.activity_stream import job, run
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.failover import agreed_states, high_watermarks
from tests.compat.spark.test_pipeline import EVENTS, SEED, expected_counts

#: page views produced before the kill (of 3000)
KILL_AFTER = 1000



@dataclass(frozen=True)
class Batch:
    query: str
    start: float
    end: float
    rows: int
    #: partition -> the offset the batch read up to, in the source topic
    end_offsets: dict[int, int]


def progress_listener(batches: list[Batch]):  # noqa: ANN201 - pyspark's class, imported late
    from pyspark.sql.streaming import StreamingQueryListener

    class Progress(StreamingQueryListener):
        """Every micro-batch of every query, as Spark reports it."""

        def onQueryStarted(self, event) -> None:  # noqa: ANN001, N802 - pyspark's API
            pass

        def onQueryProgress(self, event) -> None:  # noqa: ANN001, N802
            p = event.progress
            start = datetime.fromisoformat(p.timestamp).timestamp()
            ends: dict[int, int] = {}
            for source in p.sources:
                for partitions in json.loads(source.endOffset or "{}").values():
                    ends.update({int(k): int(v) for k, v in partitions.items()})
            batches.append(Batch(p.name or "", start, start + p.batchDuration / 1000,
                                 p.numInputRows, ends))

        def onQueryIdle(self, event) -> None:  # noqa: ANN001, N802
            pass

        def onQueryTerminated(self, event) -> None:  # noqa: ANN001, N802
            pass

    return Progress()


class Watermarks:
    """Samples the high watermarks of the pipeline's topics every 0.1 s from a thread:
    (time, partition -> high watermark) per topic. A write acknowledged with acks=all is one
    the high watermark has passed."""

    TOPICS = {job.INPUT_TOPIC: 3, job.OUTPUT_TOPIC: 1}

    def __init__(self, cluster: ClusterProcesses) -> None:
        self.cluster = cluster
        self.samples: dict[str, list[tuple[float, dict[int, int]]]] = {t: [] for t in self.TOPICS}
        self.baselines: dict[tuple[str, float], dict[int, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watermarks", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            for topic, partitions in self.TOPICS.items():
                try:
                    self.samples[topic].append(
                        (time.time(), high_watermarks(self.cluster, topic, partitions)))
                except Exception:  # noqa: BLE001 - a broker dying mid-question; sample again
                    pass

    def mark(self, when: float) -> None:
        """Note the high watermarks right after a kill at ``when``: until the controller takes
        the dead broker out of the ISR no acks=all write completes, so what they show then was
        acknowledged before the kill."""
        for topic, partitions in self.TOPICS.items():
            self.baselines[(topic, when)] = {
                **self.at(topic, when), **high_watermarks(self.cluster, topic, partitions)}

    def total(self, topic: str) -> int:
        samples = self.samples[topic]
        return sum(samples[-1][1].values()) if samples else 0

    def at(self, topic: str, when: float) -> dict[int, int]:
        """The last sample taken before ``when``, each partition at its highest yet."""
        out: dict[int, int] = {}
        for t, hws in self.samples[topic]:
            if t < when:
                for p, hw in hws.items():
                    out[p] = max(out.get(p, 0), hw)
        return out

    def first_write_after(self, topic: str, when: float) -> float | None:
        """Seconds from ``when`` (a kill :meth:`mark` ed) to the first sample whose high
        watermarks moved past the ones of the kill."""
        before = self.baselines[(topic, when)]
        for t, hws in self.samples[topic]:
            if t > when and any(hw > before.get(p, 0) for p, hw in hws.items()):
                return t - when
        return None

    def __enter__(self) -> Watermarks:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(10)


class Killer:
    """Once ``page-views`` holds ``KILL_AFTER`` views, kills the broker leading
    ``page-view-counts``."""

    def __init__(self, cluster: ClusterProcesses, watermarks: Watermarks) -> None:
        self.cluster = cluster
        self.watermarks = watermarks
        self.killed: float | None = None
        self.victim: int | None = None
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="killer", daemon=True)

    def _run(self) -> None:
        try:
            while not self._stop.wait(0.05):
                if self.watermarks.total(job.INPUT_TOPIC) >= KILL_AFTER:
                    states = agreed_states(self.cluster, job.OUTPUT_TOPIC)
                    if not states:
                        continue
                    self.victim = states[0][0]
                    self.killed = time.time()
                    self.cluster.broker(self.victim).kill()
                    self.watermarks.mark(self.killed)
                    return
        except Exception as exc:  # noqa: BLE001 - the test reports it
            self.error = f"{type(exc).__name__}: {exc}"

    def __enter__(self) -> Killer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(30)


@pytest.mark.long  # make test-long: CI keeps tests/compat/spark's restarts
def test_pipeline_counts_exactly_with_a_broker_killed_mid_run(
        spark, cluster: ClusterProcesses, tmp_path: Path) -> None:
    batches: list[Batch] = []
    listener = progress_listener(batches)
    spark.streams.addListener(listener)
    started = time.time()
    try:
        with Watermarks(cluster) as watermarks, Killer(cluster, watermarks) as killer:
            result = run.run_pipeline(cluster.bootstrap, tmp_path, seed=SEED, events=EVENTS,
                                      spark=spark, replication_factor=3, min_insync_replicas=2)
    finally:
        spark.streams.removeListener(listener)
    assert killer.error is None, killer.error
    assert killer.killed is not None, f"the pipeline finished before {KILL_AFTER} views"
    killed = killer.killed
    print(f"\npipeline on three brokers, broker {killer.victim} (leading "
          f"{job.OUTPUT_TOPIC}) killed {killed - started:.1f}s into the run")
    for topic, writer in ((job.INPUT_TOPIC, "the generator (librdkafka)"),
                          (job.OUTPUT_TOPIC, "Spark's Kafka sink (the Java client)")):
        first = watermarks.first_write_after(topic, killed)
        print(f"  {writer}: first write to {topic} acknowledged "
              + (f"{first:.1f}s after the kill" if first is not None else "never after the kill"))
    written = watermarks.baselines[(job.INPUT_TOPIC, killed)]
    resumed = sorted(b.end for b in batches
                     if any(o > written.get(p, 0) for p, o in b.end_offsets.items()))
    assert resumed, "no micro-batch read a view written after the kill"
    print(f"  Spark stalled {resumed[0] - killed:.1f}s: from the kill to the end of the first "
          f"micro-batch reading views written after it; the run took "
          f"{time.time() - started:.1f}s\n")

    # what the example's own test asserts on one broker
    expected = expected_counts(SEED, EVENTS)
    assert result.produced == EVENTS
    assert result.from_topic == expected
    assert result.from_files == expected
    assert sum(expected.values()) == 2495
