"""A SASL listener's settings from the broker's properties, with Kafka's names and precedence.

A listener's own setting (``listener.name.<listener>.<property>``, the listener in lower case;
for JAAS and re-authentication ``listener.name.<listener>.<mechanism>.<property>``) comes before
the broker-wide property.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from pybroker.security.jaas import JaasConfigError, parse_jaas_config, plain_users
from pybroker.security.plain import users_check
from pybroker.security.sasl import (
    GSSAPI,
    PLAIN,
    SUPPORTED_MECHANISMS,
    SaslServerSettings,
)
from pybroker.security.scram import CredentialLookup

log = logging.getLogger(__name__)

def listener_property(props: Mapping[str, str], listener: str, name: str,
                      mechanism: str | None = None) -> str | None:
    """A property as the listener sees it: its own, for the mechanism when given, else the
    broker's."""
    prefix = f"listener.name.{listener.lower()}."
    keys = ([f"{prefix}{mechanism.lower()}.{name}"] if mechanism else []) + [
        f"{prefix}{name}", name]
    for key in keys:
        value = props.get(key)
        if value is not None:
            return value
    return None


def jaas_config(props: Mapping[str, str], listener: str, mechanism: str) -> str | None:
    return listener_property(props, listener, "sasl.jaas.config", mechanism)


def enabled_mechanisms(props: Mapping[str, str], listener: str) -> tuple[str, ...]:
    value = listener_property(props, listener, "sasl.enabled.mechanisms")
    if value is None:
        value = GSSAPI
    return tuple(m.strip() for m in value.split(",") if m.strip())


def sasl_server_settings(props: Mapping[str, str], listener: str,
                         scram_lookup: CredentialLookup) -> SaslServerSettings:
    enabled = enabled_mechanisms(props, listener)
    unsupported = [m for m in enabled if m not in SUPPORTED_MECHANISMS]
    if unsupported:
        log.warning("listener %s: SASL mechanism(s) %s are not supported here; clients are "
                    "offered %s", listener, ", ".join(unsupported),
                    ", ".join(m for m in enabled if m in SUPPORTED_MECHANISMS) or "none")
    plain = None
    if PLAIN in enabled:
        text = jaas_config(props, listener, PLAIN)
        users: dict[str, str] = {}
        if text:
            try:
                users = plain_users(parse_jaas_config(text))
            except JaasConfigError as e:
                raise ValueError(f"listener {listener}: invalid sasl.jaas.config for PLAIN: {e}"
                                 ) from e
        if not users:
            log.warning("listener %s: PLAIN is enabled but its JAAS configuration names no "
                        "users (user_<name>=\"<password>\")", listener)
        plain = users_check(users)
    reauth = {}
    for mechanism in enabled:
        value = listener_property(props, listener, "connections.max.reauth.ms", mechanism)
        reauth[mechanism] = int(value) if value else 0
    delay = props.get("connection.failed.authentication.delay.ms")
    receive = props.get("sasl.server.max.receive.size")
    return SaslServerSettings(enabled, plain, scram_lookup, reauth,
                              int(delay) if delay else 100,
                              int(receive) if receive else 524288)
