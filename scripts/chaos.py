"""``make chaos``: the chaos run of ``tests/cluster/test_chaos.py`` for as long as asked, with a
report.

Starts a ZooKeeper of its own on 127.0.0.1 and three brokers on 127.0.0.2-4, runs
``pybroker.testing.chaos.run_chaos`` for ``--duration`` seconds of faults, and writes to
``--out`` (git-ignored ``chaos-results/`` by default), named after the run's start:

- ``chaos-<stamp>.json``: the configuration and seed, the counts (acknowledged, lost,
  duplicated, divergent; the split probe's, the transactions' and the committed offsets'; the
  control requests of deposed controllers), each producer's longest unavailability, every
  fault with the longest stall of a partition during and after it, every split judged, every
  controller takeover, every change of controller and of each partition's leader and ISR;
- ``chaos-<stamp>.md``: the same as tables;
- ``chaos-<stamp>.png``: acknowledgements a second per producer over the faults; the split
  probe's acks=1 writes taken a second by each broker, transactions committed and aborted and
  offsets committed a second; the leaders of the partitions;
- ``run-<stamp>/``: the brokers' data and logs, ZooKeeper's, the Java producer's stderr (with
  disk faults the log dirs are tmpfs mounts, copied to ``run-<stamp>/kept-data/`` at the end).

Exits 0 when the run passed, 1 when it did not. ``python -m scripts.chaos --help`` lists the
options (``make chaos DURATION=600 SEED=7 FAULTS=kill,freeze,cut,isolate,split,zk-cut,zk-kill``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from pybroker.testing.chaos import ChaosConfig, ChaosResult, run_chaos
from pybroker.testing.disk import disk_faults_missing
from pybroker.testing.nemesis import (
    DISK_FAULTS,
    FAULT_KINDS,
    NETWORK_FAULTS,
    Endpoint,
    network_faults_missing,
)
from pybroker.testing.zookeeper import ZooKeeperServer

COLOURS = {"kill": "tab:red", "freeze": "tab:blue", "cut": "tab:orange", "isolate": "tab:purple",
           "split": "tab:brown", "zk-cut": "tab:olive", "zk-kill": "tab:cyan"}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0,
                        help="seconds of faults (default 600)")
    parser.add_argument("--seed", type=int, default=None,
                        help="the nemesis's seed (default: a random one, printed)")
    parser.add_argument("--faults", default=",".join(FAULT_KINDS),
                        help=f"fault kinds, comma-separated, of {','.join(FAULT_KINDS)} "
                             "(default: all)")
    parser.add_argument("--rate", type=float, default=200.0,
                        help="records a second per producer (default 200)")
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--no-java", action="store_true",
                        help="leave out the Java producer (VerifiableProducer)")
    parser.add_argument("--no-transactions", action="store_true",
                        help="leave out the transactional workload")
    parser.add_argument("--no-offsets", action="store_true",
                        help="leave out the consumer-offset workload")
    parser.add_argument("--out", type=Path, default=Path("chaos-results"))
    args = parser.parse_args(argv)
    args.faults = tuple(f for f in args.faults.split(",") if f)
    unknown = set(args.faults) - set(FAULT_KINDS)
    if unknown or not args.faults:
        parser.error(f"--faults takes some of {','.join(FAULT_KINDS)}, not {args.faults}")
    return args


def per_second(times: list[float], end: float) -> tuple[list[int], list[int]]:
    """(seconds, how many of ``times`` fell in each)."""
    counted = Counter(int(t) for t in times)
    seconds = list(range(int(end) + 1))
    return seconds, [counted.get(s, 0) for s in seconds]


def ack_rates(result: ChaosResult) -> dict[str, tuple[list[int], list[int]]]:
    """producer -> (seconds, acknowledgements in that second)."""
    return {p.name: per_second(p.ack_times, result.load_end) for p in result.producers}


def plot(result: ChaosResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (acks_ax, more_ax, leaders_ax) = plt.subplots(
        3, 1, figsize=(14, 10), sharex=True, gridspec_kw={"height_ratios": [3, 2, 2]})
    for name, (seconds, counts) in ack_rates(result).items():
        acks_ax.plot(seconds, counts, label=f"{name} acknowledgements/s", linewidth=1)
    for w in result.workloads:
        for what, times in w.times.items():
            seconds, counts = per_second(times, result.load_end)
            more_ax.plot(seconds, counts, label=f"{w.name}: {what}/s", linewidth=1)
    more_ax.set_ylabel("per second")
    if result.workloads:
        more_ax.legend(loc="upper left", fontsize=7, ncol=3)
    for f in result.faults:
        end = f.ended if f.ended is not None else result.load_end
        for ax in (acks_ax, more_ax, leaders_ax):
            ax.axvspan(f.started, end, color=COLOURS.get(f.kind, "grey"), alpha=0.15)
        acks_ax.text(f.started, acks_ax.get_ylim()[1] * 0.97, f"{f.kind} {f.victim}",
                     fontsize=7, rotation=90, va="top")
    acks_ax.set_ylabel("acknowledged records / s")
    acks_ax.legend(loc="lower left", fontsize=8)
    verdict = "passed" if result.passed else "FAILED"
    shown = ("acknowledged", "lost", "duplicated", "divergent", "txn_committed", "txn_aborted",
             "txn_aborted_read", "offsets_samples", "offsets_backwards", "splits",
             "split_acks_one_truncated", "stale_controller_requests_applied")
    counts = [f"{k} {v}" for k, v in result.counts.items() if k in shown]
    acks_ax.set_title(f"chaos seed {result.config.seed}: {verdict}; " + ", ".join(counts[:4])
                      + "\n" + ", ".join(counts[4:]), fontsize=9)
    partitions = sorted({(c.topic, c.partition) for c in result.leaders})
    for i, tp in enumerate(partitions):
        changes = [c for c in result.leaders if (c.topic, c.partition) == tp]
        xs = [c.at for c in changes] + [result.load_end]
        ys = [c.leader + (i - len(partitions) / 2) * 0.04 for c in changes]
        ys.append(ys[-1])
        leaders_ax.step(xs, ys, where="post", linewidth=1, label=f"{tp[0]}-{tp[1]}")
    if result.controllers:
        xs = [t for t, _ in result.controllers] + [result.load_end]
        ys = [float(c) for _, c in result.controllers]
        ys.append(ys[-1])
        leaders_ax.step(xs, ys, where="post", color="black", linewidth=3, alpha=0.4,
                        label="controller")
    leaders_ax.set_ylabel("leader (broker id)")
    leaders_ax.set_xlabel("seconds since the cluster started")
    leaders_ax.legend(loc="upper left", fontsize=7, ncol=4)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def markdown(result: ChaosResult, png: str) -> str:
    c = result.counts
    lines = [f"# Chaos run {result.started_at}", "",
             f"Seed {result.config.seed}, faults {', '.join(result.config.faults)}, "
             f"{result.config.duration:.0f} s of faults, {result.config.rate:.0f} records/s per "
             f"producer, {result.config.partitions} partitions per topic (replication factor 3, "
             "min.insync.replicas=2).", "",
             "**" + ("PASSED" if result.passed else "FAILED: " + "; ".join(result.failures))
             + "**", "", "| count | value |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in c.items()]
    lines += ["", "| producer | sent | acknowledged | failed | unanswered | longest "
              "unavailability |", "|---|---|---|---|---|---|"]
    for p in result.producers:
        g = p.longest_gap
        lines.append(f"| {p.name} | {p.sent} | {p.acknowledged} | {p.errors} | {p.unanswered} "
                     f"| {g.seconds:.1f} s (t={g.start:.1f}..{g.end:.1f}) |")
    lines += ["", f"Replicas: {result.replicas.replicas} copies of {result.replicas.partitions} "
              f"partitions compared byte for byte, {result.replicas.bytes_compared} bytes below "
              "the high watermarks.", ""]
    lines += [f"- divergent: {d}" for d in result.replicas.divergent]
    lines += [f"- note: {n}" for n in result.notes]
    lines += more_markdown(result)
    lines += ["", f"![acknowledgements and leaders]({png})", "", "## Faults", "",
              "| from (s) | to (s) | kind | broker | controller? | note |",
              "|---|---|---|---|---|---|"]
    for f in result.faults:
        ended = f"{f.ended:.1f}" if f.ended is not None else "-"
        lines.append(f"| {f.started:.1f} | {ended} | {f.kind} | {f.victim} | "
                     f"{'yes' if f.was_controller else ''} | {f.note} |")
    lines += ["", "## Controllers and leaders", "", "| at (s) | partition | leader | ISR |",
              "|---|---|---|---|"]
    events = [(t, "controller", str(b), "") for t, b in result.controllers]
    events += [(ch.at, f"{ch.topic}-{ch.partition}", str(ch.leader), str(list(ch.isr)))
               for ch in result.leaders]
    for at, what, leader, isr in sorted(events)[:2000]:
        lines.append(f"| {at:.1f} | {what} | {leader} | {isr} |")
    return "\n".join(lines) + "\n"


def more_markdown(result: ChaosResult) -> list[str]:
    """The report's tables of the workloads, the splits, the controllers and the stalls."""
    lines: list[str] = []
    if result.workloads:
        lines += ["", "| workload | counts | errors (samples) |", "|---|---|---|"]
        for w in result.workloads:
            counts = ", ".join(f"{k} {v}" for k, v in w.counts.items())
            errors = "; ".join(e.replace("|", "/") for e in w.error_samples[:3])
            lines.append(f"| {w.name} | {counts} | {errors} |")
    if result.split is not None and result.split.splits:
        lines += ["", "## Splits", "",
                  "A leader cut off from the brokers and ZooKeeper while the split probe still "
                  "writes to it directly. acks=all: acknowledgements it gave after the cut "
                  "(and the last one's time into the cut); acks=1: writes it took after the "
                  "cut, truncated when it rejoined or kept; the offsets its state-change log "
                  "says it truncated to.", "",
                  "| from (s) | to (s) | partition | cut leader | new leader | acks=all after "
                  "the cut (last) | acks=1 after the cut | truncated | kept | truncations "
                  "logged |", "|---|---|---|---|---|---|---|---|---|---|"]
        for o in result.split.splits:
            sp, last = o.split, o.last_acks_all_after_cut
            lines.append(
                f"| {sp.started:.1f} | {sp.ended:.1f} | {sp.tp[0]}-{sp.tp[1]} | {sp.broker} | "
                f"{o.new_leader} | {o.acks_all_after_cut} "
                f"({'-' if last is None else f'{last:.2f} s'}) | {o.acks_one_after_cut} | "
                f"{o.truncated} | {o.kept} | {o.truncations_logged[:5]} |")
    if result.fencing.takeovers:
        lines += ["", "## Controllers", "",
                  "Each election, and the control requests of older epochs the brokers saw "
                  "after it (applied must be 0).", "",
                  "| at (s) | epoch | controller | before | before resigned at (s) | stale "
                  "applied | stale refused |", "|---|---|---|---|---|---|---|"]
        for t in result.fencing.takeovers:
            resigned = "-" if t.previous_resigned is None else f"{t.previous_resigned:.1f}"
            lines.append(f"| {t.at:.1f} | {t.epoch} | {t.controller} | {t.previous} | "
                         f"{resigned} | {len(t.stale_applied)} | {len(t.stale_refused)} |")
    if result.stalls:
        lines += ["", "## Stalls", "",
                  "The longest time one partition of the numbered records went without an "
                  "acknowledgement, in a stall that began during the fault or up to 10 s "
                  "after it (before the next fault).", "",
                  "| fault at (s) | kind | on | longest stall | partition | limit |",
                  "|---|---|---|---|---|---|"]
        for st in result.stalls:
            where = "-" if st.tp is None else f"{st.tp[0]}-{st.tp[1]}"
            limit = "-" if st.limit is None else f"{st.limit:.1f} s"
            lines.append(f"| {st.fault.started:.1f} | {st.fault.kind} | {st.fault.victim} | "
                         f"{st.gap.seconds:.2f} s | {where} | {limit} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    if NETWORK_FAULTS & set(args.faults):
        missing = network_faults_missing()
        if missing:
            print(f"network faults need {'; '.join(missing)}: run without "
                  f"{','.join(sorted(NETWORK_FAULTS & set(args.faults)))} (FAULTS=kill,freeze) "
                  "or install them", file=sys.stderr)
            return 2
    if DISK_FAULTS & set(args.faults):
        missing = disk_faults_missing()
        if missing:
            print(f"disk faults need {'; '.join(missing)}: run without disk or as root",
                  file=sys.stderr)
            return 2
    stamp = time.strftime("%Y%m%d-%H%M%S")
    args.out.mkdir(parents=True, exist_ok=True)
    run_dir = (args.out / f"run-{stamp}").resolve()
    config = ChaosConfig(duration=args.duration, seed=seed, faults=args.faults,
                         partitions=args.partitions, rate=args.rate, java=not args.no_java,
                         transactions=not args.no_transactions, offsets=not args.no_offsets)
    print(f"chaos: seed {seed}, faults {','.join(args.faults)}, {args.duration:.0f}s; "
          f"data and logs in {run_dir}", flush=True)
    with ZooKeeperServer(run_dir / "zookeeper") as zookeeper:
        result = run_chaos(config, run_dir, zookeeper.connect_string("/chaos"),
                           Endpoint("127.0.0.1", zookeeper.port), zookeeper_server=zookeeper,
                           log=lambda line: print(line, flush=True))
    print(result.summary())
    base = args.out / f"chaos-{stamp}"
    base.with_suffix(".json").write_text(json.dumps(result.to_json(), indent=2) + "\n")
    plot(result, base.with_suffix(".png"))
    base.with_suffix(".md").write_text(markdown(result, base.with_suffix(".png").name))
    print(f"report: {base}.md, {base}.json, {base}.png")
    return 0 if result.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
