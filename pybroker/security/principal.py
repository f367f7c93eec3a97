"""Kafka's principal: a type and a name, written ``User:alice``.

A connection that has not authenticated (a PLAINTEXT listener, or a TLS one without client
certificates) speaks for ``User:ANONYMOUS``, as on Kafka.
"""

from __future__ import annotations

from dataclasses import dataclass, field

USER_TYPE = "User"


@dataclass(frozen=True, slots=True)
class KafkaPrincipal:
    principal_type: str
    name: str
    #: authenticated with a delegation token: such a connection may not create, renew,
    #: expire or describe tokens. As in Kafka, not part of equality.
    token_authenticated: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> KafkaPrincipal:
        """``User:alice`` -> KafkaPrincipal("User", "alice"); the name may contain colons."""
        principal_type, sep, name = text.partition(":")
        if not sep or not principal_type or not name:
            raise ValueError(f"invalid principal {text!r}: expected Type:name")
        return cls(principal_type, name)


ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")
