"""The client side of SASL, for this broker's own connections to other brokers on a
SASL_PLAINTEXT or SASL_SSL inter-broker listener: the mechanism
(``sasl.mechanism.inter.broker.protocol``) and the ``username``/``password`` of the
listener's JAAS configuration for it, as Kafka's brokers log in to each other."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pybroker.security.jaas import JaasConfigError, login_credentials, parse_jaas_config
from pybroker.security.plain import plain_message
from pybroker.security.sasl import PLAIN
from pybroker.security.sasl_config import jaas_config
from pybroker.security.sasl_errors import SaslFailure
from pybroker.security.scram import MECHANISMS, ScramClient


@dataclass(frozen=True, slots=True)
class SaslClientCredentials:
    mechanism: str
    username: str
    password: str
    #: SCRAM with a delegation token (the token id as username, its HMAC as password)
    token_auth: bool = False

    def exchange(self) -> SaslClientExchange:
        return SaslClientExchange(self)


class SaslClientExchange:
    """One authentication: :meth:`first` token, then :meth:`respond` to each server token
    until :attr:`done`."""

    def __init__(self, credentials: SaslClientCredentials) -> None:
        self.credentials = credentials
        self.done = False
        self._scram: ScramClient | None = None
        self._step = 0

    def first(self) -> bytes:
        c = self.credentials
        if c.mechanism == PLAIN:
            return plain_message(c.username, c.password)
        self._scram = ScramClient(MECHANISMS[c.mechanism], c.username, c.password,
                                  token_auth=c.token_auth)
        return self._scram.first()

    def respond(self, server_token: bytes) -> bytes | None:
        """The next token (None: the exchange is over; SaslFailure when the server's answer
        is wrong)."""
        if self._scram is None:  # PLAIN: one message, an empty answer
            self.done = True
            return None
        self._step += 1
        if self._step == 1:
            return self._scram.final(server_token)
        self._scram.verify(server_token)
        self.done = True
        return None


def inter_broker_credentials(props: Mapping[str, str], listener: str,
                             protocol: str) -> SaslClientCredentials | None:
    """How this broker authenticates to the others on ``listener`` (None unless its protocol is
    SASL_*); ValueError when the configuration does not say."""
    if protocol not in ("SASL_PLAINTEXT", "SASL_SSL"):
        return None
    mechanism = props.get("sasl.mechanism.inter.broker.protocol") or "GSSAPI"
    if mechanism != PLAIN and mechanism not in MECHANISMS:
        raise ValueError(f"sasl.mechanism.inter.broker.protocol {mechanism} is not supported: "
                         f"use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
    text = jaas_config(props, listener, mechanism)
    try:
        login = login_credentials(parse_jaas_config(text)) if text else None
    except JaasConfigError as e:
        raise ValueError(f"listener {listener}: invalid sasl.jaas.config for {mechanism}: {e}"
                         ) from e
    if login is None:
        raise ValueError(f"listener {listener}: the inter-broker listener's sasl.jaas.config for "
                         f"{mechanism} has no username and password to log in with")
    return SaslClientCredentials(mechanism, *login)


__all__ = ["SaslClientCredentials", "SaslClientExchange", "SaslFailure",
           "inter_broker_credentials"]
