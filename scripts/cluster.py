"""``make cluster`` / ``make cluster-down``: ZooKeeper and three pybroker brokers on 127.0.0.1.

``python -m scripts.cluster up`` starts a ZooKeeper server (from Kafka 3.9.1's jars in
``.cache/kafka-tools``) and brokers 1-3 in ZooKeeper mode, each with its own port, metrics port
(Prometheus, 9404-9406), log dir and log
file under ``data/cluster/``, prints one status line per process and returns, leaving them
running; their pids go to ``data/cluster/cluster.json``. ``down`` stops them by those pids
(SIGTERM: the brokers shut down cleanly, the controller last), then ZooKeeper. ``status`` prints
the status lines again. Data stays in ``data/cluster/`` across ``down`` and ``up``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

from pybroker.testing.broker_process import BrokerProcess, port_accepts
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.zookeeper import ZooKeeperServer

ROOT = Path("data/cluster").absolute()
STATE = ROOT / "cluster.json"
ZK_PORT, FIRST_BROKER_PORT, FIRST_METRICS_PORT = 2181, 9092, 9404
CHROOT = "/pybroker"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _status(state: dict) -> None:
    zk = state["zookeeper"]
    up = _alive(zk["pid"]) and port_accepts(zk["port"])
    print(f"zookeeper  pid {zk['pid']:>7}  127.0.0.1:{zk['port']}  "
          f"{'up' if up else 'DOWN'}  {ROOT / 'zookeeper'}")
    for b in state["brokers"]:
        up = _alive(b["pid"]) and port_accepts(b["port"])
        print(f"broker {b['id']}   pid {b['pid']:>7}  127.0.0.1:{b['port']}  "
              f"{'up' if up else 'DOWN'}  log {b['log']}  metrics {b.get('metrics', '-')}")
    servers = ",".join(f"127.0.0.1:{b['port']}" for b in state["brokers"])
    print(f"bootstrap.servers={servers}")


def up(args: argparse.Namespace) -> int:
    if STATE.exists():
        state = json.loads(STATE.read_text())
        if any(_alive(p["pid"]) for p in [state["zookeeper"], *state["brokers"]]):
            print("a cluster is already running (make cluster-down stops it):", file=sys.stderr)
            _status(state)
            return 1
    missing = ZooKeeperServer.missing_requirements()
    if missing:
        print(f"cannot start ZooKeeper without {'; '.join(missing)}: run make setup",
              file=sys.stderr)
        return 1
    ROOT.mkdir(parents=True, exist_ok=True)
    zk = ZooKeeperServer(ROOT / "zookeeper", port=args.zookeeper_port).start()
    cluster = ClusterProcesses(ROOT, zk.connect_string(CHROOT), size=args.brokers,
                               overrides={"zookeeper.session.timeout.ms": 18000})
    for i, broker in enumerate(cluster.brokers.values()):
        port = args.first_port + i
        listener = f"PLAINTEXT://127.0.0.1:{port}"
        broker.port = port
        broker.metrics_port = args.first_metrics_port + i
        broker.extra_overrides.update(listeners=listener, **{"advertised.listeners": listener})
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        zk.stop()
        raise
    state = {
        "zookeeper": {"pid": zk.pid, "port": zk.port},
        "brokers": [{"id": i, "pid": b.pid, "port": b.port, "log": str(b.log_path),
                     "metrics": b.metrics_url}
                    for i, b in cluster.brokers.items()],
    }
    STATE.write_text(json.dumps(state, indent=1) + "\n")
    # the processes outlive this script: forget them so nothing stops them at exit
    BrokerProcess.live.clear()
    ZooKeeperServer.live.clear()
    _status(state)
    return 0


def down(_args: argparse.Namespace) -> int:
    if not STATE.exists():
        print("no cluster state in data/cluster/cluster.json: nothing to stop")
        return 0
    state = json.loads(STATE.read_text())
    for entry in [*reversed(state["brokers"]), state["zookeeper"]]:
        pid = entry["pid"]
        if not _alive(pid):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
        print(f"stopped pid {pid}")
    STATE.unlink()
    return 0


def status(_args: argparse.Namespace) -> int:
    if not STATE.exists():
        print("no cluster running")
        return 1
    _status(json.loads(STATE.read_text()))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    u = sub.add_parser("up")
    u.add_argument("--brokers", type=int, default=3)
    u.add_argument("--zookeeper-port", type=int, default=ZK_PORT)
    u.add_argument("--first-port", type=int, default=FIRST_BROKER_PORT)
    u.add_argument("--first-metrics-port", type=int, default=FIRST_METRICS_PORT,
                   help="broker i serves its Prometheus metrics on this port + i")
    sub.add_parser("down")
    sub.add_parser("status")
    args = p.parse_args(argv)
    return {"up": up, "down": down, "status": status}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
