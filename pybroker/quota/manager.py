"""Kafka's ``ClientQuotaManager``: one per quota type, each broker enforcing its own copy of the
quotas against the traffic it sees.

A request is charged to a bucket named by (user, client id) tags: those of the most specific
entity that has a quota of this type (Kafka's ``DefaultQuotaCallback.quotaMetricTags``), so a
``<default>`` client-id quota gives each client id a bucket of its own. Each bucket measures its
rate over Kafka's sample windows (:class:`~pybroker.quota.rate.SampledRate`); a request that
takes the rate over the quota is still served, and its response carries the throttle time
``(observed - quota) / quota * window`` - for which the connection then reads nothing more
(KIP-219). Until some quota exists no bucket is made and nothing is recorded.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from protocol.errors import ErrorCode, KafkaError
from pybroker.kernel.clock import SYSTEM_CLOCK, Clock
from pybroker.metrics.registry import MBean, MetricsRegistry
from pybroker.quota.entities import (
    CONSUMER_BYTE_RATE,
    CONTROLLER_MUTATION_RATE,
    DEFAULT,
    PRODUCER_BYTE_RATE,
    REQUEST_PERCENTAGE,
    Name,
)
from pybroker.quota.rate import SampledAvg, SampledRate

#: a bucket idle this long is dropped (Kafka's InactiveSensorExpirationTimeSeconds)
INACTIVE_BUCKET_EXPIRATION_MS = 3600 * 1000
_PRUNE_EVERY_MS = 60 * 1000

# Kafka's QuotaTypes: which levels of entity have had a quota (never unset)
_CLIENT_ID, _USER, _USER_CLIENT_ID = 1, 2, 4


class QuotaType(enum.Enum):
    """A quota type: the name of its metrics group, the config that sets it, and the name of
    the metric of its rate."""

    PRODUCE = ("Produce", PRODUCER_BYTE_RATE, "byte-rate")
    FETCH = ("Fetch", CONSUMER_BYTE_RATE, "byte-rate")
    REQUEST = ("Request", REQUEST_PERCENTAGE, "request-time")
    CONTROLLER_MUTATION = ("ControllerMutation", CONTROLLER_MUTATION_RATE, "mutation-rate")

    @property
    def group(self) -> str:
        return self.value[0]

    @property
    def config(self) -> str:
        return self.value[1]

    @property
    def rate_metric(self) -> str:
        return self.value[2]


@dataclass(slots=True)
class Bucket:
    """One (user, client id) bucket: its rate, its quota, and its throttles so far."""

    rate: SampledRate
    bound: float
    #: the manager's quota version the bound was taken at
    version: int
    last_record_ms: int = 0
    throttle_count: int = 0
    throttle_ms_total: int = 0
    throttle_ms_max: int = 0
    #: the ``throttle-time`` metric: the mean throttle of the last minute
    throttle_avg: SampledAvg = field(default_factory=SampledAvg)


def java_round(x: float) -> int:
    """``Math.round``: halves round up."""
    return math.floor(x + 0.5)


class ClientQuotaManager:
    """The quotas of one type and the buckets they are enforced in."""

    def __init__(self, quota_type: QuotaType, *, samples: int = 11, window_s: int = 1,
                 max_throttle_ms: int | None = None, clock: Clock = SYSTEM_CLOCK) -> None:
        self.quota_type = quota_type
        #: the time rates are measured in (a response's, when it is sent)
        self.clock = clock
        self.samples = samples
        self.window_ms = window_s * 1000
        #: a request quota's throttle is at most one window (ClientRequestQuotaManager)
        self.max_throttle_ms = max_throttle_ms
        #: (user, client id) entity -> quota; a part is a name, the default, or absent (None)
        self.overrides: dict[tuple[Name | None, Name | None], float] = {}
        self._levels = 0
        self._version = 0
        self.buckets: dict[tuple[str, str], Bucket] = {}
        self._pruned_ms = 0
        #: where each bucket's metrics are served (None: nowhere)
        self.metrics: MetricsRegistry | None = None

    @property
    def enabled(self) -> bool:
        """Kafka's ``quotasEnabled``: some entity has had a quota of some type."""
        return self._levels != 0

    def update(self, user: Name | None, client_id: Name | None, bound: float | None) -> None:
        """Set (or, with None, remove) the quota of an entity (Kafka's ``updateQuota``)."""
        if user is not None:
            self._levels |= _USER_CLIENT_ID if client_id is not None else _USER
        elif client_id is not None:
            self._levels |= _CLIENT_ID
        if bound is None:
            self.overrides.pop((user, client_id), None)
        else:
            self.overrides[(user, client_id)] = bound
        self._version += 1

    # -- which bucket, which quota ---------------------------------------------------------------
    def tags(self, user: str, client_id: str) -> tuple[str, str]:
        """The bucket a request of (user, client id) is charged to (``quotaMetricTags``)."""
        levels = self._levels
        if levels in (0, _CLIENT_ID):
            return ("", client_id)
        if levels == _USER:
            return (user, "")
        if levels == _USER_CLIENT_ID:
            return (user, client_id)
        o = self.overrides
        for entity, tags in (((user, client_id), (user, client_id)),
                             ((user, DEFAULT), (user, client_id)),
                             ((user, None), (user, "")),
                             ((DEFAULT, client_id), (user, client_id)),
                             ((DEFAULT, DEFAULT), (user, client_id)),
                             ((DEFAULT, None), (user, ""))):
            if entity in o:
                return tags
        return ("", client_id)

    def limit(self, tags: tuple[str, str]) -> float:
        """The quota of a bucket (``quotaLimit``); infinite when no entity sets one."""
        user, client_id = tags
        o = self.overrides
        if user and client_id:
            order: tuple[tuple[Name | None, Name | None], ...] = (
                (user, client_id), (user, DEFAULT), (DEFAULT, client_id), (DEFAULT, DEFAULT))
        elif user:
            order = ((user, None), (DEFAULT, None))
        elif client_id:
            order = ((None, client_id), (None, DEFAULT))
        else:
            return math.inf
        for entity in order:
            bound = o.get(entity)
            if bound is not None:
                return bound
        return math.inf

    def bucket(self, user: str, client_id: str, now_ms: int) -> Bucket:
        tags = self.tags(user, client_id)
        bucket = self.buckets.get(tags)
        if bucket is None:
            bucket = self.buckets[tags] = Bucket(SampledRate(self.samples, self.window_ms),
                                                 self.limit(tags), self._version)
            if self.metrics is not None:
                self.metrics.attributes(self.mbean(tags), self._reader(bucket))
        elif bucket.version != self._version:
            bucket.bound, bucket.version = self.limit(tags), self._version
        bucket.last_record_ms = now_ms
        if now_ms - self._pruned_ms > _PRUNE_EVERY_MS:
            self._prune(now_ms)
        return bucket

    def _prune(self, now_ms: int) -> None:
        self._pruned_ms = now_ms
        idle = [t for t, b in self.buckets.items()
                if now_ms - b.last_record_ms > INACTIVE_BUCKET_EXPIRATION_MS]
        for tags in idle:
            del self.buckets[tags]
            if self.metrics is not None:
                self.metrics.remove(self.mbean(tags))

    # -- metrics ------------------------------------------------------------------------------
    def mbean(self, tags: tuple[str, str]) -> MBean:
        """``kafka.server:type=<Produce|Fetch|Request|ControllerMutation>,user=..,client-id=..``
        (Kafka's metrics library leaves out a tag with an empty value)."""
        user, client_id = tags
        named = tuple((k, v) for k, v in (("user", user), ("client-id", client_id)) if v)
        return MBean("kafka.server", self.quota_type.group, "", named)

    def _reader(self, bucket: Bucket) -> Callable[[], dict[str, float]]:
        def read() -> dict[str, float]:
            now_ms = self.clock.milliseconds()
            return {self.quota_type.rate_metric: bucket.rate.measure(now_ms),
                    "throttle-time": bucket.throttle_avg.measure(now_ms)}
        return read

    # -- recording ------------------------------------------------------------------------------
    def record(self, user: str, client_id: str, value: float, now_ms: int) -> int:
        """Charge ``value`` to the request's bucket; the throttle time in ms (0: within its
        quota). Kafka's ``maybeRecordAndGetThrottleTimeMs``: nothing is recorded while no quota
        exists."""
        if not self._levels:
            return 0
        bucket = self.bucket(user, client_id, now_ms)
        bucket.rate.record(value, now_ms)
        bound = bucket.bound
        if math.isinf(bound):
            return 0
        observed = bucket.rate.measure(now_ms)
        if observed <= bound:
            return 0
        throttle = java_round((observed - bound) / bound * bucket.rate.window_ms_at(now_ms)) \
            if bound > 0 else 2**31 - 1
        if self.max_throttle_ms is not None:
            throttle = min(throttle, self.max_throttle_ms)
        return max(throttle, 0)

    def unrecord(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Take back what :meth:`record` charged (a throttled fetch sends no records)."""
        if self._levels:
            self.bucket(user, client_id, now_ms).rate.record(-value, now_ms)

    def throttled(self, user: str, client_id: str, throttle_ms: int, now_ms: int) -> None:
        """A response of this bucket carried ``throttle_ms`` (the ``throttle-time`` sensor)."""
        bucket = self.bucket(user, client_id, now_ms)
        bucket.throttle_avg.record(throttle_ms, now_ms)
        bucket.throttle_count += 1
        bucket.throttle_ms_total += throttle_ms
        bucket.throttle_ms_max = max(bucket.throttle_ms_max, throttle_ms)

    def max_value_in_window(self, user: str, client_id: str) -> float:
        """The most one request may take without being sure to be throttled: the quota over
        ``samples - 1`` windows (``getMaxValueInQuotaWindow``; a fetch's max bytes is capped
        at it)."""
        if not self._levels:
            return math.inf
        return self.limit(self.tags(user, client_id)) * (self.samples - 1) \
            * self.window_ms / 1000


@dataclass(slots=True)
class QuotaManagers:
    """Kafka's ``QuotaFactory.QuotaManagers``: the managers of one broker."""

    produce: ClientQuotaManager = field(
        default_factory=lambda: ClientQuotaManager(QuotaType.PRODUCE))
    fetch: ClientQuotaManager = field(
        default_factory=lambda: ClientQuotaManager(QuotaType.FETCH))
    request: ClientQuotaManager = field(
        default_factory=lambda: ClientQuotaManager(QuotaType.REQUEST, max_throttle_ms=1000))
    controller_mutation: ControllerMutationQuotaManager = field(
        default_factory=lambda: ControllerMutationQuotaManager())

    @classmethod
    def with_windows(cls, samples: int, window_s: int, clock: Clock = SYSTEM_CLOCK, *,
                     controller_samples: int = 11, controller_window_s: int = 1,
                     ) -> QuotaManagers:
        """``quota.window.num`` samples of ``quota.window.size.seconds`` (and
        ``controller.quota.window.*`` for controller mutations)."""
        return cls(ClientQuotaManager(QuotaType.PRODUCE, samples=samples, window_s=window_s,
                                      clock=clock),
                   ClientQuotaManager(QuotaType.FETCH, samples=samples, window_s=window_s,
                                      clock=clock),
                   ClientQuotaManager(QuotaType.REQUEST, samples=samples, window_s=window_s,
                                      max_throttle_ms=window_s * 1000, clock=clock),
                   ControllerMutationQuotaManager(samples=controller_samples,
                                                  window_s=controller_window_s, clock=clock))

    @property
    def all(self) -> tuple[ClientQuotaManager, ...]:
        return (self.produce, self.fetch, self.request, self.controller_mutation)

    def serve_metrics(self, registry: MetricsRegistry) -> None:
        """Serve each bucket's rate and throttle time as Kafka's quota MBeans."""
        for manager in self.all:
            manager.metrics = registry

    def entity_changed(self, user: Name | None, client_id: Name | None,
                       configs: Mapping[str, str]) -> None:
        """An entity's configs changed (Kafka's ``UserConfigHandler``/``ClientIdConfigHandler``):
        each manager takes its quota from them, or loses it."""
        for manager in self.all:
            raw = configs.get(manager.quota_type.config)
            bound: float | None = None
            if raw is not None:
                try:
                    bound = float(raw)
                except ValueError:
                    bound = None
            manager.update(user, client_id, bound)


# -- controller mutations (KIP-599) --------------------------------------------------------------

@dataclass(slots=True)
class TokenBucket:
    """Kafka's ``TokenBucket`` stat: credits refill at the quota's rate up to a burst of
    ``samples x window x rate``; the first use finds it full."""

    tokens: float = 0.0
    last_ms: int = 0

    def measure(self, rate: float, burst: float, now_ms: int) -> float:
        self.tokens = min(burst, self.tokens + rate * (now_ms - self.last_ms) / 1000)
        self.last_ms = now_ms
        return self.tokens

    def record(self, permits: float, rate: float, burst: float, now_ms: int) -> None:
        self.measure(rate, burst, now_ms)
        self.tokens = min(burst, self.tokens - permits)


class MutationQuota:
    """One request's view of its client's ``controller_mutation_rate`` (Kafka's
    ``StrictControllerMutationQuota`` and ``PermissiveControllerMutationQuota``).

    Strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+): a topic is refused
    with THROTTLING_QUOTA_EXCEEDED once the credits are below zero, and accepted whole
    otherwise, even when its partitions take the credits below zero. Permissive (older
    versions): everything is accepted, and the response is throttled."""

    def __init__(self, manager: ControllerMutationQuotaManager | None, bucket: Bucket | None,
                 tokens: TokenBucket | None, *, strict: bool) -> None:
        self._manager = manager
        self._bucket = bucket
        self._tokens = tokens
        self.strict = strict
        self._throttle_ms = 0
        self._recorded_ms = 0

    def record(self, permits: float) -> None:
        """Charge ``permits`` partitions; KafkaError THROTTLING_QUOTA_EXCEEDED when a strict
        quota is already exhausted."""
        manager, bucket, tokens = self._manager, self._bucket, self._tokens
        if manager is None or bucket is None or tokens is None or math.isinf(bucket.bound):
            return
        rate = bucket.bound
        burst = manager.samples * manager.window_ms / 1000 * rate
        now_ms = manager.clock.milliseconds()
        if self.strict:
            left = tokens.measure(rate, burst, now_ms)
            if left < 0:
                self._throttled(left, rate, now_ms)
                # (no message: Kafka's ApiError leaves out an error's own generic text)
                raise KafkaError(ErrorCode.THROTTLING_QUOTA_EXCEEDED, None)
            tokens.record(permits, rate, burst, now_ms)
        else:
            tokens.record(permits, rate, burst, now_ms)
            left = tokens.measure(rate, burst, now_ms)
            if left < 0:
                self._throttled(left, rate, now_ms)
        bucket.rate.record(permits, now_ms)

    def _throttled(self, tokens: float, rate: float, now_ms: int) -> None:
        self._throttle_ms = java_round(-tokens / rate * 1000) if rate > 0 else 2**31 - 1
        self._recorded_ms = now_ms

    def throttle_ms(self) -> int:
        """The throttle time, less what has passed since it was recorded (the request may
        have waited in between)."""
        if not self._throttle_ms or self._manager is None:
            return 0
        elapsed = self._manager.clock.milliseconds() - self._recorded_ms
        return max(0, self._throttle_ms - elapsed)


#: the quota of a broker without controller mutation quotas
UNBOUNDED_MUTATIONS = MutationQuota(None, None, None, strict=False)


class ControllerMutationQuotaManager(ClientQuotaManager):
    """``controller_mutation_rate``: partitions created or deleted per second, measured with
    a token bucket per (user, client id) (Kafka's ``ControllerMutationQuotaManager``)."""

    def __init__(self, *, samples: int = 11, window_s: int = 1,
                 clock: Clock = SYSTEM_CLOCK) -> None:
        super().__init__(QuotaType.CONTROLLER_MUTATION, samples=samples, window_s=window_s,
                         clock=clock)
        self.token_buckets: dict[tuple[str, str], TokenBucket] = {}

    def new_quota(self, user: str, client_id: str, *, strict: bool) -> MutationQuota:
        """The quota one request records its mutations in."""
        if not self.enabled:
            return UNBOUNDED_MUTATIONS
        bucket = self.bucket(user, client_id, self.clock.milliseconds())
        tokens = self.token_buckets.setdefault(self.tags(user, client_id), TokenBucket())
        return MutationQuota(self, bucket, tokens, strict=strict)

    def _prune(self, now_ms: int) -> None:
        super()._prune(now_ms)
        for tags in [t for t in self.token_buckets if t not in self.buckets]:
            del self.token_buckets[tags]
