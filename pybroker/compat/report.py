"""The report card of a run: JSON, a self-contained HTML page and Markdown.

Everything here renders the run's JSON (``Run.to_json()``), so a saved ``report.json`` can be
rendered again. The page has no external assets: inline CSS, ``<details>`` for the evidence of
each failure, no scripts.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

PASS, FAIL, NOT_OFFERED, SKIPPED = "pass", "fail", "not offered", "skipped"
SYMBOL = {PASS: "✅", FAIL: "❌", NOT_OFFERED: "➖", SKIPPED: "⏭"}

Card = dict[str, Any]


def cell_status(statuses: list[str]) -> str:
    """One status for the scenarios of a capability × client cell: any failure fails it; else
    it passes when any scenario passed; else skipped, else not offered (pure)."""
    for status in (FAIL, PASS, SKIPPED, NOT_OFFERED):
        if status in statuses:
            return status
    return ""


def matrix(target: dict[str, Any], capabilities: list[str], clients: list[str],
           ) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The results of each (capability, client) cell."""
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in target["results"].values():
        cells.setdefault((r["capability"], r["client"]), []).append(r)
    return {k: cells[k] for k in ((c, k) for c in capabilities for k in clients) if k in cells}


def used_axes(card: Card) -> tuple[list[str], list[str]]:
    """Capabilities and clients that have at least one scenario in the run, in table order."""
    results = card["target"]["results"].values()
    caps = {r["capability"] for r in results}
    clients = {r["client"] for r in results}
    return ([c for c in card["capabilities"] if c in caps],
            [c for c in card["clients"] if c in clients])


def counts(target: dict[str, Any]) -> dict[str, int]:
    found = {s: 0 for s in (PASS, FAIL, NOT_OFFERED, SKIPPED)}
    for r in target["results"].values():
        found[r["status"]] = found.get(r["status"], 0) + 1
    return found


def summary(card: Card) -> str:
    c = counts(card["target"])
    text = (f"{card['target']['name']} at {card['target']['bootstrap']}: {c[PASS]} passed, "
            f"{c[FAIL]} failed, {c[NOT_OFFERED]} not offered, {c[SKIPPED]} skipped "
            f"in {card['target']['seconds']:.1f}s")
    if card["target"].get("probe_error"):
        text += f" (ApiVersions failed: {card['target']['probe_error']})"
    return text


def api_rows(card: Card) -> list[tuple[int, str, str, str, bool]]:
    """(key, name, broker's versions, Kafka 3.9's, differ) for every API either advertises."""
    ours = {r["key"]: r for r in card["target"].get("api_versions") or []}
    theirs = {r["key"]: r for r in card["reference_api_versions"]}
    rows = []
    for key in sorted(set(ours) | set(theirs)):
        a, b = ours.get(key), theirs.get(key)
        name = (a or b or {}).get("name", str(key))
        va = f"v{a['min']}-v{a['max']}" if a else "-"
        vb = f"v{b['min']}-v{b['max']}" if b else "-"
        rows.append((key, name, va, vb, va != vb))
    return rows


def _reference_result(card: Card, scenario: str) -> dict[str, Any] | None:
    ref = card.get("reference")
    return None if ref is None else ref["results"].get(scenario)


# -- Markdown -----------------------------------------------------------------------------------


