"""The container image: a non-root broker with its data in a volume, configured by KAFKA_*
variables, serving the host through a published port, healthy by a real ApiVersions round trip,
and stopped cleanly by its stop signal."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from pybroker.testing.broker_process import free_port
from pybroker.testing.containers import Container, run, wait_serving
from pybroker.testing.metrics import scrape

pytestmark = pytest.mark.container

#: podman schedules HEALTHCHECKs with systemd timers; the tests run them by hand
NO_HEALTH_TIMER = ["--health-interval=disable"]


def test_image_settings(engine: str, pybroker_image: str) -> None:
    config = run(engine, "image", "inspect", pybroker_image, "--format",
                 "{{json .Config}}").stdout
    assert '"User":"kafka"' in config
    assert '"/var/lib/kafka/data":{}' in config
    assert '"StopSignal":"SIGINT"' in config
    healthcheck = run(engine, "image", "inspect", pybroker_image, "--format",
                      "{{json .Config.Healthcheck}}").stdout
    assert '"Test":["CMD","pybroker","healthcheck"' in healthcheck
    assert run(engine, "run", "--rm", pybroker_image, "id", "-u").stdout.strip() == "1000"


def test_environment_configures_the_broker(engine: str, pybroker_image: str) -> None:
    shown = run(engine, "run", "--rm", "-e", "KAFKA_NUM_PARTITIONS=3",
                "-e", "KAFKA_LOG_RETENTION_HOURS=1", "-e", "KAFKA_HEAP_OPTS=-Xmx1G",
                pybroker_image, "pybroker", "env-properties").stdout
    assert shown.splitlines() == [
        "advertised.listeners=PLAINTEXT://localhost:9092",
        "listeners=PLAINTEXT://0.0.0.0:9092",
        "log.dirs=/var/lib/kafka/data",
        "log.retention.hours=1",
        "metrics.listener=http://0.0.0.0:9404",
        "num.partitions=3",
    ]


def consume(bootstrap: str, topic: str, count: int) -> list[bytes]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4().hex}",
                         "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values = []
    try:
        while len(values) < count:
            message = consumer.poll(20)
            assert message is not None, f"only {values} read"
            assert message.error() is None, message.error()
            values.append(message.value())
    finally:
        consumer.close()
    return sorted(values)


def test_serves_the_host_keeps_its_data_and_stops_cleanly(engine: str,
                                                          pybroker_image: str) -> None:
    port, metrics_port = free_port(), free_port()
    volume = f"pybroker-test-{uuid.uuid4().hex[:10]}"
    run(engine, "volume", "create", volume)

    def broker() -> Container:
        return Container(engine, pybroker_image, ports=[f"127.0.0.1:{port}:9092",
                                                          f"127.0.0.1:{metrics_port}:9404"],
                         volumes=[f"{volume}:/var/lib/kafka/data"], extra=NO_HEALTH_TIMER,
                         env={"KAFKA_ADVERTISED_LISTENERS": f"PLAINTEXT://127.0.0.1:{port}",
                              "KAFKA_NUM_PARTITIONS": "3", "KAFKA_BROKER_ID": "7"})

    bootstrap = f"127.0.0.1:{port}"
    try:
        with broker() as first:
            ready = wait_serving(bootstrap, container=first)
            print(f"\nserving {ready:.2f}s after run")
            assert first.exec("pybroker", "healthcheck").returncode == 0
            assert run(engine, "healthcheck", "run", first.name, check=False).returncode == 0

            producer = Producer({"bootstrap.servers": bootstrap})
            for i in range(6):
                producer.produce("in-a-container", value=f"v{i}".encode())
            assert producer.flush(20) == 0
            assert consume(bootstrap, "in-a-container", 6) == [f"v{i}".encode()
                                                               for i in range(6)]
            # the image serves its metrics on 9404 (KAFKA_METRICS_LISTENER)
            page = scrape(f"http://127.0.0.1:{metrics_port}/metrics")
            assert page.value("kafka_server_brokertopicmetrics_messagesin_total",
                              {"topic": "in-a-container"}) == 6
            stopped = first.stop()
            print(f"stopped in {stopped:.2f}s")
            assert first.exit_code() == 0, first.logs()
            assert "broker 7 shut down cleanly" in first.logs()
            assert stopped < 8, "the stop signal did not stop the broker"

        with broker() as second:
            wait_serving(bootstrap, container=second)
            assert consume(bootstrap, "in-a-container", 6) == [f"v{i}".encode()
                                                               for i in range(6)]
            assert "skipping recovery" in second.logs() or "recover" not in second.logs()
    finally:
        run(engine, "volume", "rm", "-f", volume, check=False)


def test_healthcheck_fails_when_nothing_serves(engine: str, pybroker_image: str) -> None:
    with Container(engine, pybroker_image, command=["sleep", "60"],
                   extra=NO_HEALTH_TIMER) as idle:
        done = run(engine, "healthcheck", "run", idle.name, check=False)
        assert done.returncode != 0
        assert "unhealthy" in done.stdout + done.stderr


def test_the_image_runs_the_console_beside_a_broker(engine: str, pybroker_image: str) -> None:
    """A broker and a console from the same image in one pod (one network namespace of
    the engine's making): the console, published on the host's loopback, shows the broker's
    topics."""
    if Path(engine).name != "podman":
        pytest.skip("SKIPPED: the pod of this test needs podman")
    port = free_port()
    pod = f"pybroker-console-{uuid.uuid4().hex[:10]}"
    run(engine, "pod", "create", "--name", pod, "-p", f"127.0.0.1:{port}:8080")
    try:
        with Container(engine, pybroker_image, extra=[*NO_HEALTH_TIMER, "--pod", pod],
                       env={"KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://127.0.0.1:9092",
                            "KAFKA_METRICS_LISTENER": "http://127.0.0.1:9404"}) as broker, \
                Container(engine, pybroker_image, extra=[*NO_HEALTH_TIMER, "--pod", pod],
                          command=["pybroker", "console", "--listen", "0.0.0.0:8080",
                                   "--cluster", "local=127.0.0.1:9092", "--metrics",
                                   "local=http://127.0.0.1:9404/metrics"]) as console:
            deadline = time.monotonic() + 60
            topics: list[dict[str, object]] | None = None
            while time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(
                            f"http://127.0.0.1:{port}/api/clusters/local/topics",
                            timeout=10) as response:
                        topics = json.loads(response.read())
                    break
                except OSError:  # the console not up yet, or the broker (502)
                    time.sleep(1)
            assert topics is not None, console.logs() + broker.logs()
            assert topics == [], topics  # a new broker has no topics yet
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/clusters/local",
                                        timeout=10) as response:
                page = response.read().decode()
            assert "<h1>local</h1>" in page and "127.0.0.1" in page
            console.stop()  # SIGINT, the image's stop signal: a clean exit
            assert console.exit_code() == 0, console.logs()
    finally:
        run(engine, "pod", "rm", "-f", pod, check=False)
