"""The metrics endpoint: Prometheus' text format over HTTP at ``/metrics`` and a readiness check
at ``/ready``, on the address ``metrics.listener`` names (``http://127.0.0.1:9404``).

The HTTP server runs on a thread of its own (the standard library's threading server), so a
scrape never waits for the event loop to accept or write. The metrics themselves are the event
loop's: a scrape asks the loop for a :meth:`~.registry.MetricsRegistry.snapshot` (a read of
plain numbers, the one piece of work done there) and turns it into text on its own thread, with
``prometheus_client``'s exposition, beside the process metrics (CPU, resident memory, open file
descriptors) ``prometheus_client`` reads from ``/proc``.

``/ready`` answers 200 once the broker serves its listeners and 503 before (and while it stops).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

from .exposition import FamilyTexts, SeriesCache, families
from .jmx_rules import RuleSet
from .registry import MetricsRegistry

log = logging.getLogger(__name__)

#: how long a scrape waits for the event loop's snapshot before answering 503
SNAPSHOT_TIMEOUT_S = 10.0


def parse_metrics_listener(value: str) -> tuple[str, int]:
    """``http://host:port`` (or ``host:port``) as ``(host, port)``; ValueError otherwise."""
    text = value.strip()
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    if parts.scheme != "http":
        raise ValueError(f"metrics.listener {value!r}: only http is served")
    if parts.port is None:
        raise ValueError(f"metrics.listener {value!r} names no port")
    if parts.path not in ("", "/"):
        raise ValueError(f"metrics.listener {value!r}: the path is always /metrics")
    return parts.hostname or "", parts.port


class MetricsEndpoint:
    """Serves ``registry`` at ``host:port``; ``ready()`` says whether the broker serves."""

    def __init__(self, registry: MetricsRegistry, host: str, port: int, *,
                 ready: Callable[[], bool], rules: RuleSet | None = None) -> None:
        self.registry = registry
        self.host = host
        self.port = port
        self.ready = ready
        self.rules = rules or RuleSet()
        #: each served attribute's name and labels, from the first scrape on
        self.series = SeriesCache(self.rules)
        #: each family's text, kept for the next scrape
        self.texts = FamilyTexts()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._process = CollectorRegistry(auto_describe=False)
        ProcessCollector(registry=self._process)
        PlatformCollector(registry=self._process)

    @property
    def address(self) -> tuple[str, int]:
        """The bound address (the port the OS chose for port 0)."""
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        """Bind and serve (raises OSError when the address is taken)."""
        self._loop = asyncio.get_running_loop()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                endpoint._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                log.debug("metrics %s: " + format, self.address_string(), *args)

        server = ThreadingHTTPServer((self.host, self.port), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="metrics-endpoint",
                                        daemon=True)
        self._thread.start()
        log.info("Serving metrics at http://%s:%d/metrics", *self.address)

    async def stop(self) -> None:
        server, thread = self._server, self._thread
        if server is None:
            return
        self._server = None
        await asyncio.to_thread(server.shutdown)
        server.server_close()
        if thread is not None:
            await asyncio.to_thread(thread.join, 5)

    # -- on the server's threads ---------------------------------------------------------------
    def _on_loop(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` run on the event loop; its result (raises TimeoutError, RuntimeError)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("the broker's event loop is gone")
        done: concurrent.futures.Future[Any] = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
                done.set_exception(e)

        loop.call_soon_threadsafe(run)
        return done.result(SNAPSHOT_TIMEOUT_S)

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        path = urlsplit(request.path).path
        if path == "/metrics":
            try:
                samples = self._on_loop(self.registry.snapshot)
            except (TimeoutError, RuntimeError, concurrent.futures.TimeoutError) as e:
                self._reply(request, 503, f"metrics unavailable: {str(e) or 'timed out'}\n")
                return
            body = (self.texts.render(families(samples, self.series))
                    + generate_latest(self._process))
            self._reply(request, 200, body, CONTENT_TYPE_LATEST)
        elif path in ("/ready", "/-/ready"):
            try:
                ready = bool(self._on_loop(self.ready))
            except (TimeoutError, RuntimeError, concurrent.futures.TimeoutError):
                ready = False
            self._reply(request, 200 if ready else 503, "ready\n" if ready else "not ready\n")
        else:
            self._reply(request, 404, "not found: the paths are /metrics and /ready\n")

    @staticmethod
    def _reply(request: BaseHTTPRequestHandler, status: int, body: str | bytes,
               content_type: str = "text/plain; charset=utf-8") -> None:
        data = body.encode() if isinstance(body, str) else body
        try:
            request.send_response(status)
            request.send_header("Content-Type", content_type)
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
        except OSError:
            pass  # the scraper went away
