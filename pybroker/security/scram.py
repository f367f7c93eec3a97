"""SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka runs them.

Credentials are kept as Kafka keeps them: a salt, the stored key, the server key and the
iteration count, never the password; written as a config value
``salt=<base64>,stored_key=<base64>,server_key=<base64>,iterations=<n>`` under the mechanism's
name (``SCRAM-SHA-256``), in a user's config entity.

:class:`ScramServer` is the server side of one exchange: client-first -> server-first,
client-final -> server-final. Failures raise :class:`~.sasl_errors.SaslFailure`; those whose
message may reach the client say so (Kafka's ``SaslAuthenticationException``), the others are
answered with Kafka's generic text so that a client cannot tell an unknown user from a wrong
password. :class:`ScramClient` is the client side (inter-broker connections and tests).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from pybroker.security.sasl_errors import SaslFailure


@dataclass(frozen=True, slots=True)
class ScramMechanism:
    #: the SASL mechanism name, also the config key of the credential
    name: str
    #: the hash, as hashlib names it
    hash_name: str
    #: the type byte of DescribeUserScramCredentials/AlterUserScramCredentials
    type_code: int
    #: Kafka refuses credentials with fewer iterations
    min_iterations: int = 4096

    def digest(self, data: bytes) -> bytes:
        return hashlib.new(self.hash_name, data).digest()

    def hmac(self, key: bytes, data: bytes) -> bytes:
        return hmac.new(key, data, self.hash_name).digest()

    def salted_password(self, password: bytes, salt: bytes, iterations: int) -> bytes:
        """RFC 5802's Hi(): PBKDF2 with HMAC of this hash."""
        return hashlib.pbkdf2_hmac(self.hash_name, password, salt, iterations)


SCRAM_SHA_256 = ScramMechanism("SCRAM-SHA-256", "sha256", 1)
SCRAM_SHA_512 = ScramMechanism("SCRAM-SHA-512", "sha512", 2)
MECHANISMS: dict[str, ScramMechanism] = {m.name: m for m in (SCRAM_SHA_256, SCRAM_SHA_512)}
BY_TYPE: dict[int, ScramMechanism] = {m.type_code: m for m in MECHANISMS.values()}
#: the most iterations AlterUserScramCredentials accepts (Kafka's limit)
MAX_ITERATIONS = 16384

#: the only extension Kafka's SCRAM server knows: the user name is a delegation token's id, the
#: password its HMAC (KIP-48)
TOKEN_AUTH_EXTENSION = "tokenauth"


@dataclass(frozen=True, slots=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def to_config_string(self) -> str:
        """Kafka's ScramCredentialUtils.credentialToString."""
        return (f"salt={_b64(self.salt)},stored_key={_b64(self.stored_key)},"
                f"server_key={_b64(self.server_key)},iterations={self.iterations}")

    @classmethod
    def from_config_string(cls, text: str) -> ScramCredential:
        """The inverse of :meth:`to_config_string`; ValueError for anything else."""
        fields: dict[str, str] = {}
        for item in text.split(","):
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"invalid SCRAM credential {text!r}")
            fields[key] = value
        if set(fields) != {"salt", "stored_key", "server_key", "iterations"}:
            raise ValueError(f"invalid SCRAM credential: fields {sorted(fields)}")
        return cls(base64.b64decode(fields["salt"], validate=True),
                   base64.b64decode(fields["stored_key"], validate=True),
                   base64.b64decode(fields["server_key"], validate=True),
                   int(fields["iterations"]))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def credential_from_salted_password(mechanism: ScramMechanism, salt: bytes,
                                    salted_password: bytes, iterations: int) -> ScramCredential:
    """What AlterUserScramCredentials stores for an upsertion (the client sends the salted
    password, never the password)."""
    client_key = mechanism.hmac(salted_password, b"Client Key")
    return ScramCredential(salt, mechanism.digest(client_key),
                           mechanism.hmac(salted_password, b"Server Key"), iterations)


def new_credential(mechanism: ScramMechanism, password: str, iterations: int = 4096,
                   salt: bytes | None = None) -> ScramCredential:
    salt = secrets.token_bytes(32) if salt is None else salt
    salted = mechanism.salted_password(password.encode(), salt, iterations)
    return credential_from_salted_password(mechanism, salt, salted, iterations)


def server_nonce() -> str:
    """A fresh printable nonce (alphanumeric, so never a comma)."""
    return secrets.token_hex(16)


def username_from_sasl_name(sasl_name: str) -> str:
    """RFC 5802's saslname: ``=2C`` is a comma and ``=3D`` an equals sign."""
    return sasl_name.replace("=2C", ",").replace("=3D", "=")


