"""How the suite connects to a secured broker: the security protocol, the SASL mechanism and
credentials, the CA certificates, and extra client properties, given once on the command line
(``--security-protocol``, ``--sasl-mechanism``, ``--sasl-username``, ``--sasl-password``,
``--ssl-cafile``, ``--client-property``; Kafka's client property names) and carried to every
client the same way: :class:`ClientSecurity` turns them into each library's settings, and
:func:`secure` authenticates the suite's own raw connections (the ApiVersions probe, topic
creation, cleanup, ``wire`` scenarios).

The SASL client side here (PLAIN, RFC 4616; SCRAM-SHA-256/512, RFC 5802 and 7677) is the
suite's own: the suite knows a broker only over the protocol and imports nothing of pybroker's
broker side.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, sasl_authenticate_request, sasl_handshake_request

PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


class AuthenticationError(Exception):
    """The broker refused the credentials; ``error_code`` is Kafka's code for why."""

    def __init__(self, message: str, error_code: int) -> None:
        super().__init__(message)
        self.error_code = error_code


@dataclass(frozen=True)
class ClientSecurity:
    """What every client of a run connects with (the defaults: anonymous PLAINTEXT)."""

    protocol: str = "PLAINTEXT"
    mechanism: str = "PLAIN"
    username: str | None = None
    password: str | None = None
    cafile: str | None = None
    #: Kafka client properties (``k=v`` of ``--client-property``), given to the clients that
    #: take Kafka's property names (the Java clients, the CLI tools, Spark, confluent-kafka)
    properties: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown security protocol {self.protocol!r}: "
                             + ", ".join(PROTOCOLS))
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"unknown SASL mechanism {self.mechanism!r}: "
                             + ", ".join(MECHANISMS))
        if (self.username is None) != (self.password is None):
            raise ValueError("give both a SASL username and a password, or neither")

    @property
    def sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def credentials(self) -> bool:
        """SASL credentials were given."""
        return self.username is not None

    def with_sasl(self, mechanism: str | None = None, password: str | None = None,
                  ) -> ClientSecurity:
        """The same settings with another mechanism or password (for the SASL scenarios)."""
        return replace(self, mechanism=mechanism or self.mechanism,
                       password=self.password if password is None else password)

    # -- carried to the scenarios' processes -------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "mechanism": self.mechanism,
                "username": self.username, "password": self.password, "cafile": self.cafile,
                "properties": [list(p) for p in self.properties]}

    def describe(self) -> str:
        """How the run connected, for the card (never the password)."""
        text = self.protocol
        if self.sasl:
            text += f", {self.mechanism} as {self.username}" if self.credentials else \
                f", {self.mechanism} without credentials"
        if self.tls:
            text += f", CA certificates from {self.cafile}" if self.cafile else \
                ", the system's CA certificates"
        if self.properties:
            text += ", client properties " + ", ".join(k for k, _ in self.properties)
        return text

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> ClientSecurity:
        if not data:
            return cls()
        return cls(protocol=data["protocol"], mechanism=data["mechanism"],
                   username=data["username"], password=data["password"], cafile=data["cafile"],
                   properties=tuple((str(k), str(v)) for k, v in data["properties"]))

    # -- each library's settings -------------------------------------------------------------

    def ssl_context(self) -> ssl.SSLContext:
        """Verifies the broker against ``cafile`` (else the system's CAs), host name included."""
        return ssl.create_default_context(cafile=self.cafile)

    def kafka_python(self) -> dict[str, Any]:
        """Keyword arguments for kafka-python's producer, consumer and admin client."""
        if self.protocol == "PLAINTEXT":
            return {}
        out: dict[str, Any] = {"security_protocol": self.protocol}
        if self.tls:
            out["ssl_context"] = self.ssl_context()
        if self.sasl:
            out.update(sasl_mechanism=self.mechanism, sasl_plain_username=self.username,
                       sasl_plain_password=self.password)
        return out

    def aiokafka(self) -> dict[str, Any]:
        """Keyword arguments for aiokafka's producer, consumer and admin client: the same names
        as kafka-python's."""
        return self.kafka_python()

    def java_properties(self) -> dict[str, str]:
        """The Java clients' properties (also the CLI tools' config files and Spark's
        ``kafka.*`` options), then ``--client-property`` values."""
        out: dict[str, str] = {}
        if self.protocol != "PLAINTEXT":
            out["security.protocol"] = self.protocol
        if self.tls and self.cafile:
            out.update({"ssl.truststore.type": "PEM", "ssl.truststore.location": self.cafile})
        if self.sasl:
            out["sasl.mechanism"] = self.mechanism
            if self.credentials:
                module = ("org.apache.kafka.common.security.plain.PlainLoginModule"
                          if self.mechanism == "PLAIN"
                          else "org.apache.kafka.common.security.scram.ScramLoginModule")
                out["sasl.jaas.config"] = (f'{module} required username="{_jaas(self.username)}"'
                                           f' password="{_jaas(self.password)}";')
        out.update(dict(self.properties))
        return out

    def confluent(self) -> dict[str, Any]:
        """librdkafka properties (Kafka's names) for confluent-kafka."""
        out: dict[str, Any] = {}
        if self.protocol != "PLAINTEXT":
            out["security.protocol"] = self.protocol
        if self.tls and self.cafile:
            out["ssl.ca.location"] = self.cafile
        if self.sasl:
            out["sasl.mechanism"] = self.mechanism
            if self.credentials:
                out.update({"sasl.username": self.username, "sasl.password": self.password})
        out.update(dict(self.properties))
        return out


