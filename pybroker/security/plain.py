"""SASL/PLAIN (RFC 4616) as Kafka's PlainSaslServer runs it.

The client's one message is ``authzid NUL username NUL password``. The authorization id must be
empty or the username itself. Users and passwords come from the listener's JAAS configuration
(``user_<name>="<password>"`` options of ``PlainLoginModule``, :mod:`.jaas`).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from pybroker.security.sasl_errors import SaslFailure

#: checks a username and password
PasswordCheck = Callable[[str, str], bool]


def users_check(users: dict[str, str]) -> PasswordCheck:
    """A :data:`PasswordCheck` against fixed users (compared in constant time)."""

    def check(username: str, password: str) -> bool:
        expected = users.get(username)
        # compare against something even for an unknown user, so timing does not tell
        ok = hmac.compare_digest((expected or "\0").encode(), password.encode())
        return expected is not None and ok

    return check


def plain_tokens(message: str) -> list[str]:
    """Up to four NUL-separated tokens, as Kafka splits them (exactly three are valid)."""
    tokens: list[str] = []
    start = 0
    for _ in range(4):
        end = message.find("\0", start)
        if end == -1:
            tokens.append(message[start:])
            break
        tokens.append(message[start:end])
        start = end + 1
    return tokens


class PlainServer:
    """One PLAIN exchange, server side: one message in, an empty answer out."""

    def __init__(self, check: PasswordCheck) -> None:
        self.check = check
        self.complete = False
        self.authorization_id: str | None = None

    def evaluate(self, token: bytes) -> bytes:
        if self.complete:
            raise SaslFailure("Unexpected challenge in Sasl server state COMPLETE",
                              client_visible=True, illegal_state=True)
        tokens = plain_tokens(token.decode("utf-8", errors="replace"))
        if len(tokens) != 3:
            raise SaslFailure(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}",
                              client_visible=True)
        authzid, username, password = tokens
        if not username:
            raise SaslFailure("Authentication failed: username not specified", client_visible=True)
        if not password:
            raise SaslFailure("Authentication failed: password not specified", client_visible=True)
        if not self.check(username, password):
            raise SaslFailure("Authentication failed: Invalid username or password",
                              client_visible=True)
        if authzid and authzid != username:
            raise SaslFailure("Authentication failed: Client requested an authorization id that "
                              "is different from username", client_visible=True)
        self.authorization_id = username
        self.complete = True
        return b""


def plain_message(username: str, password: str, authzid: str = "") -> bytes:
    """The client's PLAIN message."""
    return f"{authzid}\0{username}\0{password}".encode()
