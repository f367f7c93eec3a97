#!/usr/bin/env python3
"""How long the in-process test broker (``kafka_bootstrap``/``kafka_broker``) takes to start and
to stop, as a test suite sees it.

Run in a fresh interpreter, it measures, in this order:

* ``import``: importing :mod:`pybroker.testing.inprocess` (the broker and its request handlers);
  the pytest plugin itself imports nothing of the broker until a fixture asks for one;
* ``first start``: the first broker of the process, to the listener accepting connections
  (the handlers' protocol modules are imported here);
* ``start`` and ``stop``: ``--repeat`` more brokers, each with a fresh data directory, as the
  function-scoped fixture starts one per test: median, 90th percentile and maximum;
* ``first request``: from starting a broker to the answer of a Metadata request that creates a
  topic, over a socket (what a test does first);
* ``cluster start``/``cluster stop``: three in-process ZooKeeper-mode brokers on a running
  ZooKeeper (the ``kafka_cluster`` fixture), when ZooKeeper can run here.

``python scripts/bench_fixture.py [--repeat 30] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-cluster", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, object] = {}

    started = time.perf_counter()
    from pybroker.testing.inprocess import InProcessBroker

    results["import_ms"] = round((time.perf_counter() - started) * 1000, 1)
    from protocol.messages import ApiKey, metadata_request as mreq

    with tempfile.TemporaryDirectory(prefix="bench-fixture-") as tmp:
        base = Path(tmp)
        broker = InProcessBroker(base / "first")
        broker.start()
        results["first_start_ms"] = round(broker.start_seconds * 1000, 1)
        broker.stop()
        results["first_stop_ms"] = round(broker.stop_seconds * 1000, 1)

        starts, stops, first_requests = [], [], []
        for i in range(args.repeat):
            broker = InProcessBroker(base / f"b{i}")
            t0 = time.perf_counter()
            broker.start()
            with broker.client() as client:
                client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                    topics=[mreq.MetadataRequestTopic(name="t")], allow_auto_topic_creation=True))
            first_requests.append(time.perf_counter() - t0)
            starts.append(broker.start_seconds)
            broker.stop()
            stops.append(broker.stop_seconds)
        results["start"] = summary(starts)
        results["stop"] = summary(stops)
        results["first_request"] = summary(first_requests)

        if not args.no_cluster:
            from pybroker.testing.inprocess_cluster import InProcessCluster, missing_requirements
            from pybroker.testing.zookeeper import ZooKeeperServer

            missing = missing_requirements()
            if missing:
                results["cluster"] = "not measured: " + "; ".join(missing)
            else:
                with ZooKeeperServer(base / "zookeeper") as zookeeper:
                    cluster_starts, cluster_stops = [], []
                    for i in range(3):
                        cluster = InProcessCluster(
                            base / f"cluster-{i}",
                            zookeeper_connect=zookeeper.connect_string(f"/{uuid.uuid4().hex}"))
                        t0 = time.perf_counter()
                        cluster.start()
                        cluster_starts.append(time.perf_counter() - t0)
                        t0 = time.perf_counter()
                        cluster.stop()
                        cluster_stops.append(time.perf_counter() - t0)
                results["cluster_start"] = summary(cluster_starts)
                results["cluster_stop"] = summary(cluster_stops)

    print(json.dumps(results, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
