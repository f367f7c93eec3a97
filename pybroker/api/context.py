"""What a handler gets besides its request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pybroker.kernel.clock import SYSTEM_CLOCK
from pybroker.security.principal import ANONYMOUS, KafkaPrincipal
from pybroker.security.sasl import SaslAuthenticator

if TYPE_CHECKING:
    from pybroker.api.services import BrokerServices


@dataclass(slots=True)
class RequestContext:
    services: BrokerServices
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    peer: str
    #: the listener the request came in on (Metadata answers with that listener's endpoints)
    listener: str = ""
    #: who the connection authenticated as (User:ANONYMOUS when it did not)
    principal: KafkaPrincipal = ANONYMOUS
    #: the connection's SASL authentication, on a SASL listener (SaslHandshake, SaslAuthenticate)
    sasl: SaslAuthenticator | None = None
    now_ms: int = field(default_factory=SYSTEM_CLOCK.milliseconds)
    # Set by a handler that wants the connection closed after this request (Kafka closes the
    # connection of an acks=0 producer whose produce failed, since it cannot be told otherwise).
    close_connection: bool = False
    #: the client's software name and version, as a valid ApiVersions v3+ names them (KIP-511)
    client_software: tuple[str, str] | None = None
    #: the request's size in bytes (its frame, without the size prefix)
    request_size: int = 0
    #: set by a handler whose answer throttles the client's quota: the connection reads
    #: nothing more for this long (KIP-219), answered or not (an acks=0 produce)
    throttle_ms: int = 0