def sasl_name_from_username(username: str) -> str:
    return username.replace("=", "=3D").replace(",", "=2C")


_SASL_NAME = r"(?:[\x01-\x2b\x2d-\x3c\x3e-\x7f]|=2C|=3D)+"
_PRINTABLE = r"[\x21-\x2b\x2d-\x7e]+"
_VALUE = r"[\x01-\x2b\x2d-\x7f]*"
_B64 = r"[A-Za-z0-9+/]*={0,2}"
_EXTENSIONS = r"(?:,[A-Za-z]+=" + _VALUE + r")*"
_CLIENT_FIRST = re.compile(
    r"n,(?:a=(?P<authzid>" + _SASL_NAME + r"))?,(?:m=" + _VALUE + r",)?"
    r"n=(?P<saslname>" + _SASL_NAME + r"),r=(?P<nonce>" + _PRINTABLE + r")"
    r"(?P<extensions>" + _EXTENSIONS + r")", re.DOTALL)
_CLIENT_FINAL = re.compile(
    r"c=(?P<channel>" + _B64 + r"),r=(?P<nonce>" + _PRINTABLE + r")"
    r"(?P<extensions>" + _EXTENSIONS + r"),p=(?P<proof>" + _B64 + r")", re.DOTALL)


@dataclass(frozen=True, slots=True)
class ClientFirst:
    authzid: str
    sasl_name: str
    nonce: str
    extensions: dict[str, str]
    #: the message without its GS2 header, as the AuthMessage includes it
    bare: str


def parse_client_first(data: bytes) -> ClientFirst:
    text = data.decode("utf-8", errors="replace")
    m = _CLIENT_FIRST.fullmatch(text)
    if m is None:
        raise SaslFailure(f"Invalid SCRAM client first message format: {text}")
    extensions = dict(e.split("=", 1) for e in m.group("extensions").split(",")[1:])
    bare = text.split(",", 2)[2]  # after the GS2 header "n,[a=authzid],"
    return ClientFirst(m.group("authzid") or "", m.group("saslname"), m.group("nonce"),
                       extensions, bare)


@dataclass(frozen=True, slots=True)
class ClientFinal:
    channel_binding: bytes
    nonce: str
    proof: bytes
    without_proof: str


def parse_client_final(data: bytes) -> ClientFinal:
    text = data.decode("utf-8", errors="replace")
    m = _CLIENT_FINAL.fullmatch(text)
    if m is None:
        raise SaslFailure(f"Invalid SCRAM client final message format: {text}")
    return ClientFinal(base64.b64decode(m.group("channel")), m.group("nonce"),
                       base64.b64decode(m.group("proof")), text[:text.rindex(",p=")])


#: looks a user's credential for a mechanism up; None when the user has none
CredentialLookup = Callable[[str, ScramMechanism], ScramCredential | None]
#: looks a delegation token's credential up by its id: (credential, the owner's name, the
#: token's expiry in ms); None for a token the broker does not know
TokenLookup = Callable[[str, ScramMechanism], "tuple[ScramCredential, str, int] | None"]


def no_tokens(token_id: str, mechanism: ScramMechanism) -> None:
    return None

_FIRST, _FINAL, _COMPLETE, _FAILED = "RECEIVE_CLIENT_FIRST_MESSAGE", "RECEIVE_CLIENT_FINAL_MESSAGE", \
    "COMPLETE", "FAILED"