def _jaas(value: str | None) -> str:
    """A JAAS option value inside double quotes."""
    return (value or "").replace("\\", "\\\\").replace('"', '\\"')


# -- the suite's own connections ---------------------------------------------------------------

#: sends one request on a connection and returns the broker's answer (WireConnection.call)
Call = Callable[[int, int, Any], Any]


def wrap_tls(sock: socket.socket, host: str, security: ClientSecurity) -> socket.socket:
    """``sock`` with TLS, the broker's certificate checked as clients check it."""
    return security.ssl_context().wrap_socket(sock, server_hostname=host)


def sasl_handshake(call: Call, mechanism: str) -> tuple[int, list[str]]:
    """SaslHandshake v1 for ``mechanism``: the error code and the mechanisms offered."""
    answer = call(ApiKey.SASL_HANDSHAKE, 1,
                  sasl_handshake_request.SaslHandshakeRequest(mechanism=mechanism))
    return answer.error_code, list(answer.mechanisms)


def handshake(call: Call, mechanism: str) -> list[str]:
    """SaslHandshake v1 for ``mechanism``; the mechanisms the broker offers. Raises
    AuthenticationError (UNSUPPORTED_SASL_MECHANISM) when it is not among them."""
    code, offered = sasl_handshake(call, mechanism)
    if code != ErrorCode.NONE:
        raise AuthenticationError(
            f"SaslHandshake {mechanism}: {ErrorCode(code).name} "
            f"(offered: {', '.join(offered) or 'none'})", code)
    return offered


def _exchange(call: Call, token: bytes) -> bytes:
    answer = call(ApiKey.SASL_AUTHENTICATE, 2,
                  sasl_authenticate_request.SaslAuthenticateRequest(auth_bytes=token))
    if answer.error_code != ErrorCode.NONE:
        raise AuthenticationError(
            f"SaslAuthenticate: {ErrorCode(answer.error_code).name} {answer.error_message or ''}"
            .strip(), answer.error_code)
    return bytes(answer.auth_bytes)


def authenticate(call: Call, security: ClientSecurity) -> None:
    """SaslHandshake then SaslAuthenticate with the credentials of ``security``."""
    if not security.credentials:
        raise ValueError("a SASL connection needs --sasl-username and --sasl-password")
    assert security.username is not None and security.password is not None
    handshake(call, security.mechanism)
    if security.mechanism == "PLAIN":
        _exchange(call, plain_token(security.username, security.password))
        return
    scram = ScramClient(security.mechanism, security.username, security.password)
    server_first = _exchange(call, scram.first())
    server_final = _exchange(call, scram.final(server_first))
    scram.verify(server_final)


def plain_token(username: str, password: str) -> bytes:
    """PLAIN's one message (RFC 4616): no authorisation id, the user, the password."""
    return b"\0" + username.encode() + b"\0" + password.encode()


def _saslname(name: str) -> str:
    return name.replace("=", "=3D").replace(",", "=2C")


class ScramClient:
    """The client side of a SCRAM exchange (RFC 5802) without channel binding."""

    def __init__(self, mechanism: str, username: str, password: str,
                 nonce: str | None = None) -> None:
        self.hash = _HASHES[mechanism]
        self.password = password.encode()
        self.nonce = nonce or base64.b64encode(os.urandom(24)).decode()
        self.first_bare = f"n={_saslname(username)},r={self.nonce}"
        self.auth_message = b""
        self.salted = b""

    def _hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self.hash).digest()

    def first(self) -> bytes:
        return ("n,," + self.first_bare).encode()

    def final(self, server_first: bytes) -> bytes:
        fields = dict(part.split("=", 1) for part in server_first.decode().split(","))
        nonce, salt, iterations = fields["r"], base64.b64decode(fields["s"]), int(fields["i"])
        if not nonce.startswith(self.nonce):
            raise AuthenticationError("the server's nonce does not extend ours",
                                      ErrorCode.SASL_AUTHENTICATION_FAILED)
        self.salted = hashlib.pbkdf2_hmac(self.hash, self.password, salt, iterations)
        client_key = self._hmac(self.salted, b"Client Key")
        stored_key = hashlib.new(self.hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"
        self.auth_message = ",".join((self.first_bare, server_first.decode(),
                                      without_proof)).encode()
        signature = self._hmac(stored_key, self.auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        """Check the server's signature: it knows the credential too."""
        fields = dict(part.split("=", 1) for part in server_final.decode().split(","))
        server_key = self._hmac(self.salted, b"Server Key")
        expected = base64.b64encode(self._hmac(server_key, self.auth_message)).decode()
        if fields.get("v") != expected:
            raise AuthenticationError(f"the server's SCRAM signature is wrong: {server_final!r}",
                                      ErrorCode.SASL_AUTHENTICATION_FAILED)
