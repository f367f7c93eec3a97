#!/usr/bin/env python3
"""Cluster scale: three ZooKeeper-mode brokers, 1,000 partitions at replication factor 3, on
pybroker and on Apache Kafka 3.9 in the same run, with the ratios pybroker/Kafka.

For each of pybroker and Kafka in turn, on fresh ZooKeeper data: start a ZooKeeper
(pybroker/testing/zookeeper.py) and three brokers on it (pybroker/testing/cluster.py, or
pybroker/testing/reference_cluster.py for Kafka), then

1. **create** a topic of ``--partitions`` partitions at replication factor 3 with
   confluent-kafka's AdminClient, timed until CreateTopics is answered and until Metadata from
   every broker shows every partition with a live leader;
2. **Metadata latency**: ``--requests`` Metadata requests for all topics and as many for one
   (small) topic, one at a time over one connection per broker, round-robin; median and p99;
3. **controller failover**: SIGKILL to the controller's pid (the controller is the one
   Metadata names), timed until every surviving broker names a new controller and until every
   partition the killed broker led has a live leader again in Metadata from every survivor;

and stop everything by pid. Both clusters run with the same ``zookeeper.session.timeout.ms``
(``--session-timeout-ms``, 6000 by default). Results go to
``<out>/bench-cluster-<timestamp>.json`` and ``.png``; a table is printed. Run it as
``python -m scripts.bench_cluster`` from the checkout. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import socket
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import metadata_request, metadata_response
from protocol.primitives import Reader
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.cluster import FAST_FAILOVER, ClusterProcesses
from pybroker.testing.reference_cluster import ReferenceKafkaCluster
from pybroker.testing.reference_kafka import KAFKA_VERSION, missing_requirements
from pybroker.testing.zookeeper import ZooKeeperServer
from scripts.bench import (
    catch_interrupts,
    cpu_seconds,
    interrupted,
    load_average,
    loud,
    machine_info,
    peak_rss_mib,
    settle,
)

BROKERS = ("pybroker", "kafka")
RATIO = "pybroker/kafka"
CLUSTER_SIZE = 3
REPLICATION_FACTOR = 3
TOPIC = "bench-cluster"
SMALL_TOPIC = "bench-cluster-one"  # one partition: the subject of the one-topic requests
CHROOT = "/bench-cluster"
METADATA_VERSION = 12  # what librdkafka 2.x and the Java clients 3.9 send
#: the session timeout pybroker's cluster tests use; both clusters get it
SESSION_TIMEOUT_MS = int(str(FAST_FAILOVER["zookeeper.session.timeout.ms"]))

#: the figures of a run: key, label, unit, label in the plot (every one: lower is better)
FIGURES = (
    ("create_answered_s", "create: CreateTopics answered", "s", "CreateTopics\nanswered"),
    ("create_led_s", "create: every partition led, on every broker", "s",
     "every partition\nled everywhere"),
    ("metadata_all_median_ms", "Metadata, all topics: median", "ms", "all topics\nmedian"),
    ("metadata_all_p99_ms", "Metadata, all topics: p99", "ms", "all topics\np99"),
    ("metadata_one_median_ms", "Metadata, one topic: median", "ms", "one topic\nmedian"),
    ("metadata_one_p99_ms", "Metadata, one topic: p99", "ms", "one topic\np99"),
    ("failover_controller_s", "failover: new controller, on every survivor", "s",
     "new controller\neverywhere"),
    ("failover_led_s", "failover: every partition led again", "s",
     "every partition\nled again"),
)


class BenchError(RuntimeError):
    """A cluster did not reach a state the benchmark waits for."""


# -- pure helpers ---------------------------------------------------------------------------


def percentile(values: Iterable[float], pct: float) -> float:
    """The nearest-rank percentile: the smallest value with at least ``pct``% of the values at
    or below it."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def not_led(resp: Any, topic: str, partitions: int, live: Iterable[int]) -> int:
    """How many of ``topic``'s ``partitions`` partitions have no leader among ``live`` in the
    Metadata response ``resp`` (a partition it does not list counts as not led)."""
    live_ids = set(live)
    for t in resp.topics:
        if t.name == topic:
            led = {p.partition_index for p in t.partitions
                   if p.leader_id in live_ids and 0 <= p.partition_index < partitions}
            return partitions - len(led)
    return partitions


