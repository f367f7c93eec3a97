"""``pybroker serve [--config server.properties] [--from-env] [--override key=value ...]``, in
the manner of Kafka's ``kafka-server-start.sh``; ``pybroker healthcheck`` (is a broker serving?)
and ``pybroker env-properties`` (the properties the ``KAFKA_*`` environment variables set), for
the container image; ``pybroker compat --bootstrap host:port`` (the compatibility suite against
any broker, :mod:`pybroker.compat`, imported only for that command); ``pybroker
state-change-log merge`` (brokers' state-change logs as one history,
:mod:`pybroker.tools.state_change_merge`); ``pybroker console --cluster name=host:port`` (the
web console, :mod:`pybroker.console`, a process of its own)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from pybroker.config import BrokerConfig


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pybroker", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run a broker until SIGINT/SIGTERM")
    serve.add_argument("--config", metavar="FILE", help="a server.properties file")
    serve.add_argument("--from-env", action="store_true",
                       help="take properties from KAFKA_* environment variables (KAFKA_BROKER_ID "
                            "sets broker.id; _ is ., __ is _, ___ is -), over the file")
    serve.add_argument("--override", metavar="KEY=VALUE", action="append", default=[],
                       help="set a property, overriding the file and the environment "
                            "(repeatable)")
    serve.add_argument("--log-level", default="INFO",
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    health = sub.add_parser("healthcheck", help="exit 0 if a broker answers ApiVersions")
    health.add_argument("--bootstrap", metavar="HOST:PORT",
                        help="the broker (default: the first listener of KAFKA_LISTENERS on "
                             "127.0.0.1, else 127.0.0.1:9092)")
    health.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS")
    sub.add_parser("env-properties",
                   help="print the server.properties the KAFKA_* environment variables set")
    scl = sub.add_parser("state-change-log", help="work with brokers' state-change logs")
    scl_sub = scl.add_subparsers(dest="state_change_command", required=True)
    from pybroker.tools.state_change_merge import add_arguments

    add_arguments(scl_sub.add_parser(
        "merge", help="merge the state-change logs of several brokers into one time-ordered "
                      "history (Kafka's StateChangeLogMerger)"))
    console = sub.add_parser(
        "console", help="serve the web console for one or more clusters")
    console.add_argument("--cluster", metavar="NAME=BOOTSTRAP", action="append", default=[],
                         help="a cluster to show: its name and bootstrap servers "
                              "(host:port[,host:port...]); repeatable")
    console.add_argument("--metrics", metavar="NAME=URL", action="append", default=[],
                         help="a cluster's brokers' Prometheus endpoints, for its charts "
                              "(http://host:port/metrics[,...]); repeatable")
    console.add_argument("--metrics-interval", metavar="SECONDS", type=float,
                         help="seconds between scrapes of the metrics endpoints (default 5)")
    console.add_argument("--config", metavar="FILE",
                         help="a TOML file of clusters (with security settings and metrics "
                              "endpoints), listen address, read-only mode and basic "
                              "authentication (docs/console.md)")
    console.add_argument("--listen", metavar="HOST:PORT",
                         help="where to serve (default: 127.0.0.1:8080)")
    console.add_argument("--read-only", action="store_true",
                         help="show everything, change nothing (no action is served)")
    console.add_argument("--log-level", default="INFO",
                         choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    compat = sub.add_parser(
        "compat", add_help=False,
        help="run the compatibility suite against a broker and write its report card "
             "(pybroker compat --help)")
    compat.add_argument("compat_args", nargs=argparse.REMAINDER)
    return parser


def healthcheck(args: argparse.Namespace) -> int:
    from pybroker.healthcheck import Unhealthy, bootstrap_from_env, check

    bootstrap = args.bootstrap or bootstrap_from_env(os.environ)
    try:
        apis = check(bootstrap, args.timeout)
    except Unhealthy as e:
        print(f"unhealthy: {e}", file=sys.stderr)
        return 1
    print(f"healthy: {bootstrap} serves {apis} APIs")
    return 0


def console(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pybroker.console.server import serve
    from pybroker.console.settings import SettingsError, settings_from

    logging.basicConfig(level=args.log_level,
                        format="[%(asctime)s] %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    try:
        settings = settings_from(Path(args.config) if args.config else None, args.cluster,
                                 args.listen, args.read_only, args.metrics,
                                 args.metrics_interval)
    except SettingsError as e:
        print(f"pybroker console: {e}", file=sys.stderr)
        return 2
    try:
        serve(settings)
    except KeyboardInterrupt:
        pass
    return 0


def env_properties() -> int:
    from pybroker.config.environment import properties_from_env, render_properties

    sys.stdout.write(render_properties(properties_from_env(os.environ)))
    return 0


#: the state-change log's file and its rotation: a new file at this size, this many kept
STATE_CHANGE_LOG = "state-change.log"
STATE_CHANGE_LOG_MAX_BYTES = 100 * 1024 * 1024
STATE_CHANGE_LOG_BACKUPS = 10


def add_state_change_log(log_dir: str, log: logging.Logger) -> None:
    """Write the ``pybroker.state.change`` logger's lines to ``<log_dir>/state-change.log`` as
    well, in Kafka's format (``[%d] %p %m (%c)%n`` with logger ``state.change.logger``), rotated
    by size: what ``kafka-run-class.sh`` does for ``LOG_DIR``, which this takes from the
    environment too (default: ``logs`` in the working directory)."""
    from logging.handlers import RotatingFileHandler

    try:
        os.makedirs(log_dir, exist_ok=True)
        handler = RotatingFileHandler(os.path.join(log_dir, STATE_CHANGE_LOG),
                                      maxBytes=STATE_CHANGE_LOG_MAX_BYTES,
                                      backupCount=STATE_CHANGE_LOG_BACKUPS)
    except OSError as e:
        log.warning("no state-change log: %s", e)
        return
    handler.setFormatter(logging.Formatter(
        "[%(asctime)s] %(levelname)s %(message)s (state.change.logger)"))
    handler.setLevel(logging.INFO)
    logging.getLogger("pybroker.state.change").addHandler(handler)


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given[:1] == ["compat"]:
        # the suite's own parser reads its arguments (and --help); the broker never loads it
        from pybroker.compat.cli import main as compat_main

        return compat_main(given[1:])
    args = build_parser().parse_args(argv)
    if args.command == "healthcheck":
        return healthcheck(args)
    if args.command == "env-properties":
        return env_properties()
    if args.command == "state-change-log":
        from pybroker.tools.state_change_merge import run

        return run(args)
    if args.command == "console":
        return console(args)
    logging.basicConfig(level=args.log_level,
                        format="[%(asctime)s] %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    log = logging.getLogger("pybroker")
    add_state_change_log(os.environ.get("LOG_DIR") or "logs", log)
    try:
        overrides = list(args.override)
        if args.from_env:
            from pybroker.config.environment import properties_from_env

            from_env = properties_from_env(os.environ)
            log.info("configuration from the environment: %s",
                     ", ".join(f"{k}={v}" for k, v in from_env.items()) or "none")
            overrides = [f"{k}={v}" for k, v in from_env.items()] + overrides
        config = BrokerConfig.load(args.config, overrides)
    except (OSError, ValueError) as e:
        log.error("cannot read the configuration: %s", e)
        return 2

    from pybroker.broker import BrokerBase, ConfigError
    from pybroker.log.manager import LogDirError
    from pybroker.modes.embedded.broker import Broker
    from pybroker.network.heap import keep_large_buffers_on_heap

    keep_large_buffers_on_heap()

    try:
        broker: BrokerBase
        if config.zookeeper_connect:
            from pybroker.modes.zookeeper.broker import ZkBroker

            broker = ZkBroker(config)
        else:
            broker = Broker(config)
        with asyncio.Runner() as runner:
            runner.run(broker.run_until_signal())
    except (ConfigError, LogDirError) as e:
        log.error("%s", e)
        return 2
    except OSError as e:
        log.error("%s", e)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
