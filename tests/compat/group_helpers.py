"""Consumer-group members in their own processes, so that a test can crash one with SIGKILL.

Run as ``python -m tests.compat.group_helpers SPEC`` (SPEC is JSON, see
:meth:`GroupMember.start`), this module is one group member: it subscribes to a topic with kafka-python,
confluent-kafka or aiokafka, consumes, commits what it consumed, and writes JSON lines to stdout:

* ``{"event": "state", "assignment": [...], "generation": g, "member_id": m}`` whenever its
  assignment (or generation) changed, read from the client after ``poll`` returned;
* ``{"event": "assigned" | "revoked" | "lost", "partitions": [...]}`` from the rebalance
  callbacks, i.e. the client's deltas (whole assignments under the eager protocol, increments
  under the cooperative one);
* ``{"event": "records", "records": [[partition, offset, value], ...]}`` for each batch;
* ``{"event": "closed"}`` once ``close()`` returned after SIGTERM (a clean LeaveGroup), or
  ``{"event": "error", ...}`` before exiting non-zero.

Imported, it offers :class:`GroupMember` to drive such a process and :func:`wait_balanced` to
wait until a set of members holds disjoint assignments that cover a topic.
"""

from __future__ import annotations

import faulthandler
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]

#: broker overrides that keep group tests quick: no initial join delay, three partitions
FAST_GROUPS: dict[str, object] = {"group.initial.rebalance.delay.ms": 0, "num.partitions": 3}


# --------------------------------------------------------------------------------------------
# the member process
# --------------------------------------------------------------------------------------------


def _emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"event": event, **fields}) + "\n")
    sys.stdout.flush()


def subscribe_knowing_topic(consumer: Any, topic: str, listener: Any = None,
                            timeout: float = 30.0) -> None:
    """``consumer.subscribe([topic])`` for a kafka-python consumer, then a blocking metadata
    fetch that lists the topic.

    kafka-python's group leader compares the metadata it assigned from with its latest metadata
    of the subscribed topics and rejoins when they differ. That snapshot starts empty and is only
    taken on a metadata response that arrives after ``subscribe()``, so a leader that joins first
    assigns from nothing, then rejoins at once, and again; in those back-to-back rebalances
    kafka-python 3.0.12 can wedge (the member stops heartbeating and never completes its join).
    The fetch takes the snapshot before the first join, as a long-running consumer has it.
    """
    if listener is None:
        consumer.subscribe([topic])
    else:
        consumer.subscribe([topic], listener=listener)
    deadline = time.monotonic() + timeout
    while topic not in consumer.topics():
        if time.monotonic() > deadline:
            raise RuntimeError(f"no metadata for topic {topic}")
        time.sleep(0.1)


def _run_kafka_python(spec: dict[str, Any], stopping: threading.Event) -> None:
    from kafka import KafkaConsumer
    from kafka.consumer.subscription_state import ConsumerRebalanceListener
    from kafka.errors import KafkaError

    class Listener(ConsumerRebalanceListener):
        def on_partitions_revoked(self, revoked) -> None:
            _emit("revoked", partitions=sorted(tp.partition for tp in revoked))

        def on_partitions_assigned(self, assigned) -> None:
            _emit("assigned", partitions=sorted(tp.partition for tp in assigned))

        def on_partitions_lost(self, lost) -> None:
            _emit("lost", partitions=sorted(tp.partition for tp in lost))

    consumer = KafkaConsumer(
        bootstrap_servers=spec["bootstrap"],
        group_id=spec["group"],
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        **spec["config"],
    )
    subscribe_knowing_topic(consumer, spec["topic"], Listener())
    last: tuple | None = None
    try:
        while not stopping.is_set():
            batches = consumer.poll(timeout_ms=spec["poll_ms"])
            records = [
                [r.partition, r.offset, (r.value or b"").decode()]
                for batch in batches.values()
                for r in batch
            ]
            meta = consumer.group_metadata()
            state = (
                sorted(tp.partition for tp in consumer.assignment()),
                meta.generation_id,
                meta.member_id,
            )
            if state != last:
                last = state
                _emit("state", assignment=state[0], generation=state[1], member_id=state[2])
            if records:
                _emit("records", records=records)
                if spec["commit"]:
                    try:
                        consumer.commit()
                    except KafkaError as e:  # a rebalance raced the commit; redelivery is fine
                        _emit("commit_failed", error=repr(e))
    finally:
        consumer.close()
    _emit("closed")