def new_controller(resp: Any, killed: int, live: Iterable[int]) -> int | None:
    """The controller ``resp`` names if it is a live broker other than ``killed``."""
    controller = resp.controller_id
    return controller if controller != killed and controller in set(live) else None


def summarize(runs: list[ClusterRun], names: list[str]) -> dict[str, dict[str, float | None]]:
    """Per figure: each broker's median over its successful rounds, and ``ratio``
    pybroker/kafka (of times: below 1, pybroker is faster)."""
    out: dict[str, dict[str, float | None]] = {}
    for key, *_ in FIGURES:
        values: dict[str, float | None] = {}
        for name in names:
            got = [r.figures[key] for r in runs if r.broker == name and key in r.figures]
            values[name] = round(statistics.median(got), 4) if got else None
        if set(BROKERS) <= set(names):
            py, kafka = values["pybroker"], values["kafka"]
            values["ratio"] = round(py / kafka, 3) if py is not None and kafka else None
        out[key] = values
    return out


# -- Metadata over a raw connection ---------------------------------------------------------


class MetadataConnection:
    """Metadata requests to one broker over one connection. A request is encoded once in
    advance and only its correlation id changes; the response is decoded after the clock stops,
    so a sample is the time from the first byte sent to the last byte received."""

    def __init__(self, broker_id: int, bootstrap: str, timeout: float = 30.0) -> None:
        self.broker_id = broker_id
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.correlation_id = 0
        self._frames: dict[tuple[str, ...] | None, bytearray] = {}

    def close(self) -> None:
        self.sock.close()

    def _frame(self, topics: tuple[str, ...] | None) -> bytearray:
        frame = self._frames.get(topics)
        if frame is None:
            body = metadata_request.MetadataRequest(
                topics=None if topics is None else
                [metadata_request.MetadataRequestTopic(name=t) for t in topics],
                allow_auto_topic_creation=False)
            client_id = b"bench-cluster"
            # request header v2: api key, version, correlation id, client id, no tagged fields
            header = struct.pack(">hhih", 3, METADATA_VERSION, 0, len(client_id)) + client_id
            payload = header + b"\x00" + metadata_request.encode(body, METADATA_VERSION)
            frame = self._frames[topics] = bytearray(struct.pack(">i", len(payload)) + payload)
        return frame

    def request(self, topics: Iterable[str] | None) -> tuple[float, Any]:
        """Seconds the request took, and the decoded response. ``topics`` None: all topics."""
        frame = self._frame(None if topics is None else tuple(topics))
        self.correlation_id += 1
        struct.pack_into(">i", frame, 8, self.correlation_id)
        start = time.perf_counter()
        self.sock.sendall(frame)
        data = self._receive()
        elapsed = time.perf_counter() - start
        r = Reader(data)
        if r.int32() != self.correlation_id:
            raise BenchError(f"broker {self.broker_id} answered another correlation id")
        r.tagged_fields()  # response header v1
        return elapsed, metadata_response.read(r, METADATA_VERSION)

    def _receive(self) -> bytes:
        size = struct.unpack(">i", self._exact(4))[0]
        return self._exact(size)

    def _exact(self, n: int) -> bytes:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:])
            if not k:
                raise ConnectionError(f"broker {self.broker_id} closed the connection")
            got += k
        return bytes(buf)


def poll_each(conns: Mapping[int, MetadataConnection], start: float, timeout: float,
              interval: float, what: str, request: Iterable[str] | None,
              done: Callable[[Any], bool], on_timeout: Callable[[], str]) -> dict[int, float]:
    """Ask every broker in turn until ``done(response)``: one broker at a time, so the polling
    adds one request every ``interval`` to the cluster, not one per broker. Returns the seconds
    since ``start`` at which each broker was seen done."""
    seen: dict[int, float] = {}
    topics = None if request is None else list(request)
    for broker_id, conn in conns.items():
        while True:
            try:
                _, resp = conn.request(topics)
            except OSError as e:
                raise BenchError(f"broker {broker_id} failed a Metadata request while waiting "
                                 f"for {what}: {e}") from e
            now = time.perf_counter()
            if done(resp):
                seen[broker_id] = round(now - start, 3)
                break
            if now - start > timeout:
                raise BenchError(f"timed out after {timeout:.0f}s waiting for {what} on broker "
                                 f"{broker_id}: {on_timeout()}")
            time.sleep(interval)
    return seen


# -- the clusters ---------------------------------------------------------------------------


