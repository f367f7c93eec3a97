"""A SASL listener's settings from the broker's properties, with Kafka's names and precedence.

A listener's own setting (``listener.name.<listener>.<property>``, the listener in lower case;
for JAAS and re-authentication ``listener.name.<listener>.<mechanism>.<property>``) comes before
the broker-wide property.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from pybroker.config.catalogue import BROKER_CONFIGS
from pybroker.security.jaas import JaasConfigError, parse_jaas_config, plain_users
from pybroker.security.oauthbearer import (
    JWT_VALIDATOR_CLASSES,
    OAUTHBEARER_LOGIN_MODULE,
    UNSECURED_VALIDATOR_CLASS,
    TokenValidator,
    UnsecuredValidator,
)
from pybroker.security.oauthbearer_jwt import JwtValidator, jwks_source
from pybroker.security.plain import users_check
from pybroker.security.sasl import (
    GSSAPI,
    OAUTHBEARER,
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
    oauth = oauth_validator(props, listener) if OAUTHBEARER in enabled else None
    return SaslServerSettings(enabled, plain, scram_lookup, reauth,
                              int(delay) if delay else 100,
                              int(receive) if receive else 524288,
                              oauth_validator=oauth)


#: how long setting up a listener at start-up waits for its first JWKS fetch
JWKS_START_WAIT_S = 30.0


def _oauth_property(props: Mapping[str, str], listener: str, name: str) -> str | None:
    """An OAUTHBEARER validator setting: the listener's for the mechanism, the listener's, the
    broker's, else the catalogue's default (Kafka's ``ConfigurationUtils``)."""
    value = listener_property(props, listener, name, OAUTHBEARER)
    if value is None:
        default = BROKER_CONFIGS[name].default
        if isinstance(default, list):
            return ",".join(default)
        return None if default is None else str(default)
    value = value.strip()
    return value or None


def _oauth_number(props: Mapping[str, str], listener: str, name: str) -> int:
    value = _oauth_property(props, listener, name)
    try:
        return int(value) if value is not None else 0
    except ValueError as e:
        raise ValueError(f"listener {listener}: invalid {name}: {value!r}") from e


def oauth_validator(props: Mapping[str, str], listener: str) -> TokenValidator:
    """The listener's OAUTHBEARER validator: the one
    ``listener.name.<l>.oauthbearer.sasl.server.callback.handler.class`` names (Kafka's
    unsecured validator when none), configured as Kafka configures it (ValueError when it
    cannot be)."""
    handler = props.get(f"listener.name.{listener.lower()}.oauthbearer."
                        f"sasl.server.callback.handler.class", "").strip()
    if handler in ("", UNSECURED_VALIDATOR_CLASS):
        options: dict[str, str] = {}
        text = jaas_config(props, listener, OAUTHBEARER)
        if text:
            try:
                modules = parse_jaas_config(text)
            except JaasConfigError as e:
                raise ValueError(f"listener {listener}: invalid sasl.jaas.config for "
                                 f"OAUTHBEARER: {e}") from e
            chosen = [m for m in modules if m.class_name == OAUTHBEARER_LOGIN_MODULE]
            options = (chosen or modules)[0].options
        try:
            return UnsecuredValidator.from_options(options)
        except ValueError as e:
            raise ValueError(f"listener {listener}: OAUTHBEARER: {e}") from e
    if handler not in JWT_VALIDATOR_CLASSES:
        raise ValueError(f"listener {listener}: sasl.server.callback.handler.class {handler} "
                         f"cannot be loaded here; OAUTHBEARER takes "
                         f"{UNSECURED_VALIDATOR_CLASS} or {JWT_VALIDATOR_CLASSES[0]}")
    url = _oauth_property(props, listener, "sasl.oauthbearer.jwks.endpoint.url")
    if url is None:
        raise ValueError("The OAuth configuration option sasl.oauthbearer.jwks.endpoint.url "
                         "value must be non-null")
    try:
        on_loop = asyncio.get_running_loop() is not None
    except RuntimeError:
        on_loop = False
    source = jwks_source(
        url, _oauth_number(props, listener, "sasl.oauthbearer.jwks.endpoint.refresh.ms"),
        _oauth_number(props, listener, "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms"),
        _oauth_number(props, listener, "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms"),
        # set up on the event loop (a listener added at run time): its thread fetches the
        # keys meanwhile and tokens are refused until it has
        wait_s=None if on_loop else JWKS_START_WAIT_S)
    audience = _oauth_property(props, listener, "sasl.oauthbearer.expected.audience")
    audiences = frozenset(a.strip() for a in audience.split(",") if a.strip()) \
        if audience else None
    return JwtValidator(
        source, _oauth_number(props, listener, "sasl.oauthbearer.clock.skew.seconds"),
        audiences, _oauth_property(props, listener, "sasl.oauthbearer.expected.issuer"),
        _oauth_property(props, listener, "sasl.oauthbearer.scope.claim.name") or "scope",
        _oauth_property(props, listener, "sasl.oauthbearer.sub.claim.name") or "sub")