def render_markdown(card: Card) -> str:
    caps, clients = used_axes(card)
    cells = matrix(card["target"], caps, clients)
    out = [f"# Compatibility report card: {card['target']['bootstrap']}", "",
           summary(card) + f" (run {card['run_id']}, started {card['started']}).", ""]
    if card.get("reference"):
        out += [f"Side by side with {card['reference_name']}: "
                + summary({**card, "target": card["reference"]}) + ".", ""]
    out += [f"Legend: {SYMBOL[PASS]} pass, {SYMBOL[FAIL]} fail, {SYMBOL[NOT_OFFERED]} not "
            f"offered (the broker does not advertise the APIs), {SYMBOL[SKIPPED]} skipped (the "
            "client is missing here).", ""]
    out.append("| capability | " + " | ".join(clients) + " |")
    out.append("|---|" + "---|" * len(clients))
    for cap in caps:
        row = []
        for client in clients:
            rs = cells.get((cap, client))
            if not rs:
                row.append("")
                continue
            status = cell_status([r["status"] for r in rs])
            row.append(SYMBOL[status] + (f" {len(rs)}" if len(rs) > 1 else ""))
        out.append(f"| {cap} | " + " | ".join(row) + " |")
    failures = [r for r in card["target"]["results"].values() if r["status"] == FAIL]
    if failures:
        out += ["", "## Failures", ""]
        for r in failures:
            out.append(f"- **{r['scenario']}**: {_one_line(r['message'])}")
            ref = _reference_result(card, r["scenario"])
            if ref is not None:
                out.append(f"  - {card['reference_name']}: {ref['status']}"
                           + (f" ({_one_line(ref['message'])})" if ref["message"] else ""))
    others = [r for r in card["target"]["results"].values()
              if r["status"] in (SKIPPED, NOT_OFFERED)]
    if others:
        out += ["", "## Not run", ""]
        out += [f"- {r['scenario']}: {r['status']}: {r['message']}" for r in others]
    out += ["", "## ApiVersions", "", f"| key | API | this broker | {card['reference_name']} |",
            "|---|---|---|---|"]
    for key, name, a, b, differ in api_rows(card):
        mark = " ≠" if differ else ""
        out.append(f"| {key} | {name} | {a}{mark} | {b} |")
    out += ["", "## Timings", "", "| scenario | status | seconds |", "|---|---|---|"]
    for r in card["target"]["results"].values():
        out.append(f"| {r['scenario']} | {r['status']} | {r['seconds']:.2f} |")
    cleanup = card["target"].get("cleanup") or {}
    if card["target"].get("connection"):
        out += ["", f"Connected with {card['target']['connection']}."]
    out += ["", f"Cleanup: {len(cleanup.get('topics_deleted', []))} topics, "
            f"{len(cleanup.get('groups_deleted', []))} groups and "
            f"{len(cleanup.get('acls_deleted', []))} ACLs deleted"
            + (f"; left: {'; '.join(cleanup['left'])}" if cleanup.get("left") else "") + ".", ""]
    return "\n".join(out)


