"""``pybroker serve [--config server.properties] [--override key=value ...]``, in the manner of
Kafka's ``kafka-server-start.sh``."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from pybroker.config import BrokerConfig


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pybroker", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run a broker until SIGINT/SIGTERM")
    serve.add_argument("--config", metavar="FILE", help="a server.properties file")
    serve.add_argument("--override", metavar="KEY=VALUE", action="append", default=[],
                       help="set a property, overriding the file (repeatable)")
    serve.add_argument("--log-level", default="INFO",
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level,
                        format="[%(asctime)s] %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    log = logging.getLogger("pybroker")
    try:
        config = BrokerConfig.load(args.config, args.override)
    except (OSError, ValueError) as e:
        log.error("cannot read the configuration: %s", e)
        return 2

    from pybroker.broker import Broker, BrokerBase, ConfigError
    from pybroker.log.manager import LogDirError

    try:
        broker: BrokerBase
        if config.zookeeper_connect:
            from pybroker.zk_broker import ZkBroker

            broker = ZkBroker(config)
        else:
            broker = Broker(config)
        asyncio.run(broker.run_until_signal())
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
