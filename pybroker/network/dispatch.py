"""From a request frame to an encoded response: header, version check, handler, encoding."""

from __future__ import annotations

import asyncio
import inspect
import logging
import struct
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from protocol import messages
from protocol.errors import ErrorCode, ProtocolError
from protocol.headers import read_request_header, response_header_version, write_response_header
from protocol.messages import ApiKey
from protocol.primitives import Reader, Writer
from pybroker.api.context import RequestContext
from pybroker.api.registry import ApiHandler
from pybroker.purgatory import then

if TYPE_CHECKING:
    from pybroker.api.services import BrokerServices
    from pybroker.network.connection import KafkaConnection

log = logging.getLogger(__name__)

_SIZE = struct.Struct(">i")


def encode_response(api_key: int, version: int, correlation_id: int, body: Any) -> Writer:
    """The whole response frame, size prefix included (file splices count toward the size)."""
    w = Writer()
    w += b"\0\0\0\0"
    write_response_header(w, correlation_id, response_header_version(api_key, version))
    messages.response_module(api_key).write(w, body, version)
    size = len(w) - 4
    for _, obj in getattr(w, "splices", ()) or ():
        size += len(obj)
    _SIZE.pack_into(w, 0, size)
    return w


class RequestDispatcher:
    """Turns frames into handler calls. It knows the handlers and the services they are given;
    it never calls back into the broker."""

    def __init__(self, services: BrokerServices | None, handlers: Mapping[int, ApiHandler]) -> None:
        self.services = services
        self.handlers = handlers

    def dispatch(self, frame: memoryview | bytes, conn: KafkaConnection) -> Any:
        """Handle one request frame. Returns the encoded response, a future of it, or None."""
        r = Reader(frame)
        header = read_request_header(r)
        api_key = header.request_api_key
        version = header.request_api_version
        handler = self.handlers.get(api_key)
        if handler is None:
            raise ProtocolError(f"unknown api key {api_key}")
        if not handler.supports(version):
            if api_key == ApiKey.API_VERSIONS:
                # KIP-511: answer in the v0 layout with our ApiVersions range so the client retries.
                return encode_response(api_key, 0, header.correlation_id,
                                       self.unsupported_api_versions_response())
            raise ProtocolError(f"{handler.name} v{version} is not supported")
        request = messages.request_module(api_key).read(r, version)
        assert self.services is not None, "requests arrive only once the services exist"
        ctx = RequestContext(
            services=self.services,
            api_key=api_key,
            api_version=version,
            correlation_id=header.correlation_id,
            client_id=header.client_id,
            peer=conn.peer,
            now_ms=int(time.time() * 1000),
        )
        result = handler.handle(ctx, request)
        if ctx.close_connection:
            conn.close_after_responses()
        if result is None:
            return None
        if inspect.isawaitable(result):
            correlation_id = header.correlation_id
            return then(
                asyncio.ensure_future(result),
                lambda body: None if body is None
                else encode_response(api_key, version, correlation_id, body),
            )
        return encode_response(api_key, version, header.correlation_id, result)

    def unsupported_api_versions_response(self) -> Any:
        mod = messages.response_module(ApiKey.API_VERSIONS)
        h = self.handlers[ApiKey.API_VERSIONS]
        return mod.ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION,
            api_keys=[mod.ApiVersion(api_key=ApiKey.API_VERSIONS, min_version=h.min_version,
                                     max_version=h.max_version)],
        )
