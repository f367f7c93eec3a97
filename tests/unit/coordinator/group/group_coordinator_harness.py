"""The harness of the group coordinator's unit tests (test_group_coordinator_*.py): the
coordinator driven with a manual clock (no sockets, no event loop), a store that records what
it is asked to write, and boxes that collect the answers."""

import itertools

from protocol.errors import ErrorCode as E
from pybroker.coordinator.group import (
    GroupConfig,
    GroupCoordinator,
    GroupState,
    JoinRequest,
    ManualScheduler,
    SyncRequest,
)

S = GroupState
SESSION = 10_000
REBALANCE = 30_000
DELAY = 3_000


class RecordingStore:
    def __init__(self):
        self.stored = []
        self.deleted = []
        self.fail_with = None
        #: what the next write answers instead, once (a future: a record being replicated)
        self.next_outcome = None

    def store_group(self, group_id, value, now_ms):
        self.stored.append((group_id, value, now_ms))
        outcome, self.next_outcome = self.next_outcome, None
        return outcome if outcome is not None else (self.fail_with or E.NONE)

    def delete_group(self, group_id, now_ms, *, tombstone_group=True):
        self.deleted.append((group_id, tombstone_group))
        return E.NONE


class Box:
    """Collects what a respond callback receives."""

    def __init__(self):
        self.results = []

    def __call__(self, result):
        self.results.append(result)

    @property
    def done(self):
        return bool(self.results)

    @property
    def result(self):
        assert len(self.results) == 1, self.results
        return self.results[0]


class Harness:
    def __init__(self, **config):
        self.sched = ManualScheduler()
        self.store = RecordingStore()
        counter = itertools.count(1)
        self.coord = GroupCoordinator(
            GroupConfig(**{"initial_rebalance_delay_ms": DELAY, **config}), self.store,
            self.sched, new_member_id=lambda prefix: f"{prefix}-{next(counter)}")
        self.coord.startup()

    @property
    def now(self):
        return self.sched.now_ms

    def advance(self, ms):
        self.sched.advance(ms)

    def state(self, group_id="g"):
        group = self.coord.group(group_id)
        return None if group is None else group.state

    def join(self, member_id="", instance=None, *, group_id="g", client_id="c",
             protocols=(("range", b"r"),), protocol_type="consumer", session=SESSION,
             rebalance=REBALANCE, require_known=False, skip=False):
        box = Box()
        self.coord.handle_join_group(JoinRequest(
            group_id=group_id, member_id=member_id, group_instance_id=instance,
            client_id=client_id, client_host="/127.0.0.1", rebalance_timeout_ms=rebalance,
            session_timeout_ms=session, protocol_type=protocol_type, protocols=list(protocols),
            require_known_member_id=require_known, supports_skipping_assignment=skip),
            self.now, box)
        return box

    def sync(self, member_id, generation, assignments=None, instance=None, *, group_id="g",
             protocol_type=None, protocol_name=None):
        box = Box()
        self.coord.handle_sync_group(SyncRequest(
            group_id=group_id, generation_id=generation, member_id=member_id,
            group_instance_id=instance, assignments=assignments or {},
            protocol_type=protocol_type, protocol_name=protocol_name), self.now, box)
        return box

    def heartbeat(self, member_id, generation, instance=None, group_id="g"):
        return self.coord.handle_heartbeat(group_id, member_id, instance, generation, self.now)

    def leave(self, *members, group_id="g"):
        return self.coord.handle_leave_group(group_id, list(members), self.now)

    def commit(self, member_id, generation, instance=None, group_id="g", transactional=False):
        return self.coord.handle_commit_offsets(group_id, member_id, instance, generation,
                                                self.now, transactional=transactional)

    def stable_group(self, *client_ids, instances=None):
        """Members join together, the leader assigns ``b"<client id>"`` to each; returns
        their member ids (leader first) and the generation."""
        instances = instances or [None] * len(client_ids)
        boxes = [self.join(client_id=c, instance=i)
                 for c, i in zip(client_ids, instances, strict=True)]
        self.advance(first_rebalance(len(client_ids)))
        results = [b.result for b in boxes]
        assert all(r.error_code is E.NONE for r in results)
        ids = [r.member_id for r in results]
        gen = results[0].generation_id
        leader = results[0].leader_id
        assert leader == ids[0]
        syncs = [self.sync(m, gen, {m2: c.encode() for m2, c in zip(ids, client_ids, strict=True)}
                           if m == leader else None) for m in ids]
        assert [s.result.assignment for s in syncs] == [c.encode() for c in client_ids]
        assert self.state() is S.STABLE
        return ids, gen


def first_rebalance(members):
    """How long a new group's first rebalance takes when ``members`` join at once: a member
    arriving during the initial delay extends it once."""
    return DELAY if members == 1 else 2 * DELAY