def _run_confluent(spec: dict[str, Any], stopping: threading.Event) -> None:
    from confluent_kafka import Consumer, KafkaException

    conf = {
        "bootstrap.servers": spec["bootstrap"],
        "group.id": spec["group"],
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "enable.partition.eof": False,
        "fetch.wait.max.ms": 100,
        **spec["config"],
    }
    consumer = Consumer(conf)

    def report(event: str):
        def cb(_consumer, partitions) -> None:
            _emit(event, partitions=sorted(tp.partition for tp in partitions))

        return cb

    consumer.subscribe(
        [spec["topic"]],
        on_assign=report("assigned"),
        on_revoke=report("revoked"),
        on_lost=report("lost"),
    )
    last: tuple | None = None
    try:
        while not stopping.is_set():
            messages = consumer.consume(num_messages=500, timeout=spec["poll_ms"] / 1000)
            records = []
            for m in messages:
                if m.error():
                    _emit("consume_error", error=str(m.error()))
                    continue
                records.append([m.partition(), m.offset(), (m.value() or b"").decode()])
            state = (sorted(tp.partition for tp in consumer.assignment()), None, consumer.memberid())
            if state != last:
                last = state
                _emit("state", assignment=state[0], generation=None, member_id=state[2])
            if records:
                _emit("records", records=records)
                if spec["commit"]:
                    try:
                        consumer.commit(asynchronous=False)
                    except KafkaException as e:
                        _emit("commit_failed", error=str(e))
    finally:
        consumer.close()
    _emit("closed")


def _run_aiokafka(spec: dict[str, Any], stopping: threading.Event) -> None:
    import asyncio

    from aiokafka import AIOKafkaConsumer, ConsumerRebalanceListener
    from aiokafka.errors import KafkaError

    class Listener(ConsumerRebalanceListener):
        async def on_partitions_revoked(self, revoked) -> None:
            _emit("revoked", partitions=sorted(tp.partition for tp in revoked))

        async def on_partitions_assigned(self, assigned) -> None:
            _emit("assigned", partitions=sorted(tp.partition for tp in assigned))

    async def run() -> None:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=spec["bootstrap"],
            group_id=spec["group"],
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            **spec["config"],
        )
        await consumer.start()
        consumer.subscribe([spec["topic"]], listener=Listener())
        last: tuple | None = None
        try:
            while not stopping.is_set():
                batches = await consumer.getmany(timeout_ms=spec["poll_ms"])
                records = [
                    [r.partition, r.offset, (r.value or b"").decode()]
                    for batch in batches.values()
                    for r in batch
                ]
                coordinator = consumer._coordinator  # the generation has no public accessor
                state = (
                    sorted(tp.partition for tp in consumer.assignment()),
                    getattr(coordinator, "generation", None),
                    getattr(coordinator, "member_id", None),
                )
                if state != last:
                    last = state
                    _emit("state", assignment=state[0], generation=state[1],
                          member_id=state[2])
                if records:
                    _emit("records", records=records)
                    if spec["commit"]:
                        try:
                            await consumer.commit()
                        except KafkaError as e:  # a rebalance raced the commit
                            _emit("commit_failed", error=repr(e))
        finally:
            await consumer.stop()

    asyncio.run(run())
    _emit("closed")


RUNNERS = {"kafka-python": _run_kafka_python, "confluent": _run_confluent,
           "aiokafka": _run_aiokafka}


