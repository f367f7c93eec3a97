"""``python -m pybroker.compat.reference WORKDIR``: the reference Apache Kafka 3.9 for
``pybroker compat --reference``, in a process of its own.

It starts Kafka with its ZooKeeper on free 127.0.0.1 ports from the jars in
``.cache/kafka-tools`` (:mod:`pybroker.testing.reference_kafka`), prints ``BOOTSTRAP
host:port`` (or ``ERROR reason``) on stdout, and stops both when its stdin closes or on
SIGTERM. Running it as a separate process keeps the test tooling out of everything that
imports :mod:`pybroker.compat` (the ``pybroker`` command included): this module is the only
one of the package that imports :mod:`pybroker.testing`, and nothing imports it.
:class:`pybroker.compat.reference_process.ReferenceProcess` is the runner's handle on it.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

#: Kafka's defaults, with what its own config/server.properties sets for a development broker
OVERRIDES = {"group.initial.rebalance.delay.ms": 0, "num.partitions": 1}


def main(argv: list[str] | None = None) -> int:
    from pybroker.testing.reference_kafka import ReferenceKafka

    args = sys.argv[1:] if argv is None else argv
    ref = ReferenceKafka(Path(args[0]), overrides=OVERRIDES)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        ref.start()
    except Exception as e:  # noqa: BLE001 - reported to the parent, which decides
        print(f"ERROR {' '.join(str(e).split())[:2000]}", flush=True)
        return 1
    try:
        print(f"BOOTSTRAP {ref.bootstrap}", flush=True)

        def wait_for_eof() -> None:
            sys.stdin.read()
            stop.set()

        threading.Thread(target=wait_for_eof, daemon=True).start()
        stop.wait()
    finally:
        ref.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
