"""Fault injection for the chaos tests (``tests/cluster/test_chaos.py``, ``make chaos``): a seeded
nemesis that, one fault at a time,

* ``kill``: kills a broker with SIGKILL and restarts it;
* ``freeze``: freezes one with SIGSTOP past the ZooKeeper session timeout and thaws it;
* ``cut``: cuts one off from the other brokers and heals the cut;
* ``isolate``: cuts one off from the other brokers and from ZooKeeper;
* ``split``: the same cut as ``isolate``, on the *leader* of a chosen partition (the caller
  says which partitions may be chosen and who leads them), until the other brokers name
  another leader for it and a few seconds more: clients still reach the cut one and it still
  believes it leads, while the controller elected another - a split brain, which it must
  survive without acknowledging an acks=all write it cannot keep;
* ``zk-cut``: cuts the current *controller* off from ZooKeeper only, until its session has
  expired and the other brokers name another controller, and a moment more: the old one,
  still reaching every broker, must stop acting on its stale epoch;
* ``zk-kill``: kills the ZooKeeper server with SIGKILL under load and starts it again on the
  same port and data (:meth:`~pybroker.testing.zookeeper.ZooKeeperServer.kill`): the brokers
  serve on meanwhile and their sessions resume;
* ``disk``: fills a broker's log dir (a size-limited tmpfs the run mounts,
  :class:`~pybroker.testing.disk.SmallFilesystem`) under load and frees it a few seconds later:
  the broker must take the dir offline and, it being its only one, halt as Kafka's does, never
  acknowledging what it could not write; once the space is back it is started again, recovers
  its log and catches up.

How a cut is made. The brokers listen on loopback addresses of their own (127.0.0.2, .3, .4:
Linux routes all of 127.0.0.0/8 to ``lo``), but a broker's outgoing connections leave from
127.0.0.1, the source address the kernel picks for every loopback destination, since the
broker does not bind its client sockets; an address rule cannot tell a broker's connection from
a client's. So each broker runs in a cgroup v2 directory of its own (:class:`BrokerCgroups`)
and the cut is a set of iptables rules in a chain of this process's own (:class:`Firewall`),
jumped to from ``OUTPUT``, that drop TCP packets

* sent by the cut broker's sockets (``-m cgroup --path``) to another broker's listener, and
* sent by another broker's sockets to the cut broker's listener,

plus the same two by source and destination address, which match once brokers bind their
client sockets to their own address (they do not today: those rules then count no packet).
ZooKeeper, the clients and everything outside the cluster's addresses are untouched, as in
Kafka's system tests, which cut a follower off from the other brokers; ``isolate`` and ``split``
add a rule dropping the broker's packets to ZooKeeper, and ``zk-cut`` is that rule alone.
Healing flushes the chain. The chain and the cgroups
are removed when the run ends, also on failure (:meth:`Firewall.close`,
:meth:`BrokerCgroups.remove`), and leftovers of a process that died are removed by the next run
(:func:`remove_stale`).

The nemesis only decides and injects; it never judges. What happened is recorded as
:class:`FaultEvent` s on the caller's clock for the report's timeline.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.disk import SmallFilesystem
from pybroker.testing.zookeeper import ZooKeeperServer

#: every kind of fault the nemesis knows
FAULT_KINDS = ("kill", "freeze", "cut", "isolate", "split", "zk-cut", "zk-kill", "disk")
#: the kinds that need the firewall and cgroups
NETWORK_FAULTS = frozenset({"cut", "isolate", "split", "zk-cut"})
#: the kinds that need the ZooKeeper server's process
ZOOKEEPER_FAULTS = frozenset({"zk-kill"})
#: the kinds that need each broker's log dir on a file system of its own (root, to mount it)
DISK_FAULTS = frozenset({"disk"})
#: prefix of the iptables chains and cgroup directories a run makes (plus its pid)
PREFIX = "PYBROKER-CHAOS-"
CGROUP_PREFIX = "pybroker-chaos-"


class NemesisError(RuntimeError):
    """A fault could not be injected or undone."""


# -- cgroups ----------------------------------------------------------------------------------


def cgroup2_root() -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (``/sys/fs/cgroup`` on a pure v2 system,
    ``/sys/fs/cgroup/unified`` on a hybrid one), or None."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "cgroup2":
            return Path(fields[1])
    return None


class BrokerCgroups:
    """One cgroup v2 directory per broker, under ``<root>/pybroker-chaos-<pid>``, so that
    firewall rules can match a broker's sockets whatever address they leave from."""

    def __init__(self, broker_ids: Sequence[int], root: Path | None = None) -> None:
        found = root or cgroup2_root()
        if found is None:
            raise NemesisError("no cgroup v2 hierarchy is mounted")
        self.root = found
        self.base = self.root / f"{CGROUP_PREFIX}{os.getpid()}"
        self.dirs: dict[int, Path] = {}
        self.base.mkdir(exist_ok=True)
        for broker_id in broker_ids:
            path = self.base / f"broker-{broker_id}"
            path.mkdir(exist_ok=True)
            self.dirs[broker_id] = path

    def path(self, broker_id: int) -> Path:
        return self.dirs[broker_id]

    def match_path(self, broker_id: int) -> str:
        """The cgroup's path as iptables' ``--path`` wants it: relative to the v2 root."""
        return str(self.dirs[broker_id].relative_to(self.root))

    def pids(self, broker_id: int) -> list[int]:
        text = (self.dirs[broker_id] / "cgroup.procs").read_text()
        return [int(p) for p in text.split()]

    def remove(self) -> None:
        """Remove the directories (each must be empty: stop the brokers first)."""
        for path in self.dirs.values():
            if path.exists():
                path.rmdir()
        if self.base.exists():
            self.base.rmdir()


