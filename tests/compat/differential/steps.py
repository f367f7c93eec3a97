"""Unrecorded set-up the scenarios share: create topics and wait until brokers are ready.

Nothing here is compared: these requests prepare a broker (and wait out its asynchronous work,
such as Kafka's controller electing leaders) so that the recorded steps that follow see the
same state on both brokers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from protocol.errors import ErrorCode
from protocol.messages import create_topics_request as ct, find_coordinator_request as fc
from tests.compat.differential import requests as rq
from tests.compat.differential.differ import Recorder


def wait_until(what: str, done: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def wait_for_leaders(rec: Recorder, *topics: str, timeout: float = 60.0) -> None:
    """Until every partition of ``topics`` has a leader."""

    def led() -> bool:
        resp = rec.quietly(rq.METADATA, 12, rq.metadata(*topics))
        return all(t.error_code == 0 and t.partitions and all(p.leader_id >= 0 for p in t.partitions)
                   for t in resp.topics)

    wait_until(f"leaders of {', '.join(topics)} at {rec.bootstrap}", led, timeout)


def create_topics(rec: Recorder, *topics: ct.CreatableTopic) -> None:
    """Create ``topics`` (each must succeed) and wait for their leaders."""
    resp = rec.quietly(rq.CREATE_TOPICS, 7, rq.create_topics(*topics))
    assert all(t.error_code == ErrorCode.NONE for t in resp.topics), resp
    wait_for_leaders(rec, *(t.name for t in topics))


def create_topic(rec: Recorder, name: str, partitions: int = 1,
                 configs: dict[str, str | None] | None = None) -> None:
    create_topics(rec, rq.topic(name, partitions, configs=configs))


def ensure_offsets_topic(rec: Recorder, timeout: float = 60.0) -> None:
    """Until ``__consumer_offsets`` exists and has a leader (FindCoordinator creates it)."""
    wait_until(
        f"a group coordinator at {rec.bootstrap}",
        lambda: rec.quietly(rq.FIND_COORDINATOR, 1,
                            fc.FindCoordinatorRequest(key="g")).error_code == ErrorCode.NONE,
        timeout,
    )
