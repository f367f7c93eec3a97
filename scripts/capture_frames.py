#!/usr/bin/env python3
"""Record the request frames real Kafka clients send, for the protocol layer's fixture tests.

A small asyncio TCP proxy on 127.0.0.1 (pybroker/testing/frame_proxy.py) sits between a client
and the broker and writes each request frame it forwards (the payload after the 4-byte size prefix:
request header and body) to ``tests/fixtures/frames/<client>/<nnn>-<apikey>-v<version>.bin``. Only the first frame of each
(api key, version) is kept per client - plus one Produce frame per compression codec - so the
fixtures stay small; ``nnn`` numbers them in the order the client first sent them.

By default the script starts its own pybroker whose advertised listener is the proxy, so every
connection the clients open after bootstrapping also goes through the proxy, then runs short
sessions of kafka-python, confluent-kafka and kcat::

    .venv/bin/python scripts/capture_frames.py                      # all clients
    .venv/bin/python scripts/capture_frames.py --clients kcat       # just one
    .venv/bin/python scripts/capture_frames.py --silent             # no broker at all

``--silent`` answers nothing: each client gets as far as its first request (ApiVersions), which is
all that can be recorded without a working broker.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.frame_proxy import (
    API_PRODUCE,
    FrameProxy,
    produce_codec,
    request_key,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
FRAMES_DIR = REPO_ROOT / "tests" / "fixtures" / "frames"
MAX_SAVED_FRAME = 64 * 1024  # larger frames are forwarded but not kept

# -- recording ----------------------------------------------------------------------------------


class FrameRecorder:
    """Keeps the first request frame of each kind a client sends, as numbered files."""

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        self.seen: set[tuple[int, int, int | None]] = set()
        self.count = 0
        self.total_frames = 0
        self.lock = threading.Lock()
        out_dir.mkdir(parents=True, exist_ok=True)
        for old in out_dir.glob("*.bin"):
            old.unlink()

    def __call__(self, frame: bytes) -> None:
        if len(frame) < 8:
            return
        with self.lock:
            self.total_frames += 1
        if len(frame) > MAX_SAVED_FRAME:
            return
        api_key, version = request_key(frame)
        codec = produce_codec(frame) if api_key == API_PRODUCE else None
        key = (api_key, version, codec)
        with self.lock:
            if key in self.seen:
                return
            self.seen.add(key)
            path = self.out_dir / f"{self.count:03d}-{api_key}-v{version}.bin"
            self.count += 1
        path.write_bytes(frame)


# -- client sessions ----------------------------------------------------------------------------

TS = 1_700_000_000_000


def kafka_python_session(bootstrap: str, topic: str) -> None:
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import ConfigResource, ConfigResourceType

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    try:
        admin.create_topics({topic: {"num_partitions": 2, "replication_factor": 1}})
        admin.list_topics()
        admin.describe_topics([topic])
        admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
        admin.describe_cluster()
        admin.create_partitions({topic: 3})
    finally:
        admin.close()

    producer = KafkaProducer(bootstrap_servers=bootstrap, compression_type="gzip", linger_ms=5)
    try:
        for i in range(20):
            producer.send(topic, key=b"k%d" % i, value=b"v%d" % i, headers=[("h", b"x")],
                          partition=i % 3, timestamp_ms=TS + i)
        producer.flush(timeout=30)
    finally:
        producer.close(timeout=10)

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False)
    try:
        tps = [TopicPartition(topic, p) for p in range(3)]
        consumer.assign(tps)
        consumer.seek_to_beginning()
        got, deadline = 0, time.monotonic() + 20
        while got < 20 and time.monotonic() < deadline:
            got += sum(len(r) for r in consumer.poll(timeout_ms=500).values())
        consumer.offsets_for_times({tps[0]: TS})
        consumer.end_offsets(tps)
    finally:
        consumer.close()

    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)
    try:
        admin.delete_topics([topic])
    finally:
        admin.close()


def confluent_kafka_session(bootstrap: str, topic: str) -> None:
    from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(30)
    admin.list_topics(timeout=10)
    admin.create_partitions([NewPartitions(topic, 3)])[topic].result(30)

    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        producer = Producer({"bootstrap.servers": bootstrap, "compression.type": codec,
                             "enable.idempotence": codec == "none", "linger.ms": 5})
        for i in range(20):
            producer.produce(topic, key=b"k%d" % i, value=b"%s value %d " % (codec.encode(), i) * 4,
                             headers=[("h", b"x")], partition=i % 3, timestamp=TS + i)
        assert producer.flush(30) == 0, f"{codec}: undelivered messages"

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "capture",
                        "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(3)])
        got, deadline = 0, time.monotonic() + 20
        while got < 100 and time.monotonic() < deadline:
            got += len(consumer.consume(num_messages=1000, timeout=0.5))
        consumer.offsets_for_times([TopicPartition(topic, 0, TS)], timeout=10)
        consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
    finally:
        consumer.close()

    admin.delete_topics([topic], operation_timeout=10)[topic].result(30)


def kcat_session(bootstrap: str, topic: str) -> None:
    kcat = shutil.which("kcat")
    if kcat is None:
        raise RuntimeError("kcat not installed: run make setup")

    def run(*args: str, stdin: bytes = b"") -> None:
        subprocess.run([kcat, "-b", bootstrap, *args], input=stdin, check=True,
                       capture_output=True, timeout=60)

    run("-L")
    for codec in ("none", "gzip", "snappy", "lz4"):
        lines = b"".join(b"key%d:%s line %d\n" % (i, codec.encode(), i) for i in range(10))
        run("-P", "-t", topic, "-p", "0", "-K:", "-z", codec, stdin=lines)
    run("-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q")


SESSIONS: dict[str, Callable[[str, str], None]] = {
    "kafka_python": kafka_python_session,
    "confluent_kafka": confluent_kafka_session,
    "kcat": kcat_session,
}


def silent_session(client: str, bootstrap: str, topic: str, seconds: float = 8.0) -> None:
    """Run the client in a child process against a proxy that never answers, then end it."""
    cmd = [sys.executable, __file__, "--run-session", client, bootstrap, topic]
    with subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    ) as child:
        try:
            child.wait(seconds)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # the child and any kcat it started
            child.wait()


# -- main ---------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", nargs="+", choices=list(SESSIONS), default=list(SESSIONS))
    parser.add_argument("--out", type=Path, default=FRAMES_DIR)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--silent", action="store_true", help="no broker: record first requests only")
    mode.add_argument("--upstream", metavar="HOST:PORT",
                      help="an already running broker (it must advertise the proxy's address)")
    parser.add_argument("--proxy-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--run-session", nargs=3, metavar=("CLIENT", "BOOTSTRAP", "TOPIC"),
                        help=argparse.SUPPRESS)  # used by --silent: one session, no proxy
    args = parser.parse_args(argv)
    if args.run_session:
        client, bootstrap, topic = args.run_session
        SESSIONS[client](bootstrap, topic)
        return 0

    proxy_port = args.proxy_port or free_port()
    broker: BrokerProcess | None = None
    tmp = None
    upstream: tuple[str, int] | None = None
    if args.upstream:
        host, port = args.upstream.rsplit(":", 1)
        upstream = (host, int(port))
    elif not args.silent:
        tmp = tempfile.TemporaryDirectory(prefix="capture-frames-")
        advertised = f"PLAINTEXT://127.0.0.1:{proxy_port}"
        broker = BrokerProcess(
            Path(tmp.name) / "kafka-logs",
            overrides={"advertised.listeners": advertised, "num.partitions": 2},
        )
        broker.start()
        upstream = ("127.0.0.1", broker.port)

    proxy = FrameProxy(proxy_port, upstream).start()
    bootstrap = f"127.0.0.1:{proxy_port}"
    failed = []
    try:
        for client in args.clients:
            recorder = FrameRecorder(args.out / client)
            proxy.observer = recorder
            topic = f"capture-{client}-{int(time.time())}"
            print(f"{client}: recording through {bootstrap}", flush=True)
            try:
                if args.silent:
                    silent_session(client, bootstrap, topic)
                else:
                    SESSIONS[client](bootstrap, topic)
            except Exception as e:  # noqa: BLE001 - keep what was captured, report, go on
                failed.append(client)
                print(f"{client}: session failed: {e!r}", file=sys.stderr)
            time.sleep(0.2)
            proxy.observer = None
            files = sorted(recorder.out_dir.glob("*.bin"))
            size = sum(f.stat().st_size for f in files)
            print(f"{client}: {recorder.total_frames} requests seen, {len(files)} kept ({size} bytes)")
    finally:
        proxy.close()
        if broker is not None:
            broker.stop()
            if failed:
                print(broker.describe(lines=40), file=sys.stderr)
        if tmp is not None:
            tmp.cleanup()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