# -- the firewall -----------------------------------------------------------------------------


def iptables() -> str | None:
    """The iptables command, if it is installed."""
    return shutil.which("iptables") or next(
        (p for p in ("/usr/sbin/iptables", "/sbin/iptables") if Path(p).exists()), None)


def network_faults_missing() -> list[str]:
    """What stops network cuts here (empty when nothing does)."""
    missing = []
    if iptables() is None:
        missing.append("iptables (Debian package iptables; scripts/install-system-deps.sh)")
    elif os.geteuid() != 0:
        missing.append("root, to add iptables rules")
    if cgroup2_root() is None:
        missing.append("a cgroup v2 hierarchy")
    return missing


@dataclass(frozen=True)
class RuleCount:
    """One rule of the chain and the packets it dropped."""

    packets: int
    rule: str


class Firewall:
    """An iptables chain of this process (``PYBROKER-CHAOS-<pid>``), jumped to from ``OUTPUT``.
    Rules are added with :meth:`drop` and all removed by :meth:`flush`; :meth:`close` removes the
    jump and the chain."""

    def __init__(self) -> None:
        command = iptables()
        if command is None:
            raise NemesisError("iptables is not installed")
        self.command = command
        self.chain = f"{PREFIX}{os.getpid()}"
        self.rules: list[list[str]] = []
        remove_stale(self.command)
        self._run("-N", self.chain)
        try:
            self._run("-I", "OUTPUT", "-j", self.chain)
        except BaseException:
            self._run("-X", self.chain)
            raise
        self.open = True

    def _run(self, *args: str) -> str:
        done = subprocess.run([self.command, "-w", "5", *args], capture_output=True, text=True,
                              timeout=30)
        if done.returncode != 0:
            raise NemesisError(f"iptables {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def drop(self, *match: str) -> None:
        """Append ``-A <chain> <match> -j DROP``."""
        rule = [*match, "-j", "DROP"]
        self._run("-A", self.chain, *rule)
        self.rules.append(rule)

    def flush(self) -> None:
        self._run("-F", self.chain)
        self.rules.clear()

    def counts(self) -> list[RuleCount]:
        """Each rule of the chain with the packets it has dropped."""
        out = []
        for line in self._run("-L", self.chain, "-v", "-x", "-n").splitlines()[2:]:
            fields = line.split(None, 2)
            if len(fields) == 3 and fields[0].isdigit():
                out.append(RuleCount(int(fields[0]), fields[2].strip()))
        return out

    def close(self) -> None:
        if not self.open:
            return
        self.open = False
        errors = []
        for args in (("-D", "OUTPUT", "-j", self.chain), ("-F", self.chain),
                     ("-X", self.chain)):
            try:
                self._run(*args)
            except NemesisError as exc:
                errors.append(str(exc))
        if errors:
            raise NemesisError("; ".join(errors))

    def __enter__(self) -> Firewall:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale(command: str | None = None) -> list[str]:
    """Remove the chains and empty cgroups left by chaos runs whose process is gone (a run
    killed with SIGKILL cannot clean up after itself); what was removed."""
    removed: list[str] = []
    command = command or iptables()
    if command is not None:
        listing = subprocess.run([command, "-w", "5", "-S"], capture_output=True, text=True,
                                 timeout=30).stdout
        for chain in sorted(set(re.findall(rf"^-N ({PREFIX}(\d+))$", listing, re.M))):
            name, pid = chain
            if _alive(int(pid)):
                continue
            for args in (["-D", "OUTPUT", "-j", name], ["-F", name], ["-X", name]):
                subprocess.run([command, "-w", "5", *args], capture_output=True, timeout=30)
            removed.append(f"iptables chain {name}")
    root = cgroup2_root()
    if root is not None:
        for base in root.glob(f"{CGROUP_PREFIX}*"):
            pid = base.name[len(CGROUP_PREFIX):]
            if not pid.isdigit() or _alive(int(pid)):
                continue
            try:
                for child in base.iterdir():
                    if child.is_dir():
                        child.rmdir()
                base.rmdir()
                removed.append(f"cgroup {base}")
            except OSError:
                pass  # processes still inside: not ours to stop
    return removed


# -- network cuts -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    host: str
    port: int


class NetworkCut:
    """Cuts brokers of ``cluster`` (each in ``cgroups``) off from each other through
    ``firewall``; ``zookeeper`` is the server's address, for :meth:`cut` with
    ``from_zookeeper``."""

    def __init__(self, cluster: ClusterProcesses, cgroups: BrokerCgroups, firewall: Firewall,
                 zookeeper: Endpoint) -> None:
        self.cluster = cluster
        self.cgroups = cgroups
        self.firewall = firewall
        self.zookeeper = zookeeper
        self.cut_off: int | None = None

    def endpoint(self, broker_id: int) -> Endpoint:
        broker = self.cluster.broker(broker_id)
        return Endpoint(broker.host, broker.port)

    def cut(self, broker_id: int, *, from_zookeeper: bool = False,
            from_brokers: bool = True) -> None:
        """Drop every TCP packet between ``broker_id`` and the other brokers (unless not
        ``from_brokers``), and its packets to ZooKeeper with ``from_zookeeper``; one cut at a
        time."""
        if self.cut_off is not None:
            raise NemesisError(f"broker {self.cut_off} is already cut off")
        if not (from_zookeeper or from_brokers):
            raise ValueError("a cut from nothing")
        me = self.endpoint(broker_id)
        mine = self.cgroups.match_path(broker_id)
        for other in self.cluster.brokers:
            if other == broker_id or not from_brokers:
                continue
            them = self.endpoint(other)
            theirs = self.cgroups.match_path(other)
            self.firewall.drop("-p", "tcp", "-m", "cgroup", "--path", mine,
                               "-d", them.host, "--dport", str(them.port))
            self.firewall.drop("-p", "tcp", "-m", "cgroup", "--path", theirs,
                               "-d", me.host, "--dport", str(me.port))
            self.firewall.drop("-p", "tcp", "-s", me.host, "-d", them.host,
                               "--dport", str(them.port))
            self.firewall.drop("-p", "tcp", "-s", them.host, "-d", me.host,
                               "--dport", str(me.port))
        if from_zookeeper:
            self.firewall.drop("-p", "tcp", "-m", "cgroup", "--path", mine,
                               "-d", self.zookeeper.host, "--dport", str(self.zookeeper.port))
        self.cut_off = broker_id

    def heal(self) -> None:
        self.firewall.flush()
        self.cut_off = None

    def probe(self, from_broker: int, to: Endpoint, timeout: float = 2.0) -> bool:
        """Whether a process in ``from_broker``'s cgroup can open a TCP connection to ``to``
        now: the direct check that a cut holds (and that healing undoes it)."""
        code = ("import socket, sys\n"
                "try:\n"
                f"    socket.create_connection(({to.host!r}, {to.port}), timeout={timeout})\n"
                "except OSError:\n"
                "    sys.exit(1)\n")
        procs = self.cgroups.path(from_broker) / "cgroup.procs"
        done = subprocess.run(
            ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(procs),
             sys.executable, "-c", code],
            capture_output=True, timeout=timeout + 30)
        return done.returncode == 0

    @staticmethod
    def probe_from_here(to: Endpoint, timeout: float = 2.0) -> bool:
        """Whether this process (in no broker's cgroup, as a client) can connect to ``to``."""
        try:
            socket.create_connection((to.host, to.port), timeout=timeout).close()
        except OSError:
            return False
        return True

    def dropped_packets(self) -> int:
        """Packets the cut's rules have dropped so far."""
        return sum(c.packets for c in self.firewall.counts())

    def cgroup_rule_drops(self) -> int:
        """Packets dropped by the rules that match a broker's sockets by cgroup: the brokers'
        own traffic, which shows the cut holds for them and not only for probes."""
        return sum(c.packets for c in self.firewall.counts() if " cgroup " in c.rule)


