"""How a SASL exchange fails."""

from __future__ import annotations


class SaslFailure(Exception):
    """Authentication failed.

    ``client_visible``: the message may be sent to the client as it is (Kafka's
    ``SaslAuthenticationException``); otherwise the client is told only that its credentials
    were invalid (Kafka's ``SaslException``, whose text could say whether a user exists).
    ``illegal_state``: the exchange was used out of order (ILLEGAL_SASL_STATE).
    ``unanswered``: the connection closes without an answer (what Kafka's authenticator does
    with an unchecked exception out of its SASL server).
    """

    def __init__(self, message: str, *, client_visible: bool = False,
                 illegal_state: bool = False, unanswered: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.client_visible = client_visible
        self.illegal_state = illegal_state
        self.unanswered = unanswered
