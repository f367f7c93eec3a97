"""Listeners' security protocols and the inter-broker listener, checked as Kafka checks them."""

from __future__ import annotations

import asyncio

import pytest

from pybroker.broker import ConfigError
from pybroker.config import BrokerConfig, ConfigException
from pybroker.config.listeners import parse_security_protocol_map
from pybroker.modes.embedded.broker import Broker


def config(**props: str) -> BrokerConfig:
    return BrokerConfig.from_dict({k.replace("_", "."): v for k, v in props.items()})


def refusal(cfg: BrokerConfig) -> str:
    with pytest.raises(ConfigException) as e:
        cfg.check_listeners()
    return str(e.value.message)


def test_kafkas_default_map_names_each_protocol_after_itself() -> None:
    cfg = config(listeners="PLAINTEXT://:9092,SSL://:9093,SASL_SSL://:9094,SASL_PLAINTEXT://:9095")
    assert [cfg.security_protocol(e.listener) for e in cfg.listeners] == [
        "PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT"]
    cfg.check_listeners()
    assert cfg.inter_broker_listener == ("PLAINTEXT", "PLAINTEXT")


def test_the_map_names_listeners_case_insensitively() -> None:
    assert parse_security_protocol_map("internal:PLAINTEXT, External:SSL") == {
        "INTERNAL": "PLAINTEXT", "EXTERNAL": "SSL"}
    with pytest.raises(ConfigException) as e:
        parse_security_protocol_map("INTERNAL:TLS")
    assert e.value.message == (
        "Invalid security protocol `TLS` defined in listener.security.protocol.map")


def test_a_listener_missing_from_the_map_is_refused_with_kafkas_message() -> None:
    assert refusal(config(listeners="PLAINTEXT://:9092,FOO://:9093")) == (
        "Error creating broker listeners from 'PLAINTEXT://:9092,FOO://:9093': No security "
        "protocol defined for listener FOO")
    assert refusal(config(listeners="PLAINTEXT://:9092",
                          advertised_listeners="PLAINTEXT://h:9092,BAR://h:9093")) == (
        "Error creating broker listeners from 'PLAINTEXT://h:9092,BAR://h:9093': No security "
        "protocol defined for listener BAR")


def test_the_inter_broker_listener_as_kafka_decides_it() -> None:
    both = config(listeners="INTERNAL://:9092,EXTERNAL://:9093",
                  listener_security_protocol_map="INTERNAL:SSL,EXTERNAL:SASL_SSL",
                  inter_broker_listener_name="internal")
    assert both.inter_broker_listener == ("INTERNAL", "SSL")
    both.check_listeners()
    ssl_only = config(listeners="SSL://:9093", security_inter_broker_protocol="SSL")
    assert ssl_only.inter_broker_listener == ("SSL", "SSL")
    ssl_only.check_listeners()
    # the default is the PLAINTEXT listener, which this broker does not have
    assert refusal(config(listeners="SSL://:9093")) == (
        "requirement failed: inter.broker.listener.name must be a listener name defined in "
        "advertised.listeners. The valid options based on currently configured listeners are SSL")
    assert refusal(config(listeners="SSL://:9093", inter_broker_listener_name="SSL",
                          security_inter_broker_protocol="SSL")) == (
        "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.")
    assert refusal(config(listeners="PLAINTEXT://:9092", inter_broker_listener_name="OTHER")) == (
        "Listener with name OTHER defined in inter.broker.listener.name not found in "
        "listener.security.protocol.map.")


def test_a_broker_does_not_start_with_a_listener_without_a_protocol(tmp_path) -> None:
    with pytest.raises(ConfigError, match="No security protocol defined for listener FOO"):
        Broker(config(listeners="PLAINTEXT://127.0.0.1:0,FOO://127.0.0.1:0",
                      log_dirs=str(tmp_path)))


def test_connections_know_their_listeners_protocol(tmp_path) -> None:
    async def main() -> None:
        broker = Broker(config(
            listeners="PLAINTEXT://127.0.0.1:0,CLIENT://127.0.0.1:0",
            listener_security_protocol_map="PLAINTEXT:PLAINTEXT,CLIENT:SASL_PLAINTEXT",
            log_dirs=str(tmp_path)))
        await broker.start()
        try:
            server = broker.socket_server
            assert {n: s.protocol for n, s in server.listener_security.items()} == {
                "PLAINTEXT": "PLAINTEXT", "CLIENT": "SASL_PLAINTEXT"}
            port = next(p for name, _, p in server.bound if name == "CLIENT")
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(100):
                if server.connections:
                    break
                await asyncio.sleep(0.01)
            [conn] = server.connections
            assert (conn.listener, conn.security_protocol) == ("CLIENT", "SASL_PLAINTEXT")
            writer.close()
        finally:
            await broker.stop()

    asyncio.run(main())


def test_a_listeners_own_settings_survive_a_dynamic_change() -> None:
    from pybroker.config.dynamic import EffectiveBrokerConfig

    built = EffectiveBrokerConfig.build({"listeners": "PLAINTEXT://:9092",
                                         "listener.name.secure.ssl.client.auth": "required",
                                         "log.retention.ms": "1000"})
    assert built.config.props["listener.name.secure.ssl.client.auth"] == "required"


def test_a_tls_listener_that_cannot_be_served_stops_the_broker(tmp_path) -> None:
    with pytest.raises(ConfigError, match="Listener SSL runs over TLS but has no key store"):
        Broker(config(listeners="PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                      log_dirs=str(tmp_path)))
    broker = Broker(config(listeners="PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                           log_dirs=str(tmp_path / "b"),
                           **{"ssl.keystore.type": "PEM",
                              "ssl.keystore.location": str(tmp_path / "missing.pem")}))

    async def main() -> None:
        try:
            await broker.start()
        finally:
            await broker.stop()

    with pytest.raises(ConfigError, match="Failed to load SSL keystore"):
        asyncio.run(main())
