#!/usr/bin/env python3
"""Start a reference Apache Kafka 3.9 broker with its ZooKeeper, for side-by-side checks.

    .venv/bin/python scripts/reference-kafka.py [--port 19092] [--zk-port 12181] [--dir DIR]
                                                 [--override key=value ...]

Runs from the jars ``make kafka-tools-deps`` put in .cache/kafka-tools (no Kafka distribution),
on 127.0.0.1, until Ctrl-C; then stops the broker and ZooKeeper. The differential tests and
``make bench`` start the same broker through pybroker/testing/reference_kafka.py.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import threading
from pathlib import Path

from pybroker.testing.reference_kafka import (
    KAFKA_VERSION,
    ReferenceKafka,
    ReferenceKafkaError,
    fetch_jars,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=19092, help="broker port (default 19092)")
    parser.add_argument("--zk-port", type=int, default=12181, help="ZooKeeper port (default 12181)")
    parser.add_argument("--dir", type=Path, help="work directory (default: a new temporary one)")
    parser.add_argument(
        "--override", action="append", default=[], metavar="KEY=VALUE",
        help="a server.properties setting for the broker (repeatable)",
    )
    args = parser.parse_args(argv)
    overrides = dict(item.split("=", 1) for item in args.override)
    deps = fetch_jars()
    if deps.returncode != 0:
        print(deps.stdout + deps.stderr, file=sys.stderr)
        return deps.returncode
    work_dir = args.dir or Path(tempfile.mkdtemp(prefix="reference-kafka-"))
    ref = ReferenceKafka(work_dir, port=args.port, zk_port=args.zk_port, overrides=overrides)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        ref.start()
    except ReferenceKafkaError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(
        f"Apache Kafka {KAFKA_VERSION} at {ref.bootstrap} (ZooKeeper {ref.zookeeper_connect});"
        f" data and logs in {work_dir}. Ctrl-C stops both.",
        flush=True,
    )
    try:
        while not stop.wait(1.0):
            if not ref.is_running():
                print("the reference broker exited:\n" + ref.describe(), file=sys.stderr)
                return 1
    finally:
        ref.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
