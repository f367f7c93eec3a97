"""``pybroker compat --bootstrap host:port``: run the compatibility suite against a broker and
write its report card (``--report DIR``: report.json, report.html, report.md).

Exit status: 0 when no scenario failed against the broker, 1 when one did, 2 when the suite
could not run (bad arguments, the reference Kafka would not start), 130 on Ctrl-C (after the
run's topics and groups are deleted).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from pybroker.compat.capabilities import CAPABILITIES
from pybroker.compat.clients import CLIENTS
from pybroker.compat.report import SYMBOL, summary, write_report
from pybroker.compat.runner import Result, run_suite
from pybroker.compat.scenario import Scenario, load_scenarios
from pybroker.compat.security import MECHANISMS, PROTOCOLS, ClientSecurity


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
    secured = parser.add_argument_group(
        "secured brokers", "how every client, the probe and the cleanup connect (Kafka's client "
        "properties of the same names; docs/compat-suite.md)")
    secured.add_argument("--security-protocol", choices=PROTOCOLS, default="PLAINTEXT",
                         help="security.protocol (default PLAINTEXT)")
    secured.add_argument("--sasl-mechanism", choices=MECHANISMS, default="PLAIN",
                         help="sasl.mechanism the clients log in with (default PLAIN); the "
                              "sasl-plain and sasl-scram scenarios use their own")
    secured.add_argument("--sasl-username", metavar="USER", help="the SASL user")
    secured.add_argument("--sasl-password", metavar="PASSWORD",
                         help="its password (or the environment's PYBROKER_COMPAT_SASL_PASSWORD)")
    secured.add_argument("--ssl-cafile", metavar="FILE", type=Path,
                         help="ssl.truststore as a PEM file: the CA certificates the broker's "
                              "certificate is checked against (default: the system's)")
    secured.add_argument("--client-property", action="append", default=[], metavar="K=V",
                         help="a Kafka client property for the Java clients, the CLI tools, "
                              "Spark and confluent-kafka (repeatable)")
    return parser


def security_from_args(args: argparse.Namespace) -> ClientSecurity:
    """The :class:`ClientSecurity` the secured-broker options describe (ValueError if wrong)."""
    password = args.sasl_password
    if password is None and args.sasl_username is not None:
        password = os.environ.get("PYBROKER_COMPAT_SASL_PASSWORD")
    properties = []
    for item in args.client_property:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--client-property takes KEY=VALUE, not {item!r}")
        properties.append((key.strip(), value))
    if args.sasl_username is not None and not args.security_protocol.startswith("SASL_"):
        raise ValueError("--sasl-username needs --security-protocol SASL_PLAINTEXT or SASL_SSL")
    return ClientSecurity(
        protocol=args.security_protocol, mechanism=args.sasl_mechanism,
        username=args.sasl_username, password=password,
        cafile=str(args.ssl_cafile.resolve()) if args.ssl_cafile else None,
        properties=tuple(properties))


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
    try:
        security = security_from_args(args)
    except ValueError as e:
        parser.error(str(e))
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
                        jobs=args.jobs, on_result=_progress, group_wait=args.group_wait,
                        security=security,
                        # the reference started here has no security of its own
                        reference_security=ClientSecurity() if reference is not None else None)
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
