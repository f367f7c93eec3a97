"""The reporting half of scripts/bench.py: its runs summarised into cases (medians over rounds,
the ratios), the text and Markdown tables and the plot. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scripts.bench import BrokerRun

# the vocabulary of the results: the brokers' names, the ratios, the four figures of a case
BROKERS = ("pybroker", "kafka")
EXTERNAL = "external"
BASELINE = "baseline"  # pybroker at an earlier revision (--baseline)
RATIO = "pybroker/kafka"
RATIO_BASELINE = "pybroker/baseline"
SCRAPED = "scraped"  # pybroker serving its metrics, scraped every 5 s (--metrics)
RATIO_METRICS = "scraped/pybroker"
METRICS = (("produce", "mb_per_s"), ("produce", "msgs_per_s"), ("consume", "mb_per_s"), ("consume", "msgs_per_s"))


def case_label(record_size: int, partitions: int) -> str:
    size = f"{record_size // 1024} KiB" if record_size % 1024 == 0 else f"{record_size} B"
    return f"{size} x {partitions}p"


def case_specs(args: argparse.Namespace) -> list[tuple[int, int]]:
    return list(dict.fromkeys((size, parts) for size in args.sizes for parts in args.partitions))


# -- summary --------------------------------------------------------------------------------


def summarize(runs: list[BrokerRun], names: list[str], args: argparse.Namespace) -> list[dict]:
    """Per case and metric: each broker's figure (the median over rounds) and the ratios:
    ``ratio`` pybroker/kafka and, with a baseline, ``ratio_baseline`` pybroker/baseline."""
    with_ratio = set(BROKERS) <= set(names)
    with_baseline = {"pybroker", BASELINE} <= set(names)
    with_metrics = {"pybroker", SCRAPED} <= set(names)
    out = []
    for size, parts in case_specs(args):
        entry: dict[str, object] = {"label": case_label(size, parts), "record_size": size, "partitions": parts}
        measured = {name: [c for r in runs if r.broker == name for c in r.cases if c.key == (size, parts)]
                    for name in names}
        for direction in ("produce", "consume"):
            block: dict[str, object] = {}
            for metric in ("mb_per_s", "msgs_per_s", "broker_cpu_pct"):
                values: dict[str, float | None] = {}
                for name in names:
                    got = [getattr(getattr(c, direction), metric) for c in measured[name]]
                    got = [v for v in got if v is not None]
                    values[name] = round(statistics.median(got), 3 if metric == "mb_per_s" else 1) if got else None
                if with_ratio and metric != "broker_cpu_pct":
                    py, kafka = values["pybroker"], values["kafka"]
                    values["ratio"] = round(py / kafka, 3) if py is not None and kafka else None
                if with_baseline and metric != "broker_cpu_pct":
                    py, old = values["pybroker"], values[BASELINE]
                    values["ratio_baseline"] = round(py / old, 3) if py is not None and old else None
                if with_metrics and metric != "broker_cpu_pct":
                    on, off = values[SCRAPED], values["pybroker"]
                    values["ratio_metrics"] = round(on / off, 3) if on is not None and off else None
                block[metric] = values
            block["errors"] = {name: sum(getattr(c, direction).errors for c in measured[name]) for name in names}
            entry[direction] = block
        out.append(entry)
    return out


def fmt(value: float | None, metric: str) -> str:
    if value is None:
        return "n/a"
    if metric == "ratio":
        return f"{value:.2f}"
    if metric == "broker_cpu_pct":
        return f"{value:.0f}%"
    return f"{value:,.1f}" if metric == "mb_per_s" else f"{value:,.0f}"


ROW_NAMES = {("produce", "mb_per_s"): "produce MB/s", ("produce", "msgs_per_s"): "produce msg/s",
             ("consume", "mb_per_s"): "consume MB/s", ("consume", "msgs_per_s"): "consume msg/s"}


def ratio_columns(names: list[str]) -> list[tuple[str, str]]:
    """The ratios the brokers run allow: (key in the summary, column title)."""
    cols = [("ratio", RATIO)] if set(BROKERS) <= set(names) else []
    if {"pybroker", BASELINE} <= set(names):
        cols.append(("ratio_baseline", RATIO_BASELINE))
    if {"pybroker", SCRAPED} <= set(names):
        cols.append(("ratio_metrics", RATIO_METRICS))
    return cols


def print_table(summary: list[dict], names: list[str]) -> None:
    ratios = ratio_columns(names)
    cols = [*names, *(title for _, title in ratios)]
    w = max(14, *(len(c) for c in cols))
    header = f"{'case':<12} {'':<15}" + "".join(f" {c:>{w}}" for c in cols)
    print(header)
    print("-" * len(header))
    for entry in summary:
        label = entry["label"]
        for direction, metric in METRICS:
            values = entry[direction][metric]
            cells = [fmt(values.get(n), metric) for n in names]
            cells += [fmt(values.get(key), "ratio") for key, _ in ratios]
            print(f"{label:<12} {ROW_NAMES[direction, metric]:<15}" + "".join(f" {c:>{w}}" for c in cells))
            label = ""
        cpu = [f"{fmt(entry['produce']['broker_cpu_pct'][n], 'broker_cpu_pct')} / "
               f"{fmt(entry['consume']['broker_cpu_pct'][n], 'broker_cpu_pct')}" for n in names]
        print(f"{'':<12} {'CPU prod/cons':<15}" + "".join(f" {c:>{w}}" for c in cpu))
        errors = [entry["produce"]["errors"][n] + entry["consume"]["errors"][n] for n in names]
        if any(errors):
            print(f"{'':<12} {'errors':<15}" + "".join(f" {e:>{w}}" for e in errors))


def markdown_table(summary: list[dict], names: list[str]) -> str:
    ratios = ratio_columns(names)
    head, rule = ["case"], ["---"]
    for direction, metric in METRICS:
        for n in names:
            head.append(f"{ROW_NAMES[direction, metric]} {n}")
            rule.append("---:")
        for key, title in ratios:
            head.append("ratio" if key == "ratio" else title)
            rule.append("---:")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(rule) + "|"]
    for entry in summary:
        cells = [entry["label"]]
        for direction, metric in METRICS:
            values = entry[direction][metric]
            cells += [fmt(values.get(n), metric) for n in names]
            cells += [fmt(values.get(key), "ratio") for key, _ in ratios]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(summary: list[dict], names: list[str], path: Path, title: str, ratio_note: str,
         baseline_note: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [e["label"] for e in summary]
    xs = list(range(len(summary)))
    fig = plt.figure(figsize=(15, 7.5))
    grid = fig.add_gridspec(2, 3, width_ratios=[1, 1, 0.8])
    width = 0.8 / len(names)
    colors = {"pybroker": "tab:blue", "kafka": "tab:orange", EXTERNAL: "tab:green", BASELINE: "tab:gray",
              SCRAPED: "tab:cyan"}
    for row, (metric, unit) in enumerate((("mb_per_s", "MB/s (payload)"), ("msgs_per_s", "records/s"))):
        for col, direction in enumerate(("produce", "consume")):
            ax = fig.add_subplot(grid[row, col])
            for i, name in enumerate(names):
                values = [e[direction][metric][name] for e in summary]
                shift = (i - (len(names) - 1) / 2) * width
                bars = ax.bar([x + shift for x in xs], [v or 0 for v in values], width, label=name,
                              color=colors.get(name))
                ax.bar_label(bars, labels=[fmt(v, metric) for v in values], fontsize=7, padding=2)
            ax.set_xticks(xs, labels, fontsize=8)
            ax.set_ylabel(unit)
            ax.set_title(f"{direction} {unit.split()[0]}", fontsize=9)
            ax.set_ylim(top=ax.get_ylim()[1] * 1.12)
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8)
    wanted = [("ratio", RATIO, set(BROKERS) <= set(names), ratio_note)]
    if BASELINE in names:  # the pybroker/baseline ratio below the pybroker/kafka one
        wanted.append(("ratio_baseline", RATIO_BASELINE, "pybroker" in names, baseline_note))
    if SCRAPED in names:
        wanted.append(("ratio_metrics", RATIO_METRICS, "pybroker" in names, ""))
    column = grid[:, 2].subgridspec(len(wanted), 1)
    panels = [(column[i, 0], *w) for i, w in enumerate(wanted)]
    for spec, key, ratio_title, shown, note in panels:
        ax = fig.add_subplot(spec)
        ax.set_title(f"ratio {ratio_title} (same for MB/s and records/s)", fontsize=9)
        if shown:
            width = 0.38
            for shift, direction, color in ((-width / 2, "produce", "tab:green"),
                                            (width / 2, "consume", "tab:purple")):
                values = [e[direction]["mb_per_s"].get(key) for e in summary]
                bars = ax.bar([x + shift for x in xs], [v or 0 for v in values], width, label=direction, color=color)
                ax.bar_label(bars, labels=[fmt(v, "ratio") for v in values], fontsize=8, padding=2)
            ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
            ax.legend(fontsize=8)
            if key != "ratio":  # room for the labels of bars near parity
                ax.set_ylim(top=ax.get_ylim()[1] * 1.08)
        if note:
            ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", fontsize=9, wrap=True)
        ax.set_xticks(xs, labels, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
