"""The SASL authentication of one connection on a SASL listener, as Kafka's
``SaslServerAuthenticator`` runs it.

The connection asks :meth:`SaslAuthenticator.admit` about every request before it is handled:
until the connection has authenticated only ApiVersions, SaslHandshake and SaslAuthenticate
pass, in Kafka's order, and anything else closes the connection. SaslHandshake v0 switches the
connection to raw SASL tokens (size-prefixed, no request header) until the exchange ends:
:meth:`raw_token` takes those. SaslHandshake v1 and later carry the tokens in SaslAuthenticate
requests. A failed exchange answers with Kafka's error and message and the connection closes
after that answer, which is held back ``connection.failed.authentication.delay.ms``.

Re-authentication (KIP-368): with ``connections.max.reauth.ms`` set, a session ends that long
after it began; SaslAuthenticate v1+ tells the client so (``session_lifetime_ms``), and the
client re-authenticates on the same connection with a new SaslHandshake, the same mechanism and
the same principal. A request other than that SaslHandshake after the session's end closes the
connection. Everything that depends on time takes ``now_ms``.

The states and their legal transitions are :data:`VALID_PREVIOUS_STATES`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

from pybroker.jvm import hash_set_order
from pybroker.kernel import state_table
from pybroker.kernel.state_table import StateTable
from pybroker.security.oauthbearer import OAuthBearerServer, TokenValidator
from pybroker.security.plain import PasswordCheck, PlainServer
from pybroker.security.principal import USER_TYPE, KafkaPrincipal
from pybroker.security.sasl_errors import SaslFailure
from pybroker.security.scram import (
    MECHANISMS,
    CredentialLookup,
    ScramServer,
    TokenLookup,
    no_tokens,
)

PLAIN = "PLAIN"
GSSAPI = "GSSAPI"
OAUTHBEARER = "OAUTHBEARER"
#: the mechanisms this broker can serve
SUPPORTED_MECHANISMS = (PLAIN, OAUTHBEARER, *MECHANISMS)

# Kafka's API keys this module needs to know (protocol's ApiKey values)
API_VERSIONS, SASL_HANDSHAKE, SASL_AUTHENTICATE = 18, 17, 36

#: Kafka's error codes of these answers (protocol.errors values)
NONE, UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE, SASL_AUTHENTICATION_FAILED = 0, 33, 34, 58

#: re-authentication may begin at most once a second
MIN_REAUTH_INTERVAL_MS = 1000


class SaslState(enum.Enum):
    #: the first requests: ApiVersions or SaslHandshake
    HANDSHAKE_OR_VERSIONS_REQUEST = "HANDSHAKE_OR_VERSIONS_REQUEST"
    #: after ApiVersions, the next request must be SaslHandshake
    HANDSHAKE_REQUEST = "HANDSHAKE_REQUEST"
    #: exchanging tokens (raw after SaslHandshake v0, in SaslAuthenticate requests after v1)
    AUTHENTICATE = "AUTHENTICATE"
    #: authenticated: every request passes
    COMPLETE = "COMPLETE"
    #: authentication failed: the connection closes once the failure is answered
    FAILED = "FAILED"
    #: re-authentication begun by a SaslHandshake on an authenticated connection
    REAUTH_PROCESS_HANDSHAKE = "REAUTH_PROCESS_HANDSHAKE"
    #: re-authentication asked for another mechanism: the next token fails it
    REAUTH_BAD_MECHANISM = "REAUTH_BAD_MECHANISM"


class IllegalTransition(state_table.IllegalTransition):
    """The authenticator tried a transition the state table forbids."""


S = SaslState
INITIAL_STATE = S.HANDSHAKE_OR_VERSIONS_REQUEST
#: each state with the states it may be entered from (Kafka's validPreviousStates form)
VALID_PREVIOUS_STATES: StateTable[SaslState] = StateTable({
    S.HANDSHAKE_OR_VERSIONS_REQUEST: (),
    S.HANDSHAKE_REQUEST: {S.HANDSHAKE_OR_VERSIONS_REQUEST},
    S.AUTHENTICATE: {S.HANDSHAKE_OR_VERSIONS_REQUEST, S.HANDSHAKE_REQUEST,
                     S.REAUTH_PROCESS_HANDSHAKE},
    S.COMPLETE: {S.AUTHENTICATE},
    S.FAILED: {S.HANDSHAKE_OR_VERSIONS_REQUEST, S.HANDSHAKE_REQUEST, S.AUTHENTICATE,
               S.REAUTH_PROCESS_HANDSHAKE, S.REAUTH_BAD_MECHANISM},
    S.REAUTH_PROCESS_HANDSHAKE: {S.COMPLETE},
    S.REAUTH_BAD_MECHANISM: {S.REAUTH_PROCESS_HANDSHAKE},
}, initial=INITIAL_STATE, error=IllegalTransition)


class Admission(enum.Enum):
    """What the connection does with a request: handle it, close the connection, or drop it
    (a failed connection waiting to send its failure and close)."""

    HANDLE = "handle"
    CLOSE = "close"
    DROP = "drop"


@dataclass(frozen=True, slots=True)
class SaslServerSettings:
    """A SASL listener's settings (:mod:`.sasl_config` reads them from the configuration)."""

    #: the mechanisms the configuration enables, in its order (unsupported ones included)
    enabled_mechanisms: tuple[str, ...]
    #: PLAIN's users (None: PLAIN has no users configured, every attempt fails)
    plain_check: PasswordCheck | None = None
    #: SCRAM credentials, looked up at each authentication
    scram_lookup: CredentialLookup = field(default=lambda user, mechanism: None)
    #: connections.max.reauth.ms by mechanism (0 or absent: sessions never end)
    max_reauth_ms: Mapping[str, int] = field(default_factory=dict)
    #: connection.failed.authentication.delay.ms
    failed_delay_ms: int = 100
    #: sasl.server.max.receive.size: the largest frame a connection may send before it has
    #: authenticated
    max_receive_size: int = 524288
    #: delegation tokens' SCRAM credentials (``tokenauth=true``), looked up at each
    #: authentication like the users'
    token_lookup: TokenLookup = field(default=no_tokens)
    #: OAUTHBEARER's token validator (None: every token is refused)
    oauth_validator: TokenValidator | None = None

    @property
    def offered_mechanisms(self) -> list[str]:
        """What SaslHandshake answers: the enabled mechanisms this broker supports, in the
        order Kafka lists them (that of a Java HashSet of them)."""
        return hash_set_order([m for m in self.enabled_mechanisms if m in SUPPORTED_MECHANISMS])


