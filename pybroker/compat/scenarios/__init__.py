"""The scenario modules, imported by name by the runner and by each scenario's child process.

Add a module here to add its scenarios to the suite.
"""

from __future__ import annotations

SCENARIO_MODULES: tuple[str, ...] = (
    "pybroker.compat.scenarios.kafka_python",
    "pybroker.compat.scenarios.confluent",
    "pybroker.compat.scenarios.aio",
    "pybroker.compat.scenarios.wire",
    "pybroker.compat.scenarios.java",
    "pybroker.compat.scenarios.cli",
    "pybroker.compat.scenarios.spark",
    "pybroker.compat.scenarios.security",
)
