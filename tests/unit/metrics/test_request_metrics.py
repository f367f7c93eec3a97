"""RequestMetrics' histograms are views of the raw samples its requests leave: each must read
what a histogram updated with that request's time per request would have read."""

from __future__ import annotations

import pytest

from protocol.messages.produce_response import ProduceResponse
from pybroker.metrics import request_metrics
from pybroker.metrics.registry import RESERVOIR_SIZE, MetricsRegistry, mbean
from pybroker.metrics.request_metrics import (
    FETCH_CONSUMER,
    RequestChannelMetrics,
    RequestHistogram,
    RequestTimes,
)

MS = 1_000_000  # ns


def _histogram(registry: MetricsRegistry, name: str, request: str = "Produce") -> RequestHistogram:
    h = registry.get(mbean("kafka.network", "RequestMetrics", name, request=request))
    assert isinstance(h, RequestHistogram)
    return h


def _complete(monkeypatch: pytest.MonkeyPatch, api: request_metrics.RequestMetrics, *,
              received: int, dequeued: int, local_done: int, ready: int, send_started: int,
              end: int, throttle_ms: int = 0, size: int = 100, version: int = 9,
              timed: tuple[request_metrics.RequestMetrics, ...] | None = None) -> None:
    times = RequestTimes(received, size)
    monkeypatch.setattr(request_metrics, "_ns", lambda: dequeued)
    times.begin(api, version, timed)
    times.local_done = local_done
    monkeypatch.setattr(request_metrics, "_ns", lambda: ready)
    times.answered(ProduceResponse(throttle_time_ms=throttle_ms))
    monkeypatch.setattr(request_metrics, "_ns", lambda: end)
    times.complete(send_started)


def test_each_histogram_reads_its_part_of_the_requests_time(monkeypatch):
    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Produce", "Fetch"])
    _complete(monkeypatch, channel["Produce"], received=0, dequeued=1 * MS, local_done=3 * MS,
              ready=7 * MS, send_started=8 * MS, end=10 * MS, throttle_ms=5, size=321)
    expected = {"RequestQueueTimeMs": 1.0, "LocalTimeMs": 2.0, "RemoteTimeMs": 4.0,
                "ThrottleTimeMs": 5.0, "ResponseQueueTimeMs": 1.0, "ResponseSendTimeMs": 2.0,
                "TotalTimeMs": 10.0, "RequestBytes": 321.0}
    for name, value in expected.items():
        h = _histogram(registry, name)
        assert (h.count, list(h.values)) == (1, [value]), name
        assert h.stats() == (value, value, value)
    # nothing of it reached another API's histograms
    assert _histogram(registry, "TotalTimeMs", "Fetch").count == 0
    requests = registry.get(mbean("kafka.network", "RequestMetrics", "RequestsPerSec",
                                  request="Produce", version=9))
    assert requests is not None and requests.count == 1


def test_an_answer_without_a_response_to_send(monkeypatch):
    """An acks=0 produce: no response is written, so no response queue or send time; its
    handler's answer is the end of its local time."""
    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Produce"])
    api = channel["Produce"]
    times = RequestTimes(0, 50)
    monkeypatch.setattr(request_metrics, "_ns", lambda: 2 * MS)
    times.begin(api, 9)
    monkeypatch.setattr(request_metrics, "_ns", lambda: 6 * MS)
    times.complete(0)
    values = {name: list(_histogram(registry, name).values) for name in (
        "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs",
        "TotalTimeMs")}
    assert values == {"LocalTimeMs": [4.0], "RemoteTimeMs": [0.0], "ResponseQueueTimeMs": [0.0],
                      "ResponseSendTimeMs": [0.0], "TotalTimeMs": [6.0]}


def test_a_fetch_counts_under_both_its_names(monkeypatch):
    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Fetch"])
    _complete(monkeypatch, channel["Fetch"], received=0, dequeued=0, local_done=MS, ready=MS,
              send_started=MS, end=2 * MS, version=16,
              timed=(channel[FETCH_CONSUMER], channel["Fetch"]))
    for request in ("Fetch", FETCH_CONSUMER):
        assert list(_histogram(registry, "TotalTimeMs", request).values) == [2.0]
    assert _histogram(registry, "TotalTimeMs", "FetchFollower").count == 0


def test_the_reservoir_keeps_the_last_requests_and_the_count_all(monkeypatch):
    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Produce"])
    total = _histogram(registry, "TotalTimeMs")
    for i in range(RESERVOIR_SIZE + 10):
        _complete(monkeypatch, channel["Produce"], received=0, dequeued=0, local_done=0,
                  ready=0, send_started=0, end=i * MS)
        if i == 3:  # read in between: what is read later must not be this old reading
            assert list(total.values) == [0.0, 1.0, 2.0, 3.0]
    assert total.count == RESERVOIR_SIZE + 10
    assert list(total.values) == [float(i) for i in range(10, RESERVOIR_SIZE + 10)]
    q = dict(total.quantiles())
    assert q[0.5] == pytest.approx(10 + 0.5 * (RESERVOIR_SIZE + 1) - 1)


def test_the_snapshot_serves_the_views_as_histograms(monkeypatch):
    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Produce"])
    _complete(monkeypatch, channel["Produce"], received=0, dequeued=0, local_done=MS, ready=MS,
              send_started=MS, end=3 * MS)
    samples = {s.mbean: s for s in registry.snapshot()}
    total = samples[mbean("kafka.network", "RequestMetrics", "TotalTimeMs", request="Produce")]
    assert (total.kind, total.value, total.stats) == ("histogram", 1, (3.0, 3.0, 3.0))
    # the conversion histograms Kafka keeps for Produce stay plain, empty histograms
    conversions = samples[mbean("kafka.network", "RequestMetrics", "MessageConversionsTimeMs",
                                request="Produce")]
    assert (conversions.kind, conversions.value) == ("histogram", 0)


def test_errors_per_sec_counts_every_occurrence_of_each_code_in_the_response(monkeypatch):
    from protocol.messages import produce_response as pr

    registry = MetricsRegistry()
    channel = RequestChannelMetrics(registry, ["Produce"])
    partitions = [pr.PartitionProduceResponse(index=i, error_code=code)
                  for i, code in enumerate((0, 6, 6, 0, 0))]
    response = pr.ProduceResponse(
        responses=[pr.TopicProduceResponse(name="t", partition_responses=partitions)],
        throttle_time_ms=17)
    times = RequestTimes(0, 10)
    monkeypatch.setattr(request_metrics, "_ns", lambda: MS)
    times.begin(channel["Produce"], 9)
    times.local_done = MS
    times.answered(response)
    times.answered(None)  # an answer without a response counts nothing more
    assert times.throttle_ms == 17

    def errors(name: str) -> int:
        m = registry.get(mbean("kafka.network", "RequestMetrics", "ErrorsPerSec",
                               request="Produce", error=name))
        return m.count if m is not None else 0

    assert (errors("NONE"), errors("NOT_LEADER_OR_FOLLOWER"), errors("UNKNOWN_SERVER_ERROR")) == (3, 2, 0)