def _member_main(argv: Sequence[str]) -> int:
    spec = json.loads(argv[0])
    # The client's own account of joins and assignments goes to the member's stderr log (DEBUG
    # with GROUP_MEMBER_DEBUG=1), and SIGUSR1 dumps every thread's stack there: what a test
    # shows when a member stops making progress.
    logging.basicConfig(
        level=logging.DEBUG if os.environ.get("GROUP_MEMBER_DEBUG") else logging.INFO,
        stream=sys.stderr, format="%(asctime)s %(threadName)s %(name)s %(message)s")
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    runner = RUNNERS[spec["client"]]
    try:
        runner(spec, stopping)
    except Exception as e:  # noqa: BLE001 - reported to the test, which shows it
        _emit("error", error=repr(e), traceback=traceback.format_exc())
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# the test side
# --------------------------------------------------------------------------------------------


@dataclass
class GroupMember:
    """One member process. Its events are collected by a reader thread as they arrive."""

    name: str
    client: str  # "kafka-python", "confluent" or "aiokafka"
    bootstrap: str
    topic: str
    group: str
    log_dir: Path
    config: dict[str, Any] = field(default_factory=dict)
    commit: bool = True
    poll_ms: int = 200

    def __post_init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.proc: subprocess.Popen[str] | None = None
        self._changed = threading.Condition()
        self._reader: threading.Thread | None = None
        self.stderr_path = self.log_dir / f"member-{self.name}.stderr.log"

    # -- lifecycle ----------------------------------------------------------------------------

    def start(self) -> GroupMember:
        spec = {
            "client": self.client,
            "bootstrap": self.bootstrap,
            "topic": self.topic,
            "group": self.group,
            "config": self.config,
            "commit": self.commit,
            "poll_ms": self.poll_ms,
        }
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with open(self.stderr_path, "wb") as stderr:
            self.proc = subprocess.Popen(
                # as a module from the repository root: run as a file, this directory would come
                # first on sys.path and its confluent_kafka/ would hide the real package
                [sys.executable, "-m", "tests.compat.group_helpers", json.dumps(spec)],
                cwd=REPO_ROOT,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                start_new_session=True,
            )
        self._reader = threading.Thread(target=self._read, name=f"member-{self.name}", daemon=True)
        self._reader.start()
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                event = {"event": "noise", "line": line.rstrip()}
            event["t"] = time.time()  # wall clock, to line up with the broker's log
            with self._changed:
                self.events.append(event)
                self._changed.notify_all()
        with self._changed:
            self.events.append({"event": "eof", "t": time.time()})
            self._changed.notify_all()

    def is_running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def close(self, timeout: float = 30.0) -> int:
        """SIGTERM: the member closes its consumer (LeaveGroup) and exits. Returns the exit code."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"member {self.name} did not close within {timeout:.0f}s\n"
                                 f"{self.describe()}") from None
        self._join_reader()
        return code

    def kill(self) -> None:
        """SIGKILL, as if the member's host died: no LeaveGroup, no more heartbeats."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._join_reader()

    def stop(self) -> None:
        """Teardown: close if still running, kill if that does not work."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._join_reader()

    def _join_reader(self) -> None:
        if self._reader is not None:
            self._reader.join(10)
        if self.proc is not None and self.proc.stdout is not None and not self._reader_alive():
            self.proc.stdout.close()

    def _reader_alive(self) -> bool:
        return self._reader is not None and self._reader.is_alive()

    # -- what the member said -----------------------------------------------------------------

    def snapshot(self) -> list[dict[str, Any]]:
        with self._changed:
            return list(self.events)

    def latest_state(self) -> dict[str, Any] | None:
        for event in reversed(self.snapshot()):
            if event["event"] == "state":
                return event
        return None

    @property
    def assignment(self) -> frozenset[int]:
        state = self.latest_state()
        return frozenset(state["assignment"]) if state else frozenset()

    def records(self) -> list[tuple[int, int, str]]:
        return [
            (p, o, v) for e in self.snapshot() if e["event"] == "records" for p, o, v in e["records"]
        ]

    def failure(self) -> str | None:
        for event in self.snapshot():
            if event["event"] == "error":
                return f"member {self.name}: {event['error']}\n{event.get('traceback', '')}"
        return None

    def wait_for(self, predicate: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    self.dump_stacks()
                    raise AssertionError(
                        f"timed out waiting for {what}\n{self.describe(stderr_lines=60)}")
                self._changed.wait(min(left, 0.2))

    def dump_stacks(self) -> None:
        """Have a running member write its threads' stacks to its stderr log."""
        if self.is_running():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(0.5)

    def describe(self, events: int = 25, stderr_lines: int = 15) -> str:
        state = "running" if self.is_running() else f"exited {self.proc and self.proc.returncode}"
        lines = [f"--- member {self.name} ({self.client}, {state}), last {events} events:"]
        for e in self.snapshot()[-events:]:
            shown = {k: v for k, v in e.items() if k != "t"}
            if shown.get("event") == "records":
                shown["records"] = f"<{len(e['records'])} records>"
            stamp = time.strftime("%H:%M:%S", time.localtime(e["t"])) + f".{int(e['t'] * 1000) % 1000:03d}"
            lines.append(f"  {stamp} " + json.dumps(shown)[:400])
        try:
            tail = self.stderr_path.read_text(errors="replace").splitlines()[-stderr_lines:]
        except OSError:
            tail = []
        if tail:
            lines.append("  stderr tail:")
            lines.extend("    " + t for t in tail)
        return "\n".join(lines)


