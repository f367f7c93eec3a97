"""The differential harness's own logic: masking, keyed comparison, documented differences."""

from __future__ import annotations

from protocol.messages import metadata_response as md
from protocol.records.record import build_batch
from tests.compat.differential.differ import (
    ABSENT,
    MASK,
    Difference,
    Known,
    Step,
    _mask,
    compare,
    matches,
    plain,
    triage,
)


def _steps(**answers) -> list[Step]:
    return [Step(label, 3, 12, answer) for label, answer in answers.items()]


def test_patterns_take_brackets_literally() -> None:
    assert matches("topics[*].partitions[*].leader_id", "topics[*].partitions[*].leader_id")
    assert matches("topics{T-1}.configs{retention.ms}.value", "topics{*}.configs{*}.value")
    assert not matches("topics*", "topics[*]")


def test_plain_turns_messages_into_comparable_values() -> None:
    resp = md.MetadataResponse(
        brokers=[md.MetadataResponseBroker(node_id=0, host="h", port=1)],
        topics=[md.MetadataResponseTopic(name="b", error_code=3),
                md.MetadataResponseTopic(name="a", error_code=0)],
    )
    out = plain(resp)
    assert [t["name"] for t in out["topics"]] == ["a", "b"]  # unordered lists sorted by key
    assert out["topics"][1]["error_code"] == "UNKNOWN_TOPIC_OR_PARTITION (3)"
    assert "unknown_tagged_fields" not in out


def test_records_are_decoded_for_comparison() -> None:
    raw = bytes(build_batch([(b"k", b"v", [("h", b"x")], 5)]))
    out = plain({"records": raw}["records"], "records")
    assert out[0]["records"] == [{"offset": 0, "timestamp": 5, "key": b"k", "value": b"v",
                                  "headers": [["h", b"x"]]}]
    assert out[0]["header"]["records_count"] == 1


def test_masks_by_field_name_and_by_pattern() -> None:
    value = {"throttle_time_ms": 7, "a": [{"b": 1, "c": 2}], "member_id": None}
    assert _mask(value, ("a[*].c",)) == {"throttle_time_ms": MASK, "a": [{"b": 1, "c": MASK}],
                                         "member_id": None}


def test_compare_matches_keyed_elements_by_key() -> None:
    ours = _steps(s={"configs": [{"name": "x", "value": "1"}, {"name": "y", "value": "2"}]})
    theirs = _steps(s={"configs": [{"name": "y", "value": "3"}, {"name": "z", "value": "4"}]})
    diffs = compare(ours, theirs)
    assert Difference("s", "configs{x}", {"name": "x", "value": "1"}, ABSENT) in diffs
    assert Difference("s", "configs{y}.value", "2", "3") in diffs
    assert Difference("s", "configs{z}", ABSENT, {"name": "z", "value": "4"}) in diffs
    assert len(diffs) == 3


def test_compare_reports_lengths_and_indexes_of_plain_lists() -> None:
    diffs = compare(_steps(s={"l": [1, 2, 3]}), _steps(s={"l": [1, 5]}))
    assert {(d.path, d.pybroker, d.kafka) for d in diffs} == {("l.length", 3, 2), ("l[*]", 2, 5)}


def test_missing_steps_are_differences() -> None:
    diffs = compare(_steps(a={}, b={}), _steps(a={}))
    assert diffs == [Difference("b", "<step>", True, False)]


def test_triage_separates_documented_from_new() -> None:
    known = [Known("sc", "fetch*", "session_id", "sessions declined"),
             Known("sc", "never", "x", "stale")]
    diffs = [Difference("fetch v12", "session_id", 0, 5), Difference("produce", "base_offset", 0, 1)]
    unexplained, used = triage(diffs, known)
    assert unexplained == [diffs[1]]
    assert used == {known[0]}
