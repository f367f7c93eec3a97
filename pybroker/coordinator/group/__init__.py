"""The group coordinator for classic consumer groups (JoinGroup/SyncGroup protocol).

* :mod:`.state` - the group state machine, as a table of legal transitions.
* :mod:`.member`, :mod:`.group` - membership bookkeeping, results, the stored form.
* :mod:`.coordinator` - :class:`GroupCoordinator`, the protocol logic (Kafka's
  GroupCoordinator), clock-free; put together from :mod:`.join` (JoinGroup, rebalances),
  :mod:`.sync` (SyncGroup, assignments), :mod:`.membership` (heartbeats, session expiry,
  LeaveGroup) and :mod:`.group_apis` (offset-commit checks, Describe/List/DeleteGroups), over
  the shared state and answer delivery of :mod:`.core`.
* :mod:`.timers` - the scheduler protocol, a manual one for tests and an asyncio one.
* :mod:`.storage`, :mod:`.offsets`, :mod:`.txn_offsets` - ``__consumer_offsets`` records and
  replay, the committed-offset cache, and transactional offsets pending until their marker.
"""

from .coordinator import GroupConfig, GroupCoordinator, GroupStore, NullGroupStore
from .group import (
    ClassicGroup,
    GroupOverview,
    GroupSummary,
    JoinGroupMember,
    JoinGroupResult,
    SyncGroupResult,
)
from .group_apis import DescribeGroupResult, ListGroupsResult
from .join import JoinRequest
from .member import MemberMetadata, MemberSummary
from .membership import LeaveGroupResult, LeavingMember, MemberLeaveResult
from .state import GroupState, IllegalStateTransition
from .sync import SyncRequest
from .timers import LoopScheduler, ManualScheduler, Scheduler

__all__ = [
    "ClassicGroup",
    "DescribeGroupResult",
    "GroupConfig",
    "GroupCoordinator",
    "GroupOverview",
    "GroupState",
    "GroupStore",
    "GroupSummary",
    "IllegalStateTransition",
    "JoinGroupMember",
    "JoinRequest",
    "JoinGroupResult",
    "LeaveGroupResult",
    "LeavingMember",
    "ListGroupsResult",
    "LoopScheduler",
    "ManualScheduler",
    "MemberLeaveResult",
    "MemberMetadata",
    "MemberSummary",
    "NullGroupStore",
    "Scheduler",
    "SyncGroupResult",
    "SyncRequest",
]
