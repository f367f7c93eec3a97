"""kcat (the distribution's build, linked against an older librdkafka) against pybroker.

Old librdkafka decides which features a broker has by matching exact API version ranges, so
kcat is the client most likely to notice a too-narrow ApiVersions answer (for example, silently
disabled compression or "Broker does not support compression type").
"""

from __future__ import annotations

import json
import subprocess

import pytest

from pybroker.testing.broker_process import BrokerProcess, ProxiedBroker
from tests.compat.confluent_kafka.helpers import create_topic

pytestmark = pytest.mark.compat


def kcat(kcat_bin: str, bootstrap: str, *args: str, stdin: bytes = b"", timeout: float = 60) -> bytes:
    cmd = [kcat_bin, "-b", bootstrap, "-X", "socket.timeout.ms=20000", *args]
    proc = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} exited {proc.returncode}\nstderr:\n{proc.stderr.decode(errors='replace')}"
    )
    return proc.stdout


def lines_for(n: int) -> list[bytes]:
    return [f"line {i} " .encode() + b"x" * (i % 50) for i in range(n)]


def test_list_metadata(kcat_bin: str, module_broker: BrokerProcess, topic: str) -> None:
    create_topic(module_broker.bootstrap, topic, 2)
    out = kcat(kcat_bin, module_broker.bootstrap, "-L").decode()
    assert " 1 brokers:" in out, out
    assert f"broker 0 at 127.0.0.1:{module_broker.port}" in out, out
    assert f'topic "{topic}" with 2 partitions:' in out, out

    md = json.loads(kcat(kcat_bin, module_broker.bootstrap, "-L", "-J"))
    assert [(b["id"], b["name"]) for b in md["brokers"]] == [(0, f"127.0.0.1:{module_broker.port}")]
    (t,) = [t for t in md["topics"] if t["topic"] == topic]
    assert [(p["partition"], p["leader"]) for p in t["partitions"]] == [(0, 0), (1, 0)]


CODEC_IDS = {None: 0, "gzip": 1, "snappy": 2, "lz4": 3}


@pytest.mark.parametrize("codec", list(CODEC_IDS))
def test_produce_and_consume_lines(
    kcat_bin: str, proxied_broker: ProxiedBroker, topic: str, codec: str | None
) -> None:
    """Lines in, the same lines out; with -z the batches on the wire really are compressed."""
    lines = lines_for(500)
    # the topic exists first: librdkafka sends a batch that compression would not shrink
    # uncompressed, and a first line sent alone, while an auto-created topic gets its
    # leader, is such a batch
    create_topic(proxied_broker.bootstrap, topic, 1)
    args = ["-P", "-t", topic, "-p", "0"] + (["-z", codec] if codec else [])
    frames = proxied_broker.watch()
    kcat(kcat_bin, proxied_broker.bootstrap, *args, stdin=b"\n".join(lines) + b"\n")
    assert frames.produce_codecs() == {CODEC_IDS[codec]}, (
        f"-z {codec}: Produce batches used codecs {sorted(frames.produce_codecs())}"
    )
    out = kcat(
        kcat_bin, proxied_broker.bootstrap, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q"
    )
    assert out.split(b"\n")[:-1] == lines


def test_keyed_messages(kcat_bin: str, module_broker: BrokerProcess, topic: str) -> None:
    pairs = [(f"key{i}".encode(), f"value {i}".encode()) for i in range(200)]
    stdin = b"".join(k + b":" + v + b"\n" for k, v in pairs)
    kcat(kcat_bin, module_broker.bootstrap, "-P", "-t", topic, "-p", "0", "-K:", stdin=stdin)
    out = kcat(
        kcat_bin, module_broker.bootstrap,
        "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q",
        "-f", "%o|%k|%s\n",
    )
    assert out.decode().splitlines() == [
        f"{i}|{k.decode()}|{v.decode()}" for i, (k, v) in enumerate(pairs)
    ]