class Cluster:
    """Three brokers of one kind on a ZooKeeper; every process is stopped by its pid."""

    name = ""

    def __init__(self, work_dir: Path, zookeeper_connect: str, session_timeout_ms: int) -> None:
        self.work_dir = work_dir
        self.zookeeper_connect = zookeeper_connect
        self.overrides = {"zookeeper.session.timeout.ms": session_timeout_ms}

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def bootstraps(self) -> dict[int, str]:
        raise NotImplementedError

    def pid(self, broker_id: int) -> int | None:
        raise NotImplementedError

    def kill(self, broker_id: int) -> None:
        """SIGKILL to the broker's pid."""
        raise NotImplementedError

    def describe(self, lines: int) -> str:
        raise NotImplementedError

    def settings(self) -> dict[str, str]:
        """What this cluster was configured with beyond its defaults (for the JSON)."""
        return {}


class PybrokerCluster(Cluster):
    name = "pybroker"

    def __init__(self, work_dir: Path, zookeeper_connect: str, session_timeout_ms: int) -> None:
        super().__init__(work_dir, zookeeper_connect, session_timeout_ms)
        self.cluster = ClusterProcesses(work_dir, zookeeper_connect, size=CLUSTER_SIZE,
                                        overrides=self.overrides)

    def start(self) -> None:
        self.cluster.start()

    def stop(self) -> None:
        self.cluster.stop()

    def bootstraps(self) -> dict[int, str]:
        return {i: b.bootstrap for i, b in self.cluster.brokers.items()}

    def pid(self, broker_id: int) -> int | None:
        return self.cluster.broker(broker_id).pid

    def kill(self, broker_id: int) -> None:
        self.cluster.broker(broker_id).kill()

    def describe(self, lines: int) -> str:
        return self.cluster.describe(lines)

    def settings(self) -> dict[str, str]:
        return {k: str(v) for k, v in self.cluster.brokers[1].overrides.items()
                if k not in ("broker.id", "listeners", "advertised.listeners", "log.dirs")}


class KafkaCluster(Cluster):
    name = "kafka"

    def __init__(self, work_dir: Path, zookeeper_connect: str, session_timeout_ms: int) -> None:
        super().__init__(work_dir, zookeeper_connect, session_timeout_ms)
        self.cluster = ReferenceKafkaCluster(work_dir, zookeeper_connect, size=CLUSTER_SIZE,
                                             overrides=self.overrides)

    def start(self) -> None:
        self.cluster.start()

    def stop(self) -> None:
        self.cluster.stop()

    def bootstraps(self) -> dict[int, str]:
        return {i: b.bootstrap for i, b in self.cluster.brokers.items()}

    def pid(self, broker_id: int) -> int | None:
        return self.cluster.broker(broker_id).pid

    def kill(self, broker_id: int) -> None:
        self.cluster.kill(broker_id)

    def describe(self, lines: int) -> str:
        return self.cluster.describe(lines)

    def settings(self) -> dict[str, str]:
        return {k: v for k, v in self.cluster.brokers[1].properties.items()
                if k not in ("broker.id", "listeners", "advertised.listeners", "log.dirs")}


def make_cluster(name: str, work_dir: Path, zookeeper_connect: str,
                 session_timeout_ms: int) -> Cluster:
    kind = PybrokerCluster if name == "pybroker" else KafkaCluster
    return kind(work_dir, zookeeper_connect, session_timeout_ms)


# -- one run --------------------------------------------------------------------------------


@dataclass
class ClusterRun:
    """One cluster started, measured and stopped."""

    broker: str
    round: int
    figures: dict[str, float] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    work_dir: str | None = None  # kept after a failure, with the brokers' logs

    def to_json(self) -> dict[str, Any]:
        return {"broker": self.broker, "round": self.round, "figures": self.figures,
                "detail": self.detail, "error": self.error, "work_dir": self.work_dir}


def wait_formed(conns: Mapping[int, MetadataConnection], timeout: float,
                interval: float) -> int:
    """Until every broker lists all of them and they name one controller; that controller."""
    start = time.perf_counter()
    ids = set(conns)
    last: dict[int, tuple[int, list[int]]] = {}
    while True:
        for broker_id, conn in conns.items():
            _, resp = conn.request([])
            last[broker_id] = (resp.controller_id, sorted(b.node_id for b in resp.brokers))
        controllers = {c for c, _ in last.values()}
        if len(controllers) == 1 and controllers <= ids and all(
                set(members) == ids for _, members in last.values()):
            return controllers.pop()
        if time.perf_counter() - start > timeout:
            raise BenchError(f"the cluster did not form within {timeout:.0f}s "
                             f"(controller, brokers per broker: {last})")
        time.sleep(interval)