# -- the nemesis ------------------------------------------------------------------------------


@dataclass
class FaultEvent:
    """One fault: ``kind`` on ``broker`` (None: on ZooKeeper) from ``started`` to ``ended``
    (seconds on the run's clock; ``ended`` None while it lasts), and what the broker was at the
    time; ``target`` names the partition a ``split`` chose (``topic-partition``), whose leader
    ``broker`` was."""

    kind: str
    broker: int | None
    started: float
    ended: float | None = None
    was_controller: bool | None = None
    note: str = ""
    target: str = ""

    @property
    def victim(self) -> str:
        """What the fault struck, for a report: ``broker 2``, ``ZooKeeper``."""
        return "ZooKeeper" if self.broker is None else f"broker {self.broker}"

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "broker": self.broker, "started": round(self.started, 3),
                "ended": None if self.ended is None else round(self.ended, 3),
                "was_controller": self.was_controller, "target": self.target,
                "note": self.note}


@dataclass
class NemesisConfig:
    """What the nemesis may do and how long each step lasts (seconds)."""

    kinds: tuple[str, ...] = ("kill", "freeze")
    seed: int = 0
    #: pause before each fault, drawn uniformly
    interval: tuple[float, float] = (2.0, 5.0)
    #: how long a killed broker stays down before it is started again, at least until its
    #: registration in ZooKeeper has expired
    downtime: tuple[float, float] = (0.5, 8.0)
    #: zookeeper.session.timeout.ms of the brokers, in seconds: freezes last longer
    session_timeout: float = 6.0
    #: how far past the session timeout a freeze lasts
    freeze_margin: tuple[float, float] = (1.0, 4.0)
    #: how long a cut lasts
    cut_time: tuple[float, float] = (4.0, 12.0)
    #: how long a split lasts once the other brokers name another leader (the cut one still
    #: takes acks=1 writes meanwhile)
    split_margin: tuple[float, float] = (2.0, 5.0)
    #: and at least this long in all, even when another leader comes at once (a preferred-leader
    #: election under way): the checker leaves out the cut leader's first two seconds
    split_min: float = 5.0
    #: how long a controller stays cut off from ZooKeeper once the other brokers name another
    #: controller (its partitions stall meanwhile: their new leaders are not yet known to
    #: clients that write to the old one)
    zk_cut_margin: tuple[float, float] = (0.5, 2.0)
    #: how long the ZooKeeper server stays dead before it is started again
    zk_down: tuple[float, float] = (2.0, 8.0)
    #: how long a broker's log dir stays full (it halts meanwhile)
    disk_full: tuple[float, float] = (4.0, 10.0)
    #: how long to wait for the cluster to form again after a fault
    recovery_timeout: float = 90.0
    #: stop by itself after this many rounds (every kind once a round); None: when stopped
    rounds: int | None = None

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(FAULT_KINDS)
        if unknown or not self.kinds:
            raise ValueError(f"fault kinds must be some of {FAULT_KINDS}, not {self.kinds}")


