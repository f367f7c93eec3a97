"""A ZooKeeper-mode pybroker cluster of real processes: brokers 1..N on 127.0.0.1 (or each on a
loopback address of its own), each with its own port, log dir and log file, all on one ZooKeeper
(under a chroot), for the cluster tests, ``make cluster``, ``make bench`` and ``make chaos``.

Each broker is a :class:`~pybroker.testing.broker_process.BrokerProcess` started exactly as a
user starts one (``pybroker serve`` with Kafka property overrides), so a test can stop it
cleanly, kill it with SIGKILL, freeze it with SIGSTOP and restart it on the same port and data.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from protocol.messages import ApiKey, metadata_request as mreq
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.wire_client import WireClient

T = TypeVar("T")

#: settings that make failover observable in seconds rather than tens of seconds
FAST_FAILOVER: Mapping[str, object] = {
    "zookeeper.session.timeout.ms": 6000,
    "controlled.shutdown.retry.backoff.ms": 500,
    "leader.imbalance.check.interval.seconds": 300,
    "group.initial.rebalance.delay.ms": 0,
}


class ClusterProcesses:
    """Brokers ``1..size`` of one cluster. ``zookeeper_connect`` includes the chroot.

    ``hosts``: broker id -> the loopback address it listens on and advertises (127.0.0.1 for
    any broker not named). ``cgroups``: broker id -> the cgroup v2 directory it runs in, every
    time it starts (see :class:`~pybroker.testing.broker_process.BrokerProcess`).
    """

    def __init__(self, work_dir: Path, zookeeper_connect: str, *, size: int = 3,
                 overrides: Mapping[str, object] | None = None,
                 start_timeout: float = 60.0,
                 hosts: Mapping[int, str] | None = None,
                 cgroups: Mapping[int, Path] | None = None,
                 metrics: bool = False) -> None:
        """``metrics``: each broker serves its Prometheus endpoint on a free port
        (``brokers[i].metrics_url``)."""
        self.work_dir = Path(work_dir)
        self.zookeeper_connect = zookeeper_connect
        self.size = size
        self.overrides = dict(overrides or {})
        self.brokers: dict[int, BrokerProcess] = {}
        for broker_id in range(1, size + 1):
            host = (hosts or {}).get(broker_id, "127.0.0.1")
            port = free_port(host)
            listener = f"PLAINTEXT://{host}:{port}"
            props: dict[str, object] = {
                "broker.id": broker_id,
                "listeners": listener,
                "advertised.listeners": listener,
                "zookeeper.connect": zookeeper_connect,
                "offsets.topic.replication.factor": min(3, size),
                "num.partitions": 1,
                **FAST_FAILOVER,
            }
            props.update(self.overrides)
            self.brokers[broker_id] = BrokerProcess(
                self.work_dir / f"broker-{broker_id}" / "kafka-logs", port=port,
                overrides=props, log_path=self.work_dir / f"broker-{broker_id}.log",
                start_timeout=start_timeout, host=host,
                cgroup=(cgroups or {}).get(broker_id), metrics=metrics)

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers.values())

    def start(self, broker_ids: Iterable[int] | None = None) -> ClusterProcesses:
        """Start ``broker_ids`` (default: every broker); starting them all, wait until the
        cluster is formed (:meth:`wait_formed`)."""
        for broker_id in broker_ids or self.brokers:
            self.brokers[broker_id].start()
        if broker_ids is None:
            self.wait_formed()
        return self

    def controllers_named(self) -> dict[int, tuple[int, frozenset[int]]]:
        """broker -> (the controller it names, the brokers it lists), for each live broker."""
        out = {}
        for broker_id in self.live():
            with WireClient(self.brokers[broker_id].bootstrap) as client:
                md = client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
                    topics=[], allow_auto_topic_creation=False))
            out[broker_id] = (md.controller_id, frozenset(b.node_id for b in md.brokers))
        return out

    def wait_formed(self, timeout: float = 60.0) -> int:
        """Wait until every live broker names the same controller and lists every live broker
        (a broker answers controller -1, and only itself, until the controller's first
        UpdateMetadata reaches it); the controller's id. On a timeout the error carries each
        broker's last view and the tail of every broker's log, so that a cluster that did not
        form on a loaded machine says why."""
        live = frozenset(self.live())
        seen: dict[int, tuple[int, frozenset[int]]] = {}

        def formed() -> int | None:
            named = self.controllers_named()
            seen.clear()
            seen.update(named)
            views = set(named.values())
            if len(views) == 1:
                [(controller, listed)] = views
                if controller in live and listed == live:
                    return controller
            return None

        try:
            controller = wait_for(formed, timeout,
                                  f"brokers {sorted(live)} to agree on a controller")
        except AssertionError as e:
            views = ", ".join(f"{b} names {c} and lists {sorted(ls)}"
                              for b, (c, ls) in sorted(seen.items()))
            raise AssertionError(f"{e}; last views: {views or 'none answered'}\n"
                                 f"{self.describe(lines=30)}") from None
        assert controller is not None
        return controller

    def stop(self) -> None:
        """Stop every broker (SIGTERM, by pid), the controller last so that controlled
        shutdowns find it."""
        for broker in reversed(list(self.brokers.values())):
            try:
                broker.stop()
            except Exception:  # noqa: BLE001 - stop the others all the same
                broker.kill()

    def broker(self, broker_id: int) -> BrokerProcess:
        return self.brokers[broker_id]

    def live(self) -> list[int]:
        return [i for i, b in self.brokers.items() if b.is_running()]

    def describe(self, lines: int = 40) -> str:
        return "\n".join(b.describe(lines) for b in self.brokers.values())

    def __enter__(self) -> ClusterProcesses:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def wait_for(condition: Callable[[], T], timeout: float, what: str,
             interval: float = 0.1) -> T:
    """Poll ``condition()`` until it returns something truthy; that value, or AssertionError
    naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


@contextmanager
def running_cluster(work_dir: Path, zookeeper_connect: str,
                    **kwargs: Any) -> Iterator[ClusterProcesses]:
    """A :class:`ClusterProcesses` (``kwargs`` as its constructor takes them) started and formed;
    afterwards every broker is stopped by its pid, and checked gone."""
    cluster = ClusterProcesses(work_dir, zookeeper_connect, **kwargs)
    try:
        yield cluster.start()
    finally:
        cluster.stop()
        assert not cluster.live(), f"brokers still running: {cluster.live()}"