def measure_latency(conns: Mapping[int, MetadataConnection], topics: list[str] | None,
                    warmup: int, requests: int,
                    check: Callable[[Any], str | None]) -> dict[str, float]:
    """``warmup`` unmeasured Metadata requests, then ``requests`` measured ones, one at a time,
    round-robin over the brokers; median, p99, mean and maximum in milliseconds."""
    order = list(conns.values())
    samples: list[float] = []
    size = 0
    for i in range(warmup + requests):
        conn = order[i % len(order)]
        elapsed, resp = conn.request(topics)
        problem = check(resp)
        if problem:
            raise BenchError(f"Metadata from broker {conn.broker_id}: {problem}")
        if i >= warmup:
            samples.append(elapsed * 1000)
        size = sum(len(t.partitions) for t in resp.topics)
    return {"median_ms": round(statistics.median(samples), 3),
            "p99_ms": round(percentile(samples, 99), 3),
            "mean_ms": round(statistics.fmean(samples), 3),
            "max_ms": round(max(samples), 3),
            "requests": requests, "warmup_requests": warmup, "partitions_in_answer": size}


def run_cluster(name: str, rnd: int, args: argparse.Namespace) -> ClusterRun:
    """Start ZooKeeper and a cluster of ``name``, measure, stop everything (whatever happens)."""
    run = ClusterRun(name, rnd)
    banner = f"== {name}" + (f" (round {rnd + 1} of {args.rounds})" if args.rounds > 1 else "")
    print(f"\n{banner} ==", flush=True)
    work = Path(tempfile.mkdtemp(prefix=f"bench-cluster-{name}-"))
    zookeeper = ZooKeeperServer(work / "zookeeper")
    cluster = make_cluster(name, work / "brokers", zookeeper.connect_string(CHROOT),
                           args.session_timeout_ms)
    conns: dict[int, MetadataConnection] = {}
    interval = args.poll_ms / 1000
    parts = args.partitions
    try:
        settle()
        t0 = time.perf_counter()
        zookeeper.start()
        run.detail["zookeeper_start_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        cluster.start()
        conns = {i: MetadataConnection(i, b) for i, b in cluster.bootstraps().items()}
        controller = wait_formed(conns, args.timeout, interval)
        run.detail["cluster_start_s"] = round(time.perf_counter() - t0, 2)
        run.detail["settings"] = cluster.settings()
        pids = {i: cluster.pid(i) for i in conns}
        print(f"{name}: ZooKeeper {zookeeper.connect_string(CHROOT)} (pid {zookeeper.pid}), "
              f"brokers {', '.join(f'{i} pid {p}' for i, p in pids.items())}; controller "
              f"{controller}; formed in {run.detail['cluster_start_s']:.1f}s", flush=True)

        # the creation path once, unmeasured: classes loaded, the controller's connections up
        admin = AdminClient({"bootstrap.servers": ",".join(cluster.bootstraps().values())})
        admin.create_topics([NewTopic(SMALL_TOPIC, 1, REPLICATION_FACTOR)],
                            operation_timeout=60)[SMALL_TOPIC].result(args.timeout)
        poll_each(conns, time.perf_counter(), args.timeout, interval, f"{SMALL_TOPIC} led",
                  [SMALL_TOPIC], lambda resp: not_led(resp, SMALL_TOPIC, 1, conns) == 0,
                  lambda: leader_report(conns, SMALL_TOPIC, 1, conns))

        # 1. creation
        settle()
        broker_pids = [p for p in pids.values() if p is not None]
        cpu0 = cpu_seconds(broker_pids)
        zk_cpu0 = cpu_seconds([zookeeper.pid] if zookeeper.pid else [])
        answered: list[float] = []
        start = time.perf_counter()
        future = admin.create_topics([NewTopic(TOPIC, parts, REPLICATION_FACTOR)],
                                     operation_timeout=60, request_timeout=args.timeout)[TOPIC]
        future.add_done_callback(lambda _f: answered.append(time.perf_counter()))
        led_at = poll_each(
            conns, start, args.timeout, interval,
            f"{parts} partitions of {TOPIC} with a live leader", [TOPIC],
            lambda resp: not_led(resp, TOPIC, parts, conns) == 0,
            lambda: leader_report(conns, TOPIC, parts, conns))
        future.result(max(1.0, args.timeout - (time.perf_counter() - start)))
        cpu1 = cpu_seconds(broker_pids)
        zk_cpu1 = cpu_seconds([zookeeper.pid] if zookeeper.pid else [])
        while not answered:  # the callback runs on the client's thread, maybe just after
            time.sleep(0.001)
        run.figures["create_answered_s"] = round(answered[0] - start, 3)
        run.figures["create_led_s"] = max(led_at.values())
        run.detail["create_led_at_s"] = led_at
        if cpu0 is not None and cpu1 is not None:
            run.detail["create_broker_cpu_s"] = round(cpu1 - cpu0, 2)
        if zk_cpu0 is not None and zk_cpu1 is not None:
            run.detail["create_zookeeper_cpu_s"] = round(zk_cpu1 - zk_cpu0, 2)
        print(f"{name}: {parts} partitions x RF {REPLICATION_FACTOR}: CreateTopics answered in "
              f"{run.figures['create_answered_s']:.2f}s, led on every broker in "
              f"{run.figures['create_led_s']:.2f}s", flush=True)

        # 2. Metadata latency: all topics (this one and the one-partition topic), one topic
        del admin  # its connections close before any broker goes away
        settle()

        def check_all(resp: Any) -> str | None:
            missing = not_led(resp, TOPIC, parts, conns) + not_led(resp, SMALL_TOPIC, 1, conns)
            return f"{missing} partitions without a leader" if missing else None

        def check_one(resp: Any) -> str | None:
            if [t.name for t in resp.topics] != [SMALL_TOPIC]:
                return f"asked for {SMALL_TOPIC}, got {[t.name for t in resp.topics]}"
            return "no leader" if not_led(resp, SMALL_TOPIC, 1, conns) else None

        lat_all = measure_latency(conns, None, args.warmup_requests, args.requests, check_all)
        lat_one = measure_latency(conns, [SMALL_TOPIC], args.warmup_requests, args.requests,
                                  check_one)
        run.detail["metadata_all"] = lat_all
        run.detail["metadata_one"] = lat_one
        run.figures["metadata_all_median_ms"] = lat_all["median_ms"]
        run.figures["metadata_all_p99_ms"] = lat_all["p99_ms"]
        run.figures["metadata_one_median_ms"] = lat_one["median_ms"]
        run.figures["metadata_one_p99_ms"] = lat_one["p99_ms"]
        print(f"{name}: Metadata all topics ({lat_all['partitions_in_answer']} partitions) "
              f"median {lat_all['median_ms']:.2f} ms, p99 {lat_all['p99_ms']:.2f} ms; one topic "
              f"median {lat_one['median_ms']:.2f} ms, p99 {lat_one['p99_ms']:.2f} ms "
              f"({args.requests} requests each)", flush=True)
        run.detail["peak_rss_mib"] = {str(i): peak_rss_mib(p) for i, p in pids.items() if p}

        # 3. failover: SIGKILL to the controller
        controller = wait_formed(conns, args.timeout, interval)
        survivors = {i: c for i, c in conns.items() if i != controller}
        _, before = next(iter(survivors.values())).request([TOPIC])
        moved = sorted(p.partition_index for t in before.topics if t.name == TOPIC
                       for p in t.partitions if p.leader_id == controller)
        victim = pids[controller]
        print(f"{name}: SIGKILL to the controller, broker {controller} (pid {victim}), leader of "
              f"{len(moved)} partitions", flush=True)
        conns.pop(controller).close()
        start = time.perf_counter()
        cluster.kill(controller)
        run.detail["failover"] = {"killed": controller, "pid": victim,
                                  "partitions_moved": len(moved)}
        elected_at = poll_each(
            survivors, start, args.timeout, interval, "a new controller", [],
            lambda resp: new_controller(resp, controller, survivors) is not None,
            lambda: controller_report(survivors))
        _, resp = next(iter(survivors.values())).request([])
        run.detail["failover"]["new_controller"] = resp.controller_id
        led_again_at = poll_each(
            survivors, start, args.timeout, interval,
            f"every partition of {TOPIC} led by a survivor", [TOPIC],
            lambda resp: not_led(resp, TOPIC, parts, survivors) == 0,
            lambda: leader_report(survivors, TOPIC, parts, survivors))
        run.figures["failover_controller_s"] = max(elected_at.values())
        run.figures["failover_led_s"] = max(led_again_at.values())
        run.detail["failover"].update(controller_at_s=elected_at, led_at_s=led_again_at)
        print(f"{name}: new controller {resp.controller_id} named by every survivor after "
              f"{run.figures['failover_controller_s']:.2f}s; every partition led again after "
              f"{run.figures['failover_led_s']:.2f}s (session timeout "
              f"{args.session_timeout_ms / 1000:.0f}s)", flush=True)
    except Exception as e:  # noqa: BLE001 - report it and go on with the other cluster
        if (signame := interrupted()) is not None:
            raise KeyboardInterrupt(signame) from e
        run.error = f"{type(e).__name__}: {e}"
        print(f"\n!!! {name} FAILED: {run.error}", file=sys.stderr)
        print(cluster.describe(args.log_lines), file=sys.stderr)
        print(zookeeper.describe(args.log_lines // 4), file=sys.stderr)
    finally:
        for conn in conns.values():
            conn.close()
        try:
            cluster.stop()
        finally:
            zookeeper.stop()
            if run.error is not None or args.keep:
                run.work_dir = str(work)
                print(f"{name}: data and logs kept in {work}", file=sys.stderr)
            else:
                shutil.rmtree(work, ignore_errors=True)
    return run


def leader_report(conns: Mapping[int, MetadataConnection], topic: str, partitions: int,
                  live: Iterable[int]) -> str:
    """Per broker: how many partitions have no live leader, and a few of them, for an error."""
    out = []
    live_ids = set(live)
    for broker_id, conn in conns.items():
        try:
            _, resp = conn.request([topic])
        except OSError as e:
            out.append(f"broker {broker_id}: {e}")
            continue
        rows = [(p.partition_index, p.leader_id, p.error_code)
                for t in resp.topics if t.name == topic for p in t.partitions
                if p.leader_id not in live_ids]
        out.append(f"broker {broker_id}: {not_led(resp, topic, partitions, live_ids)} of "
                   f"{partitions} without a live leader, e.g. (partition, leader, error) "
                   f"{rows[:5]}")
    return "; ".join(out)


def controller_report(conns: Mapping[int, MetadataConnection]) -> str:
    out = []
    for broker_id, conn in conns.items():
        try:
            _, resp = conn.request([])
            out.append(f"broker {broker_id} names controller {resp.controller_id}")
        except OSError as e:
            out.append(f"broker {broker_id}: {e}")
    return "; ".join(out)


# -- reporting ------------------------------------------------------------------------------


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "ratio":
        return f"{value:.2f}"
    return f"{value:,.2f}" if unit == "s" else f"{value:,.3f}"


def print_table(summary: dict[str, dict[str, float | None]], names: list[str]) -> None:
    with_ratio = set(BROKERS) <= set(names)
    cols = [*names, *([RATIO] if with_ratio else [])]
    width = max(12, *(len(c) for c in cols))
    header = f"{'':<52}" + "".join(f" {c:>{width}}" for c in cols)
    print(header)
    print("-" * len(header))
    for key, label, unit, _ in FIGURES:
        values = summary[key]
        cells = [fmt(values.get(n), unit) for n in names]
        if with_ratio:
            cells.append(fmt(values.get("ratio"), "ratio"))
        print(f"{label + f' ({unit})':<52}" + "".join(f" {c:>{width}}" for c in cells))


def markdown_table(summary: dict[str, dict[str, float | None]], names: list[str]) -> str:
    with_ratio = set(BROKERS) <= set(names)
    head = ["figure", *names, *(["ratio pybroker/Kafka"] if with_ratio else [])]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for key, label, unit, _ in FIGURES:
        values = summary[key]
        cells = [f"{label} ({unit})", *(fmt(values.get(n), unit) for n in names)]
        if with_ratio:
            cells.append(fmt(values.get("ratio"), "ratio"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(summary: dict[str, dict[str, float | None]], names: list[str], path: Path,
         title: str, ratio_note: str, session_timeout_s: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"pybroker": "tab:blue", "kafka": "tab:orange"}
    groups = (("topic creation (s)", FIGURES[0:2]), ("Metadata latency (ms)", FIGURES[2:6]),
              ("controller failover (s)", FIGURES[6:8]))
    fig, axes = plt.subplots(1, 4, figsize=(18, 5.5),
                             gridspec_kw={"width_ratios": [0.8, 1.3, 0.8, 1.1]})
    for ax, (panel, figures) in zip(axes[:3], groups, strict=True):
        xs = list(range(len(figures)))
        width = 0.8 / len(names)
        for i, name in enumerate(names):
            values = [summary[key][name] for key, *_ in figures]
            shift = (i - (len(names) - 1) / 2) * width
            bars = ax.bar([x + shift for x in xs], [v or 0 for v in values], width, label=name,
                          color=colors.get(name))
            ax.bar_label(bars, labels=[fmt(v, figures[0][2]) for v in values], fontsize=7,
                         padding=2)
        ax.set_xticks(xs, [short for *_, short in figures], fontsize=8)
        ax.set_title(panel, fontsize=9)
        if figures[0][2] == "ms":  # medians and p99s of both kinds span orders of magnitude
            ax.set_yscale("log")
            ax.set_title(f"{panel}, log scale", fontsize=9)
            ax.set_ylim(top=ax.get_ylim()[1] * 2)
        else:
            ax.set_ylim(top=ax.get_ylim()[1] * 1.12)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    axes[2].axhline(session_timeout_s, color="black", linewidth=0.8, linestyle=":", zorder=3,
                    label=f"session timeout {session_timeout_s:g}s")
    axes[2].set_ylim(top=axes[2].get_ylim()[1] * 1.3)  # room for the legend
    axes[2].legend(fontsize=8, loc="upper center", ncols=2)
    ax = axes[3]
    ax.set_title(f"{RATIO}, log scale (<1: pybroker faster)", fontsize=9)
    if set(BROKERS) <= set(names):
        ratios = [summary[key].get("ratio") for key, *_ in FIGURES]
        ys = list(range(len(FIGURES)))
        # bars from parity to the ratio: left for pybroker faster, right for Kafka faster
        bars = ax.barh(ys, [(r or 1.0) - 1.0 for r in ratios], left=1.0, color="tab:green")
        ax.bar_label(bars, labels=[fmt(r, "ratio") for r in ratios], fontsize=8, padding=2)
        ax.axvline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_yticks(ys, [short.replace("\n", " ") for *_, short in FIGURES], fontsize=8)
        ax.invert_yaxis()
        shown = [r for r in ratios if r]
        if shown:  # symmetric about parity: 0.5 and 2 sit as far from 1
            reach = max(2.0, *(max(r, 1 / r) for r in shown)) * 3
            ax.set_xscale("log")
            ax.set_xlim(1 / reach, reach)
    if ratio_note:
        ax.text(0.5, 0.5, ratio_note, transform=ax.transAxes, ha="center", va="center",
                fontsize=9, wrap=True)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- the run --------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=Path("bench-results"), help="output directory")
    p.add_argument("--brokers", default=",".join(BROKERS),
                   help="comma-separated, run in this order: pybroker, kafka (default: both)")
    p.add_argument("--partitions", type=int, default=1000,
                   help="partitions of the topic created (replication factor 3)")
    p.add_argument("--rounds", type=int, default=1,
                   help="run every cluster this many times, alternating the order; figures are "
                        "medians")
    p.add_argument("--requests", type=int, default=500,
                   help="Metadata requests measured per kind (all topics, one topic)")
    p.add_argument("--warmup-requests", type=int, default=1000,
                   help="unmeasured Metadata requests per kind before the measured ones")
    p.add_argument("--session-timeout-ms", type=int, default=SESSION_TIMEOUT_MS,
                   help="zookeeper.session.timeout.ms of every broker of both clusters")
    p.add_argument("--poll-ms", type=int, default=50,
                   help="pause between two Metadata requests while waiting for a state")
    p.add_argument("--timeout", type=float, default=300.0,
                   help="seconds to wait for the cluster to form, the topic to be led, a new "
                        "controller and new leaders")
    p.add_argument("--keep", action="store_true",
                   help="keep every run's data and logs (a failed run's are always kept)")
    p.add_argument("--log-lines", type=int, default=60,
                   help="lines of each broker's log shown when a run fails")
    p.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = p.parse_args(argv)
    args.names = [n.strip() for n in args.brokers.split(",") if n.strip()]
    if (not args.names or set(args.names) - set(BROKERS)
            or len(set(args.names)) != len(args.names)):
        p.error(f"--brokers takes a comma-separated list of {', '.join(BROKERS)} "
                f"(got {args.brokers!r})")
    if args.partitions < 1 or args.rounds < 1 or args.requests < 1 or args.warmup_requests < 0:
        p.error("--partitions, --rounds and --requests must be at least 1, --warmup-requests "
                "at least 0")
    return args


def stop_everything() -> None:
    """Whatever a run left behind (each run stops its own processes): by pid."""
    ReferenceKafkaCluster.stop_all()
    BrokerProcess.stop_all()
    ZooKeeperServer.stop_all()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    catch_interrupts()
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    names: list[str] = args.names
    status: dict[str, dict[str, Any]] = {name: {"status": "pending"} for name in names}
    missing = missing_requirements()
    if missing:
        # ZooKeeper runs from the same jars, so without them neither cluster can run
        reason = "; ".join(missing)
        loud([f"bench_cluster is SKIPPED: ZooKeeper and Apache Kafka {KAFKA_VERSION} cannot "
              f"start without {reason}.",
              "Neither cluster ran. `make setup` installs a JDK (make system-deps) and the",
              "Kafka jars (make kafka-tools-deps)."])
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    load_before = load_average()
    print(f"load average before: {' '.join(map(str, load_before))} ({os.cpu_count()} CPUs); "
          f"{CLUSTER_SIZE} brokers, {args.partitions} partitions x RF {REPLICATION_FACTOR}, "
          f"zookeeper.session.timeout.ms={args.session_timeout_ms}")
    if load_before[0] > 0.5 * (os.cpu_count() or 1):
        loud([f"the machine looks busy (load average {load_before[0]} on {os.cpu_count()} "
              "CPUs):", "other work competes with the brokers; the figures will be noisy."])

    runs: list[ClusterRun] = []
    try:
        for rnd in range(args.rounds):
            for name in (names if rnd % 2 == 0 else names[::-1]):
                runs.append(run_cluster(name, rnd, args))
    except KeyboardInterrupt as e:
        print(f"\ninterrupted ({e or 'Ctrl-C'}); every process is stopped, nothing was written",
              file=sys.stderr)
        return 130
    finally:
        stop_everything()
    load_after = load_average()

    ratio_note = "" if set(BROKERS) <= set(names) else "only one cluster run: no ratio"
    for name in names:
        errors = [r.error for r in runs if r.broker == name and r.error]
        status[name] = {"status": "failed", "errors": errors} if errors else {"status": "ran"}
        if errors and not ratio_note:
            ratio_note = f"{name} failed:\n{errors[0][:200]}"
    summary = summarize(runs, names)
    machine = machine_info()
    machine["load_average_before"] = load_before
    machine["load_average_after"] = load_after
    config = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    config.update(cluster_size=CLUSTER_SIZE, replication_factor=REPLICATION_FACTOR,
                  metadata_version=METADATA_VERSION)
    result = {"timestamp": stamp, "machine": machine, "config": config, "brokers": status,
              "ratio": RATIO, "figures": summary, "runs": [r.to_json() for r in runs]}
    json_path = args.out / f"bench-cluster-{stamp}.json"
    json_path.write_text(json.dumps(result, indent=2) + "\n")
    png_path = args.out / f"bench-cluster-{stamp}.png"
    title = (f"pybroker {machine.get('pybroker_commit', '')} vs Apache Kafka {KAFKA_VERSION}: "
             f"{CLUSTER_SIZE} brokers, {args.partitions} partitions x RF {REPLICATION_FACTOR}, "
             f"session timeout {args.session_timeout_ms} ms - {machine.get('cpu_count')} CPU"
             + (f", median of {args.rounds} rounds" if args.rounds > 1 else ""))
    plot(summary, names, png_path, title, ratio_note, args.session_timeout_ms / 1000)
    print()
    print(f"{CLUSTER_SIZE} brokers on one ZooKeeper, {args.partitions} partitions x RF "
          f"{REPLICATION_FACTOR}, zookeeper.session.timeout.ms={args.session_timeout_ms}"
          + (f", median of {args.rounds} rounds" if args.rounds > 1 else "")
          + f"; {RATIO} of times: below 1, pybroker is faster")
    print_table(summary, names)
    if args.markdown:
        print()
        print(markdown_table(summary, names))
    print(f"load average before {' '.join(map(str, load_before))}, "
          f"after {' '.join(map(str, load_after))}")
    print(f"wrote {json_path} and {png_path}")
    for name, st in status.items():
        if st["status"] == "failed":
            loud([f"{name} FAILED: {st['errors'][0][:300]}"])
    return 1 if any(st["status"] == "failed" for st in status.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