def _one_line(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


# -- HTML ---------------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f4f4f4}
td.pass{background:#d9f2d9}td.fail{background:#f8d0d0;font-weight:bold}
td.not-offered{background:#eee;color:#777}td.skipped{background:#fff3c4}
td.differ{background:#fff3c4}
.ref{font-size:.8em;color:#555;display:block}
details{margin:.4em 0;border:1px solid #ddd;padding:.3em .6em;border-radius:4px}
summary{cursor:pointer}
pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:30em;white-space:pre-wrap}
.legend span{margin-right:1em;padding:.1em .4em}
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _cls(status: str) -> str:
    return status.replace(" ", "-")


def _details(card: Card, r: dict[str, Any]) -> str:
    parts = [f"<details id=\"{_esc(r['scenario'])}\"><summary><b>{_esc(r['scenario'])}</b>: "
             f"{_esc(_one_line(r['message']))}</summary>"]
    if r.get("evidence"):
        parts.append("<h4>Evidence</h4><pre>"
                     + _esc(json.dumps(r["evidence"], indent=1, ensure_ascii=False)) + "</pre>")
    if r.get("traceback"):
        parts.append(f"<h4>Traceback</h4><pre>{_esc(r['traceback'])}</pre>")
    if r.get("output"):
        parts.append(f"<h4>Output (tail)</h4><pre>{_esc(r['output'])}</pre>")
    ref = _reference_result(card, r["scenario"])
    if ref is not None:
        parts.append(f"<h4>{_esc(card['reference_name'])} on the same scenario: "
                     f"{_esc(ref['status'])}</h4>")
        if ref.get("message"):
            parts.append(f"<p>{_esc(ref['message'])}</p>")
        if ref.get("evidence"):
            parts.append("<pre>" + _esc(json.dumps(ref["evidence"], indent=1,
                                                   ensure_ascii=False)) + "</pre>")
    parts.append("</details>")
    return "".join(parts)


def render_html(card: Card) -> str:
    caps, clients = used_axes(card)
    cells = matrix(card["target"], caps, clients)
    has_ref = bool(card.get("reference"))
    h = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
         f"<title>Compatibility report card: {_esc(card['target']['bootstrap'])}</title>",
         f"<style>{CSS}</style></head><body>",
         f"<h1>Compatibility report card: {_esc(card['target']['bootstrap'])}</h1>",
         f"<p>{_esc(summary(card))}. Run {_esc(card['run_id'])}, started "
         f"{_esc(card['started'])}.</p>"]
    if has_ref:
        h.append(f"<p>Side by side with {_esc(card['reference_name'])}: "
                 f"{_esc(summary({**card, 'target': card['reference']}))}.</p>")
    h.append("<p class=\"legend\">" + "".join(
        f"<span class=\"{_cls(s)}\" style=\"border:1px solid #ccc\">{SYMBOL[s]} {s}</span>"
        for s in (PASS, FAIL, NOT_OFFERED, SKIPPED)) + "</p>")
    h.append("<table><tr><th>capability</th>"
             + "".join(f"<th title=\"{_esc(card['clients'][c])}\">{_esc(c)}</th>"
                       for c in clients) + "</tr>")
    for cap in caps:
        meaning = card["capabilities"][cap]["meaning"]
        needs = ", ".join(card["capabilities"][cap]["needs"])
        h.append(f"<tr><th title=\"{_esc(meaning)}; needs {_esc(needs)}\">{_esc(cap)}</th>")
        for client in clients:
            rs = cells.get((cap, client))
            if not rs:
                h.append("<td></td>")
                continue
            status = cell_status([r["status"] for r in rs])
            tip = "; ".join(f"{r['scenario']}: {r['status']}"
                            + (f" ({_one_line(r['message'], 120)})" if r["message"] else "")
                            for r in rs)
            text = SYMBOL[status] + " " + status
            if len(rs) > 1:
                text += f" ({sum(r['status'] == PASS for r in rs)}/{len(rs)})"
            if status == FAIL:
                first = next(r for r in rs if r["status"] == FAIL)
                text = f"<a href=\"#{_esc(first['scenario'])}\">{_esc(text)}</a>"
            else:
                text = _esc(text)
            if has_ref:
                refs = [_reference_result(card, r["scenario"]) for r in rs]
                ref_status = cell_status([x["status"] for x in refs if x is not None])
                text += f"<span class=\"ref\">Kafka 3.9: {_esc(ref_status)}</span>"
            h.append(f"<td class=\"{_cls(status)}\" title=\"{_esc(tip)}\">{text}</td>")
        h.append("</tr>")
    h.append("</table>")
    failures = [r for r in card["target"]["results"].values() if r["status"] == FAIL]
    h.append(f"<h2>Failures ({len(failures)})</h2>")
    h += [_details(card, r) for r in failures] or ["<p>None.</p>"]
    others = [r for r in card["target"]["results"].values()
              if r["status"] in (SKIPPED, NOT_OFFERED)]
    if others:
        h.append("<h2>Not run</h2><ul>" + "".join(
            f"<li><b>{_esc(r['scenario'])}</b>: {_esc(r['status'])}: {_esc(r['message'])}</li>"
            for r in others) + "</ul>")
    h.append("<h2>Capabilities</h2><table><tr><th>capability</th><th>meaning</th>"
             "<th>needs</th></tr>")
    h += [f"<tr><td>{_esc(c)}</td><td>{_esc(card['capabilities'][c]['meaning'])}</td>"
          f"<td>{_esc(', '.join(card['capabilities'][c]['needs']))}</td></tr>" for c in caps]
    h.append("</table>")
    h.append(f"<h2>ApiVersions</h2><table><tr><th>key</th><th>API</th><th>this broker</th>"
             f"<th>{_esc(card['reference_name'])}</th></tr>")
    for key, name, a, b, differ in api_rows(card):
        cls = " class=\"differ\"" if differ else ""
        h.append(f"<tr><td>{key}</td><td>{_esc(name)}</td><td{cls}>{_esc(a)}</td>"
                 f"<td>{_esc(b)}</td></tr>")
    h.append("</table>")
    h.append("<h2>Timings</h2><table><tr><th>scenario</th><th>status</th><th>seconds</th>"
             + ("<th>Kafka 3.9 seconds</th>" if has_ref else "") + "</tr>")
    for r in card["target"]["results"].values():
        ref = _reference_result(card, r["scenario"])
        h.append(f"<tr><td>{_esc(r['scenario'])}</td><td class=\"{_cls(r['status'])}\">"
                 f"{_esc(r['status'])}</td><td>{r['seconds']:.2f}</td>"
                 + (f"<td>{ref['seconds']:.2f}</td>" if has_ref and ref else
                    "<td></td>" if has_ref else "") + "</tr>")
    h.append("</table>")
    cleanup = card["target"].get("cleanup") or {}
    if card["target"].get("connection"):
        h.append(f"<p>Connected with {_esc(card['target']['connection'])}.</p>")
    h.append(f"<p>Cleanup: {len(cleanup.get('topics_deleted', []))} topics, "
             f"{len(cleanup.get('groups_deleted', []))} groups and "
             f"{len(cleanup.get('acls_deleted', []))} ACLs deleted"
             + (f"; left: {_esc('; '.join(cleanup['left']))}" if cleanup.get("left") else "")
             + ".</p></body></html>\n")
    return "\n".join(h)


def write_report(card: Card, directory: Path) -> list[Path]:
    """``report.json``, ``report.html`` and ``report.md`` in ``directory``."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    paths = [directory / "report.json", directory / "report.html", directory / "report.md"]
    paths[0].write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    paths[1].write_text(render_html(card), encoding="utf-8")
    paths[2].write_text(render_markdown(card), encoding="utf-8")
    return paths
