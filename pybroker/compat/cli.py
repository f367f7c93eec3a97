"""``pybroker compat --bootstrap host:port``: run the compatibility suite against a broker and
write its report card (``--report DIR``: report.json, report.html, report.md).

Exit status: 0 when no scenario failed against the broker, 1 when one did, 2 when the suite
could not run (bad arguments, the reference Kafka would not start), 130 on Ctrl-C (after the
run's topics and groups are deleted).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from pybroker.compat.capabilities import CAPABILITIES
from pybroker.compat.clients import CLIENTS
from pybroker.compat.report import SYMBOL, summary, write_report
from pybroker.compat.runner import Result, run_suite
from pybroker.compat.scenario import Scenario, load_scenarios


def _csv(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pybroker compat", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", metavar="HOST:PORT",
                        help="the broker to test (the only address the suite talks to, with the "
                             "brokers its Metadata names)")
    parser.add_argument("--report", metavar="DIR", type=Path, default=Path("compat-report"),
                        help="where to write the report card (default: ./compat-report)")
    parser.add_argument("--reference", action="store_true",
                        help="also run every scenario against Apache Kafka 3.9, started here "
                             "from .cache/kafka-tools (java needed), and show both")
    parser.add_argument("--reference-bootstrap", metavar="HOST:PORT",
                        help="like --reference, with a Kafka 3.9 that is already running")
    parser.add_argument("--clients", type=_csv, default=None, metavar="A,B",
                        help="only these clients: " + ", ".join(CLIENTS))
    parser.add_argument("--capabilities", type=_csv, default=None, metavar="A,B",
                        help="only these capabilities: " + ", ".join(CAPABILITIES))
    parser.add_argument("--scenarios", type=_csv, default=None, metavar="ID,ID",
                        help="only these scenarios (client/name, as --list shows)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="scenarios run at once (default 2)")
    parser.add_argument("--name", default="broker", help="the broker's name in the card")
    parser.add_argument("--group-wait", type=float, default=50.0, metavar="SECONDS",
                        help="how long cleanup waits for groups a killed scenario left members "
                             "in (default 50, above Kafka's 45 s session timeout)")
    parser.add_argument("--scenario-module", action="append", default=[], metavar="MODULE",
                        help="also load the scenarios of this importable module (repeatable; "
                             "docs/compat-suite.md: adding a scenario)")
    parser.add_argument("--list", action="store_true", help="list the scenarios and exit")
    return parser


def select(scenarios: list[Scenario], clients: list[str] | None,
           capabilities: list[str] | None, ids: list[str] | None) -> list[Scenario]:
    for given, known, what in ((clients, CLIENTS, "client"),
                               (capabilities, CAPABILITIES, "capability")):
        for name in given or []:
            if name not in known:
                raise ValueError(f"unknown {what} {name!r}")
    chosen = [s for s in scenarios
              if (clients is None or s.client in clients)
              and (capabilities is None or s.capability in capabilities)
              and (ids is None or s.id in ids)]
    if ids:
        unknown = set(ids) - {s.id for s in scenarios}
        if unknown:
            raise ValueError(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    return chosen


def _progress(target: str, r: Result) -> None:
    line = f"{SYMBOL.get(r.status, '?')} {target:<9} {r.scenario:<40} {r.status:<11} {r.seconds:6.2f}s"
    if r.message and r.status != "pass":
        line += "  " + " ".join(r.message.split())[:160]
    print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    load_scenarios()
    try:
        registry = list(load_scenarios(args.scenario_module).values())
    except ImportError as e:
        parser.error(f"cannot import a scenario module: {e}")
    try:
        chosen = select(registry, args.clients, args.capabilities, args.scenarios)
    except ValueError as e:
        parser.error(str(e))
    if args.list:
        for s in chosen:
            print(f"{s.id:<40} {s.capability:<16} {s.timeout:>4g}s  {s.description}")
        return 0
    if not args.bootstrap:
        parser.error("--bootstrap is required")
    reference = None
    reference_bootstrap = args.reference_bootstrap
    work = Path(tempfile.mkdtemp(prefix="pybroker-compat-"))
    try:
        if args.reference and not reference_bootstrap:
            from pybroker.compat.reference_process import ReferenceProcess

            print("starting the reference Kafka 3.9 ...", file=sys.stderr, flush=True)
            reference = ReferenceProcess(work / "reference-kafka")
            try:
                reference_bootstrap = reference.start()
            except RuntimeError as e:
                print(str(e), file=sys.stderr)
                return 2
        run = run_suite(args.bootstrap, chosen, name=args.name,
                        reference_bootstrap=reference_bootstrap, work_dir=work / "scenarios",
                        jobs=args.jobs, on_result=_progress, group_wait=args.group_wait)
    except KeyboardInterrupt:
        print("interrupted: the run's topics and groups were deleted", file=sys.stderr)
        return 130
    finally:
        if reference is not None:
            reference.stop()
    card = run.to_json()
    paths = write_report(card, args.report)
    print(summary(card), file=sys.stderr)
    if card["reference"]:
        print("reference: " + summary({**card, "target": card["reference"]}), file=sys.stderr)
    print("report card: " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return 1 if run.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
