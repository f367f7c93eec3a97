"""Serving the console: waitress, a production WSGI server with a thread pool (the calls to a
cluster block; each request has a thread of its own), on the settings' listen address."""

from __future__ import annotations

import logging

from pybroker.console.app import create_app
from pybroker.console.settings import ConsoleSettings, listen_address

logger = logging.getLogger(__name__)

#: requests served at once; each may wait on a cluster for up to the client's timeout
THREADS = 8


def serve(settings: ConsoleSettings) -> None:
    """Serve until interrupted (SIGINT, SIGTERM)."""
    from waitress import serve as waitress_serve

    host, port = listen_address(settings.listen)
    names = ", ".join(f"{c.name} ({c.bootstrap})" for c in settings.clusters)
    logger.info("console on http://%s:%d/ for %s%s", host, port, names,
                ", read-only" if settings.read_only else "")
    waitress_serve(create_app(settings), host=host, port=port, threads=THREADS,
                   ident="pybroker-console")