@dataclass(frozen=True, slots=True)
class HandshakeAnswer:
    error_code: int
    mechanisms: list[str]
    #: close the connection after this answer, held back this long
    close_after_ms: int | None = None


@dataclass(frozen=True, slots=True)
class AuthenticateAnswer:
    error_code: int = NONE
    error_message: str | None = None
    auth_bytes: bytes = b""
    session_lifetime_ms: int = 0
    close_after_ms: int | None = None
    #: close the connection without answering (Kafka's authenticator failing unexpectedly)
    unanswered: bool = False


class SaslAuthenticator:
    """One connection's SASL state; see the module's documentation."""

    def __init__(self, settings: SaslServerSettings) -> None:
        self.settings = settings
        self.state = INITIAL_STATE
        #: the mechanism of the current exchange (and of the session, once complete)
        self.mechanism: str | None = None
        #: SaslHandshake v0: the tokens come raw, without Kafka request headers
        self.raw_tokens = False
        #: who the connection authenticated as
        self.principal: KafkaPrincipal | None = None
        #: when the session ends (None: never)
        self.session_expiry_ms: int | None = None
        self._server: PlainServer | ScramServer | OAuthBearerServer | None = None
        self._reauth_started_ms: int | None = None
        #: the principal of the session being re-authenticated
        self._previous_principal: KafkaPrincipal | None = None
        self._bad_mechanism_message = ""

    # -- the table ---------------------------------------------------------------------------
    def _move(self, new: SaslState) -> None:
        VALID_PREVIOUS_STATES.check("SASL authentication", self.state, new)
        self.state = new

    @property
    def authenticated(self) -> bool:
        return self.state is S.COMPLETE

    @property
    def reauthenticating(self) -> bool:
        return self._previous_principal is not None

    def _fail(self) -> int:
        self._move(S.FAILED)
        self._server = None
        return self.settings.failed_delay_ms

    # -- every request -----------------------------------------------------------------------
    def admit(self, api_key: int, now_ms: int) -> Admission:
        """Whether a request may be handled in this state (moving on where it starts a step)."""
        state = self.state
        if state is S.COMPLETE:
            if api_key == SASL_HANDSHAKE and self._may_begin_reauth(now_ms):
                self._previous_principal = self.principal
                self._reauth_started_ms = now_ms
                self._move(S.REAUTH_PROCESS_HANDSHAKE)
                return Admission.HANDLE
            # past the session's end (Kafka's clock is in nanoseconds: any later request is
            # past a session of no time at all, hence the end's own millisecond too)
            if self.session_expiry_ms is not None and now_ms >= self.session_expiry_ms:
                return Admission.CLOSE
            return Admission.HANDLE
        if state is S.FAILED:
            return Admission.DROP
        if state is S.HANDSHAKE_OR_VERSIONS_REQUEST:
            # (an ApiVersions request moves on once answered: api_versions_answered)
            ok = api_key in (API_VERSIONS, SASL_HANDSHAKE)
            return Admission.HANDLE if ok else Admission.CLOSE
        if state in (S.HANDSHAKE_REQUEST, S.REAUTH_PROCESS_HANDSHAKE):
            return Admission.HANDLE if api_key == SASL_HANDSHAKE else Admission.CLOSE
        if state in (S.AUTHENTICATE, S.REAUTH_BAD_MECHANISM):
            if api_key == SASL_AUTHENTICATE and not self.raw_tokens:
                return Admission.HANDLE
            return Admission.CLOSE
        return Admission.CLOSE

    def api_versions_answered(self) -> None:
        """An ApiVersions request at a version this broker serves was answered: the next
        request must be SaslHandshake. (One at a version it does not serve gets Kafka's
        UNSUPPORTED_VERSION answer and the client may ask again at another.)"""
        if self.state is S.HANDSHAKE_OR_VERSIONS_REQUEST:
            self._move(S.HANDSHAKE_REQUEST)

    def _may_begin_reauth(self, now_ms: int) -> bool:
        if self.session_expiry_ms is None:
            return False  # re-authentication is off: the handshake is answered as an error
        started = self._reauth_started_ms
        return started is None or now_ms - started >= MIN_REAUTH_INTERVAL_MS

    # -- SaslHandshake -----------------------------------------------------------------------
    def handshake(self, mechanism: str, version: int) -> HandshakeAnswer:
        offered = self.settings.offered_mechanisms
        if self.state is S.COMPLETE:
            # an authenticated connection that may not re-authenticate (Kafka's KafkaApis)
            return HandshakeAnswer(ILLEGAL_SASL_STATE, [])
        if self.state not in (S.HANDSHAKE_OR_VERSIONS_REQUEST, S.HANDSHAKE_REQUEST,
                              S.REAUTH_PROCESS_HANDSHAKE):
            return HandshakeAnswer(ILLEGAL_SASL_STATE, [], close_after_ms=self._fail())
        if mechanism not in offered:
            return HandshakeAnswer(UNSUPPORTED_SASL_MECHANISM, offered,
                                   close_after_ms=self._fail())
        self.raw_tokens = version == 0
        if self.reauthenticating and mechanism != self.mechanism:
            self._bad_mechanism_message = (
                f"SASL mechanism '{mechanism}' requested by client is not supported for "
                f"re-authentication of mechanism '{self.mechanism}'")
            self._move(S.REAUTH_BAD_MECHANISM)
            return HandshakeAnswer(NONE, offered)
        self.mechanism = mechanism
        self._server = self._new_server(mechanism)
        self._move(S.AUTHENTICATE)
        return HandshakeAnswer(NONE, offered)

    def _new_server(self, mechanism: str) -> PlainServer | ScramServer | OAuthBearerServer:
        if mechanism == PLAIN:
            check = self.settings.plain_check
            return PlainServer(check if check is not None else (lambda user, password: False))
        if mechanism == OAUTHBEARER:
            return OAuthBearerServer(self.settings.oauth_validator)
        return ScramServer(MECHANISMS[mechanism], self.settings.scram_lookup,
                           token_lookup=self.settings.token_lookup)

    # -- tokens ------------------------------------------------------------------------------
    def authenticate(self, token: bytes, version: int, now_ms: int) -> AuthenticateAnswer:
        """A SaslAuthenticate request's token."""
        if self.state is S.COMPLETE:
            return AuthenticateAnswer(ILLEGAL_SASL_STATE,
                                      "SaslAuthenticate request received after successful "
                                      "authentication")
        if self.state is S.REAUTH_BAD_MECHANISM:
            # Kafka fails it without an answer
            return AuthenticateAnswer(SASL_AUTHENTICATION_FAILED, self._bad_mechanism_message,
                                      close_after_ms=self._fail())
        if self.state is not S.AUTHENTICATE:
            return AuthenticateAnswer(ILLEGAL_SASL_STATE,
                                      f"Unexpected SaslAuthenticate in state {self.state.value}",
                                      close_after_ms=self._fail())
        try:
            answer = self._evaluate(token)
        except SaslFailure as e:
            if e.unanswered:
                return AuthenticateAnswer(SASL_AUTHENTICATION_FAILED, e.message, unanswered=True,
                                          close_after_ms=self._fail())
            text = "re-authentication" if self.reauthenticating else "authentication"
            message = (e.message if e.client_visible else
                       f"Authentication failed during {text} due to invalid credentials with "
                       f"SASL mechanism {self.mechanism}")
            return AuthenticateAnswer(SASL_AUTHENTICATION_FAILED, message,
                                      close_after_ms=self._fail())
        lifetime = self._complete(now_ms) if self.authenticated else 0
        return AuthenticateAnswer(NONE, None, answer, lifetime)

    def raw_token(self, token: bytes, now_ms: int) -> bytes:
        """A raw token after SaslHandshake v0: the answer token (sent size-prefixed). A
        failure raises SaslFailure: the connection is closed without an answer, as Kafka
        does for these clients."""
        if self.state is not S.AUTHENTICATE or not self.raw_tokens:
            self._fail()
            raise SaslFailure(f"Unexpected SASL token in state {self.state.value}")
        try:
            answer = self._evaluate(token)
        except SaslFailure:
            self._fail()
            raise
        if self.authenticated:
            self._complete(now_ms)
        return answer

    def _evaluate(self, token: bytes) -> bytes:
        server = self._server
        assert server is not None
        answer = server.evaluate(token)
        if server.complete:
            assert server.authorization_id is not None
            principal = KafkaPrincipal(USER_TYPE, server.authorization_id,
                                       getattr(server, "token_authenticated", False))
            previous = self._previous_principal
            if previous is not None and previous != principal:
                raise SaslFailure(
                    f"Cannot change principals during re-authentication from "
                    f"{previous.principal_type}.{previous.name}: "
                    f"{principal.principal_type}.{principal.name}", client_visible=True)
            self.principal = principal
            self._move(S.COMPLETE)
        return answer

    def _complete(self, now_ms: int) -> int:
        """The session's lifetime, from the end of this authentication: until the credential
        ends (a delegation token's expiry) or ``connections.max.reauth.ms``, whichever comes
        first (Kafka's ``SaslServerAuthenticator``); 0 when neither applies."""
        credential_expiry = getattr(self._server, "credential_expiry_ms", None)
        self._server = None
        self._previous_principal = None
        self.raw_tokens = False
        assert self.mechanism is not None
        reauth_ms = self.settings.max_reauth_ms.get(self.mechanism, 0)
        if credential_expiry is None and reauth_ms <= 0:
            self.session_expiry_ms = None
            return 0
        lifetimes = [] if reauth_ms <= 0 else [reauth_ms]
        if credential_expiry is not None:
            lifetimes.append(credential_expiry - now_ms)
        lifetime = max(0, min(lifetimes))
        self.session_expiry_ms = now_ms + lifetime
        return lifetime
