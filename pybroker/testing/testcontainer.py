"""``PyBrokerContainer``: the pybroker image as a testcontainers container, with the surface of
testcontainers' ``KafkaContainer``, so that a suite switches by changing one import::

    from pybroker.testing import PyBrokerContainer      # was: from testcontainers.kafka import
                                                         #      KafkaContainer
    with PyBrokerContainer() as kafka:
        producer = Producer({"bootstrap.servers": kafka.get_bootstrap_server()})

As ``KafkaContainer`` does, the container has two listeners: ``PLAINTEXT`` on ``port`` (9093),
published on a random host port and advertised as the Docker host's address and that port, for
clients of the test process; and ``BROKER`` on 9092, advertised as the container's own address,
for containers on the same network. The host port is known only once the container runs, so
the broker waits for it: the container's command waits for a file naming the advertised
listener, which :meth:`PyBrokerContainer.start` writes before waiting for the broker to answer
an ApiVersions request through the published port.

It needs ``testcontainers`` (PyPI) and a Docker API: Docker's, or podman's
(``podman system service``, with ``DOCKER_HOST`` pointing at its socket).
"""

from __future__ import annotations

import time
from typing import Any, Self

from testcontainers.core.container import DockerContainer

#: the image ``make image`` builds
DEFAULT_IMAGE = "localhost/pybroker:dev"
#: the file the container's command waits for: the advertised PLAINTEXT listener
ADVERTISED_FILE = "/tmp/pybroker-advertised-listener"
_WAIT_THEN_SERVE = (
    f'while [ ! -s {ADVERTISED_FILE} ]; do sleep 0.05; done; '
    f'exec pybroker serve --from-env --override '
    f'"advertised.listeners=$(cat {ADVERTISED_FILE}),BROKER://$(hostname -i | cut -d" " -f1):9092"'
)


class PyBrokerContainer(DockerContainer):
    """A single-node pybroker in a container; ``get_bootstrap_server()`` once started.

    ``port``: the container port of the clients' listener (published on a random host port).
    ``listener_name``: that listener's name. Further ``KAFKA_*`` settings go through
    ``with_env`` before ``start``, as with ``KafkaContainer``.
    """

    def __init__(self, image: str = DEFAULT_IMAGE, port: int = 9093,
                 listener_name: str = "PLAINTEXT", **kwargs: Any) -> None:
        super().__init__(image, **kwargs)
        self.port = port
        self.listener_name = listener_name
        self.with_exposed_ports(port)
        self.with_env("KAFKA_LISTENERS", f"{listener_name}://0.0.0.0:{port},BROKER://0.0.0.0:9092")
        self.with_env("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP",
                      f"BROKER:PLAINTEXT,{listener_name}:PLAINTEXT")
        self.with_env("KAFKA_INTER_BROKER_LISTENER_NAME", "BROKER")
        self.with_env("KAFKA_BROKER_ID", "1")
        self.with_env("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
        self.with_env("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "1")
        self.with_env("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")

    def get_bootstrap_server(self) -> str:
        """``host:port`` of the clients' listener, as seen from this process."""
        return f"{self.get_container_host_ip()}:{self.get_exposed_port(self.port)}"

    def start(self, timeout: int = 30) -> Self:
        """Start the container, tell the broker the address it is reached at, and return once
        it answers ApiVersions there (TimeoutError, with the container's logs, after
        ``timeout`` seconds)."""
        self.with_command(["sh", "-c", _WAIT_THEN_SERVE])
        super().start()
        try:
            advertised = f"{self.listener_name}://{self.get_bootstrap_server()}"
            result = self.exec(["sh", "-c", f"printf %s '{advertised}' > {ADVERTISED_FILE}.new"
                                            f" && mv {ADVERTISED_FILE}.new {ADVERTISED_FILE}"])
            if result.exit_code != 0:
                raise RuntimeError(f"cannot configure the broker's listener: {result.output!r}")
            self._wait_serving(timeout)
        except BaseException:
            self.stop()  # a container that did not come up is not left behind
            raise
        return self

    def _wait_serving(self, timeout: float) -> None:
        from pybroker.healthcheck import Unhealthy, check

        bootstrap = self.get_bootstrap_server()
        deadline = time.monotonic() + timeout
        while True:
            try:
                check(bootstrap, timeout=1.0)
                return
            except Unhealthy as e:
                self.reload()
                if self.status == "exited" or time.monotonic() > deadline:
                    out, err = self.get_logs()
                    raise TimeoutError(
                        f"pybroker at {bootstrap} did not answer within {timeout}s ({e}); "
                        f"container {self.status}:\n{(out + err).decode(errors='replace')}"
                    ) from e
            time.sleep(0.1)