def describe_all(members: Iterable[GroupMember]) -> str:
    return "\n".join(m.describe() for m in members)


def dead_member(members: Sequence[GroupMember]) -> str | None:
    """Why one of the members can no longer take part, if one cannot."""
    for m in members:
        if (f := m.failure()) is not None:
            return f
        if not m.is_running():
            return f"member {m.name} is not running"
    return None


def balance_problem(members: Sequence[GroupMember], partitions: int) -> str | None:
    """Why the members' latest reported assignments are not (yet) one generation's complete,
    disjoint split of ``range(partitions)``; ``None`` when they are."""
    states = {m.name: m.latest_state() for m in members}
    if any(s is None for s in states.values()):
        return f"not every member reported an assignment: {sorted(k for k, s in states.items() if s)}"
    generations = {s["generation"] for s in states.values()}
    if len(generations) != 1:
        return f"members are on different generations: {generations}"
    if None not in generations and min(generations) < 1:  # type: ignore[type-var]
        return f"members have not joined: generation {generations}"
    owned: dict[int, list[str]] = {}
    for name, s in states.items():
        if len(members) <= partitions and not s["assignment"]:
            return f"member {name} has no partitions"
        for p in s["assignment"]:
            owned.setdefault(p, []).append(name)
    doubled = {p: names for p, names in owned.items() if len(names) > 1}
    if doubled:
        return f"partitions owned twice: {doubled}"
    missing = sorted(set(range(partitions)) - set(owned))
    if missing:
        return f"partitions owned by nobody: {missing}"
    extra = sorted(set(owned) - set(range(partitions)))
    if extra:
        return f"partitions that do not exist: {extra}"
    return None


def wait_balanced(
    members: Sequence[GroupMember],
    partitions: int,
    *,
    timeout: float = 45.0,
    settle: float = 1.0,
) -> dict[str, frozenset[int]]:
    """Wait until the members hold a complete, disjoint assignment and keep it for ``settle``
    seconds without reporting anything new about it (so a half-finished rebalance whose stale
    pieces happen to fit together is not mistaken for the result). Returns name -> partitions.
    """
    deadline = time.monotonic() + timeout
    held_since: float | None = None
    held: dict[str, frozenset[int]] | None = None
    problem: str | None = "not checked yet"
    while time.monotonic() < deadline:
        if (dead := dead_member(members)) is not None:
            raise AssertionError(f"{dead}\n{describe_all(members)}")
        problem = balance_problem(members, partitions)
        if problem is None:
            now = {m.name: m.assignment for m in members}
            if now != held:
                held, held_since = now, time.monotonic()
            elif held_since is not None and time.monotonic() - held_since >= settle:
                return held
        else:
            held = held_since = None
        time.sleep(0.1)
    raise AssertionError(
        f"no balanced assignment over {[m.name for m in members]} within {timeout:.0f}s: "
        f"{problem}\n{describe_all(members)}"
    )


if __name__ == "__main__":
    sys.exit(_member_main(sys.argv[1:]))
