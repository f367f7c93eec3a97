"""How the console shows a record's key and value, and reads a browse's start."""

from __future__ import annotations

import json

import pytest

from pybroker.console import messages


def test_text_json_and_hex() -> None:
    doc = json.dumps({"b": [1, 2], "a": "é"}).encode()
    assert messages.show(doc, "json") == {
        "shown": '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "é"\n}', "as": "json",
        "bytes": len(doc)}
    assert messages.show(doc, "text")["shown"] == doc.decode()
    assert messages.show(b"\x00\xff", "hex") == {"shown": "00 ff", "as": "hex", "bytes": 2}
    # bytes that are not UTF-8 are shown as hex whatever was asked, and say so
    assert messages.show(b"\xff\xfe", "text")["as"] == "hex"
    # text that is not JSON stays text
    assert messages.show(b"plain", "json") == {"shown": "plain", "as": "text", "bytes": 5}
    assert messages.show(None, "text") == {"shown": None, "as": "null", "bytes": 0}


def test_timestamps_in_ms_or_iso() -> None:
    assert messages.parse_timestamp("1700000000000") == 1_700_000_000_000
    assert messages.parse_timestamp("2023-11-14T22:13:20") == 1_700_000_000_000
    assert messages.parse_timestamp("2023-11-14T23:13:20+01:00") == 1_700_000_000_000
    with pytest.raises(ValueError, match="milliseconds or an ISO"):
        messages.parse_timestamp("yesterday")


def test_a_browse_is_checked() -> None:
    with pytest.raises(ValueError, match="newest or oldest"):
        messages.Browse(order="sideways")
    with pytest.raises(ValueError, match="text, json or hex"):
        messages.Browse(fmt="xml")
    with pytest.raises(ValueError, match="limit"):
        messages.Browse(limit=0)
    with pytest.raises(ValueError, match="not both"):
        messages.Browse(offset=1, timestamp=2)
