"""The generated section of docs/compatibility.md that ``make compat-peers`` writes: its shape
(markers, the summary table, a row per broker, links to cards that exist), not its numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scripts import compat_peers as cp


def test_the_published_section_has_its_shape() -> None:
    doc = cp.DOC.read_text(encoding="utf-8")
    assert cp.shape_problems(doc, cp.DOC.parent) == [], (
        "the compat-peers section of docs/compatibility.md is malformed: run make compat-peers"
    )


def test_every_broker_has_a_row_with_its_card() -> None:
    names = [t.name for t in cp.targets()]
    assert names[:2] == ["pybroker", "kafka"]
    assert {"kfake", "tansu"} <= set(names)
    body = cp.generated(cp.DOC.read_text(encoding="utf-8"))
    tansu = next(line for line in body.splitlines() if line.startswith("| tansu |"))
    assert "compat-peers/tansu/report.html" in tansu


def _card(name: str, statuses: dict[str, tuple[str, str]]) -> dict[str, Any]:
    results = {sid: {"scenario": sid, "capability": cap, "client": sid.split("/")[0],
                     "status": status, "message": "", "seconds": 1.0}
               for sid, (cap, status) in statuses.items()}
    return {"run_id": "r1", "started": "2026-01-01T00:00:00Z",
            "capabilities": ["produce-fetch", "transactions", "acls"],
            "clients": ["java", "cli"],
            "target": {"name": name, "bootstrap": "127.0.0.1:1", "seconds": 12.5,
                       "results": results}}


def _write_cards(out: Path, cards: dict[str, dict[str, Any]]) -> None:
    for name, card in cards.items():
        d = out / name
        d.mkdir(parents=True)
        (d / "report.json").write_text(json.dumps(card))
        (d / "report.html").write_text("<html></html>")
        (d / "report.md").write_text("# card\n")


def test_a_section_built_from_cards_passes_the_shape_check(tmp_path: Path) -> None:
    out = tmp_path / "docs" / "compat-peers"
    _write_cards(out, {
        "pybroker": _card("pybroker", {"java/produce-fetch": ("produce-fetch", "pass"),
                                       "java/transactions": ("transactions", "pass")}),
        "kafka": _card("kafka", {"java/produce-fetch": ("produce-fetch", "pass"),
                                 "java/transactions": ("transactions", "pass")}),
        "kfake": _card("kfake", {"java/produce-fetch": ("produce-fetch", "pass"),
                                 "java/transactions": ("transactions", "fail"),
                                 "cli/acls": ("acls", "not offered")}),
    })
    doc_path = tmp_path / "docs" / "compatibility.md"
    doc_path.write_text(f"# Title\n\nbefore\n\n{cp.BEGIN}\nold\n{cp.END}\n\nafter\n")
    cards = [(t, cp.load_card(out, t)) for t in cp.targets()]
    body = cp.section(cards, "compat-peers", problems={})
    doc = cp.rewrite(doc_path.read_text(), body)
    assert doc.startswith("# Title\n\nbefore\n\n") and doc.endswith(f"{cp.END}\n\nafter\n")
    assert "old" not in cp.generated(doc)
    assert cp.shape_problems(doc, doc_path.parent) == []
    assert cp.rewrite(doc, body) == doc
    lines = cp.generated(doc).splitlines()
    kfake = next(line for line in lines if line.startswith("| kfake |"))
    cells = [c.strip() for c in kfake.strip("|").split(" | ")]
    assert cells[2:6] == ["1", "1", "1", "0"]
    assert "compat-peers/kfake/report.html" in kfake
    matrix = next(line for line in lines if line.startswith("| transactions |"))
    assert matrix.split(" | ")[1:] == ["✅", "✅", "❌ |"]


def test_the_shape_check_names_what_is_wrong(tmp_path: Path) -> None:
    assert cp.shape_problems("no markers", tmp_path)
    cards = [(t, None) for t in cp.targets()]
    doc = cp.rewrite(f"{cp.BEGIN}\n{cp.END}\n", cp.section(cards, "compat-peers"))
    assert cp.shape_problems(doc, tmp_path) == []  # no cards yet: every row says why
    missing_row = doc.replace("| kfake |", "| other |")
    assert any("summary rows" in p for p in cp.shape_problems(missing_row, tmp_path))
    with_link = doc.replace("not run yet", "[HTML](compat-peers/x/report.html)", 1)
    assert any("leads to no file" in p for p in cp.shape_problems(with_link, tmp_path))
    with pytest.raises(ValueError):
        cp.rewrite("no markers", "x")
