"""Broker properties from environment variables, in the convention of the well-known Kafka
container images, so that a compose file written for one of them configures pybroker unchanged.

A variable ``KAFKA_<NAME>`` sets the property named by ``<NAME>`` lowercased, with ``_`` read as
``.``, ``__`` as ``_`` and ``___`` as ``-``::

    KAFKA_BROKER_ID=1                       broker.id=1
    KAFKA_ZOOKEEPER_CONNECT=zk:2181         zookeeper.connect=zk:2181
    KAFKA_ADVERTISED_LISTENERS=...          advertised.listeners=...
    KAFKA_LISTENER_NAME_INTERNAL_X__Y=1     listener.name.internal.x_y=1
    KAFKA_SOME___THING=1                    some-thing=1

The images' variables that set up the JVM or their own scripts rather than the broker
(``KAFKA_HEAP_OPTS``, ``KAFKA_OPTS``, ``KAFKA_JMX_PORT``, ``KAFKA_LOG4J_LOGGERS``, ...) are not
properties and are left out, as those images leave them out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

PREFIX = "KAFKA_"

#: variables of the Kafka images that are not broker properties: JVM options, logging set-up,
#: the images' own settings (Confluent's ``dub`` and Apache Kafka's ``configure`` skip these)
NOT_PROPERTIES = frozenset({
    "KAFKA_CLASSPATH",
    "KAFKA_DEBUG",
    "KAFKA_GC_LOG_OPTS",
    "KAFKA_HEAP_OPTS",
    "KAFKA_HOME",
    "KAFKA_JMX_HOSTNAME",
    "KAFKA_JMX_OPTS",
    "KAFKA_JMX_PORT",
    "KAFKA_JVM_PERFORMANCE_OPTS",
    "KAFKA_LOG4J_LOGGERS",
    "KAFKA_LOG4J_OPTS",
    "KAFKA_LOG4J_ROOT_LOGLEVEL",
    "KAFKA_OPTS",
    "KAFKA_TOOLS_LOG4J_LOGLEVEL",
    "KAFKA_VERSION",
})

_NAME = re.compile(r"[A-Za-z0-9_]+")


def property_name(variable: str) -> str | None:
    """The property a ``KAFKA_*`` variable sets, or None when it sets none."""
    if not variable.startswith(PREFIX) or variable in NOT_PROPERTIES:
        return None
    rest = variable[len(PREFIX):]
    if not rest or not _NAME.fullmatch(rest):
        return None
    dotted = rest.lower().replace("_", ".")
    name = dotted.replace("...", "-").replace("..", "_")
    return name if name.strip("._-") else None


def properties_from_env(environ: Mapping[str, str]) -> dict[str, str]:
    """Every property the ``KAFKA_*`` variables of ``environ`` set, sorted by name."""
    found = {}
    for variable, value in environ.items():
        name = property_name(variable)
        if name is not None:
            found[name] = value
    return dict(sorted(found.items()))


def render_properties(props: Mapping[str, str]) -> str:
    """``server.properties`` text for ``props``, one ``name=value`` line each (as the Kafka
    images write theirs). A value with a line break cannot be one line: ValueError."""
    lines = []
    for key, value in props.items():
        if "\n" in value or "\r" in value:
            raise ValueError(f"the value of {key} has a line break")
        lines.append(f"{key}={value}\n")
    return "".join(lines)