class Nemesis:
    """Injects one fault at a time into ``cluster`` from a thread, each chosen by a
    ``random.Random(seed)``: the kind from ``config.kinds`` shuffled anew each round (so every
    kind comes once a round) and the broker among all of them (leaders and the controller
    included) - except for ``split``, which takes the leader of a partition chosen among
    ``leaders(None)`` (partition -> its leader now; ``leaders(b)`` asks brokers other than
    ``b``), and ``zk-cut``, which takes the controller the brokers agree on. After each fault it waits until every broker is up
    and they agree on a controller again, then pauses before the next one. A fault lasts its
    whole time even when the nemesis is stopped meanwhile (a freeze is always longer than the
    session timeout).

    ``clock`` gives the run's time for the events; ``controller`` names the current controller
    (or None) for the record; ``zookeeper`` is the server ``zk-kill`` kills; ``disks`` each
    broker's log dir file system, which ``disk`` fills; ``log`` is told
    each step. :meth:`stop` ends the current fault (thaws, heals, restarts) and returns once
    nothing is left injected; with ``config.rounds`` the nemesis stops by itself after them
    (:meth:`join`).
    """

    def __init__(self, cluster: ClusterProcesses, config: NemesisConfig, *,
                 network: NetworkCut | None = None,
                 zookeeper: ZooKeeperServer | None = None,
                 disks: Mapping[int, SmallFilesystem] | None = None,
                 leaders: Callable[[int | None], Mapping[tuple[str, int], int]] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 controller: Callable[[], int | None] = lambda: None,
                 log: Callable[[str], None] = print) -> None:
        if NETWORK_FAULTS & set(config.kinds) and network is None:
            raise ValueError("network faults need a NetworkCut")
        if ZOOKEEPER_FAULTS & set(config.kinds) and zookeeper is None:
            raise ValueError("ZooKeeper faults need the ZooKeeperServer")
        if DISK_FAULTS & set(config.kinds) and disks is None:
            raise ValueError("disk faults need each broker's log dir file system (disks)")
        if "split" in config.kinds and leaders is None:
            raise ValueError("a split needs the partitions it may choose (leaders)")
        self.cluster = cluster
        self.config = config
        self.network = network
        self.zookeeper = zookeeper
        self.disks = disks
        self.leaders = leaders
        self.clock = clock
        self.controller = controller
        self.log = log
        self.rng = random.Random(config.seed)
        self.events: list[FaultEvent] = []
        self.error: BaseException | None = None
        self.faulted: int | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="nemesis", daemon=True)

    # -- driving ------------------------------------------------------------------------------

    def start(self) -> Nemesis:
        self._thread.start()
        return self

    def stop(self, timeout: float = 180.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise NemesisError(f"the nemesis did not finish its fault within {timeout:.0f}s")

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the nemesis to stop by itself (after its
        ``rounds``); whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def __enter__(self) -> Nemesis:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _sleep(self, seconds: float) -> None:
        """The pause between faults: ends early when stopping. (A fault, once begun, lasts
        its whole time.)"""
        self._stop.wait(seconds)

    def _run(self) -> None:
        kinds: list[str] = []
        rounds = 0
        try:
            while not self._stop.is_set():
                if not kinds and self.config.rounds is not None \
                        and rounds >= self.config.rounds:
                    self.log(f"nemesis: {rounds} round(s) of faults done")
                    break
                self._sleep(self.rng.uniform(*self.config.interval))
                if self._stop.is_set():
                    break
                if not kinds:
                    kinds = list(self.config.kinds)
                    self.rng.shuffle(kinds)
                    rounds += 1
                kind = kinds.pop()
                broker = self.rng.choice(sorted(self.cluster.brokers))
                target = ""
                if kind == "split":
                    target, broker = self.choose_leader()
                elif kind == "zk-cut":
                    broker = self.agreed_controller()
                self.inject(kind, broker, target=target)
                self.wait_recovered()
        except BaseException as exc:  # noqa: BLE001 - reported through self.error
            self.error = exc
            self.log(f"nemesis: failed: {exc!r}")
        finally:
            self.restore()

    def restore(self) -> None:
        """Free every log dir, start ZooKeeper and any broker that is not running (a fault
        that failed half-way)."""
        for disk in (self.disks or {}).values():
            disk.free()
        if self.zookeeper is not None and not self.zookeeper.is_running():
            try:
                self.log("nemesis: restoring ZooKeeper")
                self.zookeeper.start()
            except Exception as exc:  # noqa: BLE001 - reported through self.error
                self.error = self.error or exc
                self.log(f"nemesis: ZooKeeper could not be restored: {exc!r}")
        for broker_id, broker in self.cluster.brokers.items():
            if broker.is_running():
                continue
            try:
                self.log(f"nemesis: restoring broker {broker_id}")
                self.wait_deregistered(broker_id)
                broker.start()
            except Exception as exc:  # noqa: BLE001 - reported through self.error
                self.error = self.error or exc
                self.log(f"nemesis: broker {broker_id} could not be restored: {exc!r}")

    def wait_recovered(self) -> None:
        """Until every broker runs, is listed by every broker and all name one controller (a
        broker just started may reset a connection or two: asked again)."""
        everyone = frozenset(self.cluster.brokers)

        def formed() -> bool:
            if len(self.cluster.live()) != len(everyone):
                return False
            try:
                views = set(self.cluster.controllers_named().values())
            except OSError:
                return False
            return len(views) == 1 and next(iter(views))[1] == everyone and \
                next(iter(views))[0] in everyone

        wait_for(formed, self.config.recovery_timeout, "the cluster to form again")

    def wait_deregistered(self, broker_id: int) -> None:
        """Until no other running broker lists ``broker_id`` (its ZooKeeper session expired
        and the controller told them): a broker restarted before its old registration is gone
        cannot register (Kafka's brokers refuse to start on someone else's
        ``/brokers/ids/<id>``), which is why Kafka's hard-bounce system tests wait for this
        too."""
        def gone() -> bool:
            try:
                views = self.cluster.controllers_named()
            except OSError:
                return False
            return all(broker_id not in listed for b, (_, listed) in views.items()
                       if b != broker_id)

        wait_for(gone, self.config.session_timeout + self.config.recovery_timeout,
                 f"broker {broker_id}'s registration to expire")

    def choose_leader(self) -> tuple[str, int]:
        """A partition among ``leaders()``, chosen by the seed, as ``topic-partition``, and its
        leader now (asked again for a while when it has none at the moment)."""
        assert self.leaders is not None
        ask = self.leaders
        seen: list[Mapping[tuple[str, int], int]] = []

        def answered() -> bool:
            try:
                seen.append(ask(None))
            except OSError:
                return False
            return bool(seen[-1])

        wait_for(answered, self.config.recovery_timeout, "the partitions a split may choose")
        tp = self.rng.choice(sorted(seen[-1]))

        def led() -> bool:
            try:
                seen.append(ask(None))
            except OSError:
                return False
            return seen[-1].get(tp, -1) in self.cluster.brokers

        wait_for(led, self.config.recovery_timeout, f"{tp[0]}-{tp[1]} to have a leader")
        return f"{tp[0]}-{tp[1]}", seen[-1][tp]

    def agreed_controller(self) -> int:
        """The controller every running broker names (waited for)."""
        named: list[int] = []

        def agreed() -> bool:
            try:
                views = {c for c, _ in self.cluster.controllers_named().values()}
            except OSError:
                return False
            if len(views) == 1 and next(iter(views)) in self.cluster.brokers:
                named.append(next(iter(views)))
                return True
            return False

        wait_for(agreed, self.config.recovery_timeout, "the brokers to agree on a controller")
        return named[-1]

    def wait_taken_over(self, kind: str, broker_id: int, target: str) -> str:
        """Until the brokers other than ``broker_id`` name another leader of ``target``
        (``split``) or another controller (``zk-cut``); what they name, for the record."""
        named: list[int] = []
        topic, _, partition = target.rpartition("-")

        def taken_over() -> bool:
            try:
                if kind == "split":
                    assert self.leaders is not None
                    now = self.leaders(broker_id).get((topic, int(partition)), -1)
                else:
                    views = {c for b, (c, _) in self.cluster.controllers_named().items()
                             if b != broker_id}
                    now = next(iter(views)) if len(views) == 1 else -1
            except OSError:
                return False
            named.append(now)
            return now not in (-1, broker_id)

        what = f"another leader of {target}" if kind == "split" else "another controller"
        wait_for(taken_over, self.config.session_timeout + self.config.recovery_timeout,
                 f"{what} than broker {broker_id}", interval=0.2)
        return (f"leader {named[-1]}" if kind == "split" else f"controller {named[-1]}")

    # -- one fault ----------------------------------------------------------------------------

    def inject(self, kind: str, broker_id: int, *, target: str = "") -> FaultEvent:
        """Inject ``kind`` into ``broker_id`` (ignored for ``zk-kill``), let it last, undo it;
        the event."""
        on_broker = kind not in ZOOKEEPER_FAULTS
        event = FaultEvent(kind, broker_id if on_broker else None, self.clock(),
                           was_controller=self._is_controller(broker_id) if on_broker else None,
                           target=target)
        self.events.append(event)
        self.faulted = broker_id if on_broker else None
        broker = self.cluster.broker(broker_id)
        role = " (the controller)" if event.was_controller else ""
        try:
            if kind == "kill":
                down = self.rng.uniform(*self.config.downtime)
                self.log(f"nemesis: kill -9 broker {broker_id}{role}, down {down:.1f}s")
                broker.kill()
                killed = time.monotonic()
                self.wait_deregistered(broker_id)
                time.sleep(max(0.0, down - (time.monotonic() - killed)))
                broker.start()
            elif kind == "freeze":
                frozen = self.config.session_timeout + self.rng.uniform(
                    *self.config.freeze_margin)
                self.log(f"nemesis: SIGSTOP broker {broker_id}{role} for {frozen:.1f}s")
                broker.freeze()
                try:
                    time.sleep(frozen)
                finally:
                    broker.thaw()
            elif kind == "disk":
                self._fill_disk(event, broker_id, role)
            elif kind == "zk-kill":
                assert self.zookeeper is not None
                down = self.rng.uniform(*self.config.zk_down)
                self.log(f"nemesis: kill -9 ZooKeeper, down {down:.1f}s")
                self.zookeeper.kill()
                try:
                    time.sleep(down)
                finally:
                    self.zookeeper.start()
                event.note = f"down {down:.1f}s"
            else:
                assert self.network is not None
                taken_over = kind in ("split", "zk-cut")
                if kind == "split":
                    lasting = self.rng.uniform(*self.config.split_margin)
                    what = (f"brokers and ZooKeeper as the leader of {target} (clients still "
                            "reach it)")
                elif kind == "zk-cut":
                    lasting = self.rng.uniform(*self.config.zk_cut_margin)
                    what = "ZooKeeper only"
                else:
                    lasting = self.rng.uniform(*self.config.cut_time)
                    what = ("brokers and ZooKeeper" if kind == "isolate"
                            else "the other brokers")
                successor = "leader" if kind == "split" else "controller"
                until = (f"until the others elect another {successor}, then {lasting:.1f}s"
                         if taken_over else f"for {lasting:.1f}s")
                self.log(f"nemesis: cut broker {broker_id}{role} off from {what} {until}")
                self.network.cut(broker_id, from_zookeeper=kind != "cut",
                                 from_brokers=kind != "zk-cut")
                try:
                    if taken_over:
                        who = self.wait_taken_over(kind, broker_id, target)
                        event.note = f"{who} after {self.clock() - event.started:.1f}s; "
                    if kind == "split":
                        lasting = max(lasting, event.started + self.config.split_min
                                      - self.clock())
                    time.sleep(lasting)
                    event.note += f"{self.network.dropped_packets()} packets dropped"
                finally:
                    self.network.heal()
        finally:
            event.ended = self.clock()
            self.faulted = None
        self.log(f"nemesis: {kind} of {event.victim} over after "
                 f"{event.ended - event.started:.1f}s {event.note}".rstrip())
        return event

    def _fill_disk(self, event: FaultEvent, broker_id: int, role: str) -> None:
        """Fill the broker's log dir for ``disk_full`` seconds; once it is freed, start the
        broker again if it halted (after its registration expired, as for a kill).

        The disk stays full while the fault lasts: space the broker frees meanwhile (a
        follower truncating its log, an old producer snapshot deleted) is taken again at once,
        as a disk that something else keeps filling would, so that the broker's next write
        fails rather than landing in what it freed."""
        assert self.disks is not None
        disk, broker = self.disks[broker_id], self.cluster.broker(broker_id)
        lasting = self.rng.uniform(*self.config.disk_full)
        self.log(f"nemesis: fill broker {broker_id}{role}'s log dir for {lasting:.1f}s")
        taken_again = 0
        try:
            disk.fill()
            filled = time.monotonic()  # the fault lasts from when the disk is full
            while broker.is_running() and time.monotonic() - filled < lasting:
                time.sleep(0.05)
                taken_again += disk.fill()
            halted_after = time.monotonic() - filled
            time.sleep(max(0.0, lasting - halted_after))
        finally:
            disk.free()
        if broker.is_running():
            event.note = (f"still running after {lasting:.1f}s full ({taken_again} bytes it "
                          f"freed taken again)")
            return
        code = broker.stop()  # (it exited by itself: this reaps it)
        event.note = f"halted after {halted_after:.1f}s (exit code {code})"
        self.wait_deregistered(broker_id)
        broker.start()

    def _is_controller(self, broker_id: int) -> bool | None:
        try:
            current = self.controller()
        except Exception:  # noqa: BLE001 - only for the record
            return None
        return None if current is None else current == broker_id


@dataclass
class NetworkSetup:
    """The cgroups and the firewall of a run with network faults, made before its brokers
    start and removed after they stop."""

    cgroups: BrokerCgroups
    firewall: Firewall
    removed_stale: list[str] = field(default_factory=list)

    @classmethod
    def make(cls, broker_ids: Sequence[int]) -> NetworkSetup:
        stale = remove_stale()
        cgroups = BrokerCgroups(broker_ids)
        try:
            firewall = Firewall()
        except BaseException:
            cgroups.remove()
            raise
        return cls(cgroups, firewall, stale)

    def close(self) -> None:
        """Remove the chain, then the cgroups (the brokers must be stopped)."""
        try:
            self.firewall.close()
        finally:
            self.cgroups.remove()