class ScramServer:
    """One SCRAM exchange, server side. ``nonce`` makes the server nonce (tests pass a fixed
    one: RFC 7677's example)."""

    def __init__(self, mechanism: ScramMechanism, lookup: CredentialLookup, *,
                 nonce: Callable[[], str] = server_nonce,
                 token_lookup: TokenLookup = no_tokens) -> None:
        self.mechanism = mechanism
        self.lookup = lookup
        self.token_lookup = token_lookup
        self._nonce = nonce
        self.state = _FIRST
        self.authorization_id: str | None = None
        #: authenticated with a delegation token (``tokenauth=true``)
        self.token_authenticated = False
        #: when the credential ends (a token's expiry; None for a user's credential): the
        #: session ends then too (Kafka's CREDENTIAL_LIFETIME_MS negotiated property)
        self.credential_expiry_ms: int | None = None
        self._first: ClientFirst | None = None
        self._server_first = ""
        self._credential: ScramCredential | None = None

    @property
    def complete(self) -> bool:
        return self.state == _COMPLETE

    def evaluate(self, token: bytes) -> bytes:
        try:
            if self.state == _FIRST:
                return self._client_first(token)
            if self.state == _FINAL:
                return self._client_final(token)
            raise SaslFailure(f"Unexpected challenge in Sasl server state {self.state}",
                              client_visible=True, illegal_state=True)
        except SaslFailure:
            self.state = _FAILED
            self._credential = None
            raise

    def _client_first(self, token: bytes) -> bytes:
        first = self._first = parse_client_first(token)
        username = username_from_sasl_name(first.sasl_name)
        credential: ScramCredential | None
        if first.extensions.get(TOKEN_AUTH_EXTENSION, "").lower() == "true":
            found = self.token_lookup(username, self.mechanism)
            if found is None:
                raise SaslFailure(f"Token Authentication failed: Invalid tokenId : {username}")
            credential, owner, self.credential_expiry_ms = found
            self.token_authenticated = True
        else:
            credential, owner = self.lookup(username, self.mechanism), username
        if credential is None:
            raise SaslFailure("Authentication failed: Invalid user credentials")
        if first.authzid and first.authzid != username:
            raise SaslFailure("Authentication failed: Client requested an authorization id "
                              "that is different from username", client_visible=True)
        if credential.iterations < self.mechanism.min_iterations:
            raise SaslFailure(f"Iterations {credential.iterations} is less than the minimum "
                              f"{self.mechanism.min_iterations} for {self.mechanism.name}")
        self.authorization_id = owner
        self._credential = credential
        self._server_first = (f"r={first.nonce}{self._nonce()},s={_b64(credential.salt)},"
                              f"i={credential.iterations}")
        self.state = _FINAL
        return self._server_first.encode()

    def _client_final(self, token: bytes) -> bytes:
        final = parse_client_final(token)
        first, credential = self._first, self._credential
        assert first is not None and credential is not None
        if final.nonce != self._server_first[2:self._server_first.index(",s=")]:
            raise SaslFailure("Invalid client nonce in the final client message.")
        auth_message = f"{first.bare},{self._server_first},{final.without_proof}".encode()
        mech = self.mechanism
        signature = mech.hmac(credential.stored_key, auth_message)
        if len(final.proof) != len(signature):
            raise SaslFailure("Invalid client credentials")
        client_key = bytes(a ^ b for a, b in zip(final.proof, signature, strict=True))
        if not hmac.compare_digest(mech.digest(client_key), credential.stored_key):
            raise SaslFailure("Invalid client credentials")
        server_signature = mech.hmac(credential.server_key, auth_message)
        self._credential = None
        self.state = _COMPLETE
        return f"v={_b64(server_signature)}".encode()


class ScramClient:
    """The client side of one exchange: :meth:`first`, :meth:`final` (given the server-first
    message), :meth:`verify` (given the server-final message)."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str, *,
                 nonce: str | None = None, token_auth: bool = False) -> None:
        self.mechanism = mechanism
        self.username = username
        self.password = password
        self.nonce = nonce or server_nonce()
        # a delegation token: its id as the user name, its HMAC (base64) as the password
        extensions = f",{TOKEN_AUTH_EXTENSION}=true" if token_auth else ""
        self._bare = f"n={sasl_name_from_username(username)},r={self.nonce}{extensions}"
        self._auth_message = b""
        self._salted = b""

    def first(self) -> bytes:
        return f"n,,{self._bare}".encode()

    def final(self, server_first: bytes) -> bytes:
        text = server_first.decode()
        fields = dict(item.split("=", 1) for item in text.split(","))
        if not fields.get("r", "").startswith(self.nonce):
            raise SaslFailure("Invalid server nonce: does not start with client nonce")
        iterations = int(fields["i"])
        if iterations < self.mechanism.min_iterations:
            raise SaslFailure(f"Requested iterations {iterations} is less than the minimum "
                              f"{self.mechanism.min_iterations} for {self.mechanism.name}")
        mech = self.mechanism
        self._salted = mech.salted_password(self.password.encode(),
                                            base64.b64decode(fields["s"]), iterations)
        without_proof = f"c=biws,r={fields['r']}"
        self._auth_message = f"{self._bare},{text},{without_proof}".encode()
        client_key = mech.hmac(self._salted, b"Client Key")
        signature = mech.hmac(mech.digest(client_key), self._auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        return f"{without_proof},p={_b64(proof)}".encode()

    def verify(self, server_final: bytes) -> None:
        text = server_final.decode()
        if not text.startswith("v="):
            raise SaslFailure(f"SCRAM authentication failed: {text}")
        server_key = self.mechanism.hmac(self._salted, b"Server Key")
        expected = self.mechanism.hmac(server_key, self._auth_message)
        if not hmac.compare_digest(base64.b64decode(text[2:]), expected):
            raise SaslFailure("Invalid server signature in server final message")
