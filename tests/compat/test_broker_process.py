"""The command-line contract the other compatibility tests rely on: ``pybroker serve`` starts,
serves, keeps its data across restarts, exits 0 on SIGTERM/SIGINT, and reports start-up
failures on stderr with a non-zero exit code."""

from __future__ import annotations

import json
import signal
import socket
from pathlib import Path

import pytest
from confluent_kafka import Producer

from pybroker.testing.broker_process import BrokerProcess, BrokerStartError
from pybroker.testing.znodes import set_stored_znode
from tests.compat import kafka_wire as wire
from tests.compat.confluent_kafka.helpers import read_back

pytestmark = pytest.mark.compat


def produce(bootstrap: str, topic: str, values: list[bytes]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for v in values:
        p.produce(topic, value=v, partition=0)
    assert p.flush(30) == 0


def test_sigterm_shuts_down_cleanly(broker: BrokerProcess) -> None:
    assert broker.stop() == 0, broker.describe()
    assert broker.stderr_tail().strip(), "the broker logs to stderr"


def test_sigint_shuts_down_cleanly(broker: BrokerProcess) -> None:
    assert broker.proc is not None
    broker.proc.send_signal(signal.SIGINT)
    assert broker.proc.wait(20) == 0, broker.describe()


@pytest.mark.parametrize("hard", [False, True], ids=["sigterm", "sigkill"])
def test_restart_keeps_port_and_data(broker: BrokerProcess, topic: str, hard: bool) -> None:
    port = broker.port
    produce(broker.bootstrap, topic, [b"before-%d" % i for i in range(10)])
    broker.restart(hard=hard)
    assert broker.port == port
    produce(broker.bootstrap, topic, [b"after-%d" % i for i in range(10)])
    got = read_back(broker.bootstrap, topic, [0])[0]
    assert [m.value() for m in got] == [b"before-%d" % i for i in range(10)] + [
        b"after-%d" % i for i in range(10)
    ]
    assert [m.offset() for m in got] == list(range(20))


def test_a_stored_config_this_version_refuses_is_dropped_loudly(
    broker: BrokerProcess, topic: str
) -> None:
    """A topic override written by an older version (or by hand) that no longer validates must
    not keep the topic's log from loading: the broker drops it with a warning and serves."""
    produce(broker.bootstrap, topic, [b"before"])
    broker.stop()
    # the topic's config znode, as an older release or another tool may have left it
    set_stored_znode(broker.data_dir, f"/config/topics/{topic}", json.dumps(
        {"version": 1, "config": {"preallocate": "yes", "retention.ms": "3600000"}}).encode())
    broker.start()
    produce(broker.bootstrap, topic, [b"after"])
    got = read_back(broker.bootstrap, topic, [0])[0]
    assert [m.value() for m in got] == [b"before", b"after"]
    # the log since this start (the state-change lines of __consumer_offsets' creation follow
    # the warning)
    log = broker.log_path.read_text(errors="replace").rsplit("===== start #", 1)[-1]
    assert "ignoring its stored config preallocate='yes'" in log, log[-5000:]
    assert "retention.ms" not in log.split("ignoring its stored config", 1)[1].splitlines()[0]


def test_answers_api_versions_right_after_start(broker: BrokerProcess) -> None:
    with wire.connect(broker.bootstrap) as s:
        s.sendall(wire.api_versions(correlation_id=5, version=0))
        response = wire.read_response(s)
    assert response is not None and response[0] == 5
    assert wire.parse_api_versions_v0(response[1]).error_code == 0


def test_port_in_use_fails_start_with_stderr(tmp_path: Path) -> None:
    """Bound but not listening: connections are refused, so only the broker's exit (code 1 for
    an operating-system error) can end the wait, and the harness must show its stderr."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        b = BrokerProcess(tmp_path / "kafka-logs", port=taken.getsockname()[1], start_timeout=30)
        with pytest.raises(BrokerStartError) as info:
            b.start()
    assert b.proc is not None and b.proc.returncode == 1
    message = str(info.value)
    assert "exited with code 1" in message
    assert b.stderr_tail() in message


def test_a_taken_metrics_port_is_picked_again(tmp_path: Path) -> None:
    """The metrics port the harness picked is taken before the broker binds it (as an
    outgoing connection's ephemeral port can be): the broker starts on another one."""
    b = BrokerProcess(tmp_path / "kafka-logs", metrics=True, start_timeout=30)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", b.metrics_port))
        taken.listen()
        picked = b.metrics_port
        try:
            b.start()
            assert b.metrics_port != picked
            assert "Address already in use" in b.log_path.read_text()
            with socket.create_connection(("127.0.0.1", b.metrics_port), timeout=5):
                pass
        finally:
            b.stop()


def test_a_bad_property_value_fails_start_with_kafkas_message(tmp_path: Path) -> None:
    """Refused when the configuration is read, as Kafka refuses it, not later by the subsystem
    that uses it; the exit code is the one for an unusable configuration."""
    b = BrokerProcess(tmp_path / "kafka-logs", overrides={"num.partitions": "many"},
                      start_timeout=30)
    with pytest.raises(BrokerStartError) as info:
        b.start()
    assert b.proc is not None and b.proc.returncode == 2
    assert ("Invalid value many for configuration num.partitions: Not a number of type INT"
            in str(info.value))
