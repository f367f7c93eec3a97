"""Which of the suite's JVM and Spark scenarios the calibration test runs, and their jars.

A JVM or a SparkSession starts slowly (a Java or CLI scenario takes 4-15 s, the Spark one
15-35 s), so CI calibrates one scenario per such client (:data:`SHORT`) against Kafka 3.9 and
pybroker; ``COMPAT_CALIBRATION=full`` calibrates all of them, and ``make compat-peers`` runs the
whole suite against both brokers and the peers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterable

from pybroker.compat.scenario import Scenario
from pybroker.testing.broker_process import REPO_ROOT

SLOW_CLIENTS = ("java", "cli", "spark")
#: the JVM and Spark scenarios CI calibrates: one per client
SHORT = ("java/transactions", "cli/produce-fetch", "spark/produce-fetch")


def full() -> bool:
    return os.environ.get("COMPAT_CALIBRATION") == "full"


def calibration_scenarios(scenarios: Iterable[Scenario], *, everything: bool | None = None,
                          ) -> list[Scenario]:
    """``scenarios`` less the slow clients' scenarios outside :data:`SHORT` (all of them with
    ``everything``, by default ``COMPAT_CALIBRATION=full``)."""
    everything = full() if everything is None else everything
    return [s for s in scenarios
            if everything or s.client not in SLOW_CLIENTS or s.id in SHORT]


def fetch_jvm_jars() -> None:
    """Run the scripts that put the Java clients (3.9.1) and Spark's connector in ``.cache``
    (no-ops when it is current). Where a tool is missing or a script fails, the client stays
    missing and the calibration reports its scenarios skipped, with the reason, as it does for
    any missing client."""
    scripts = [(["bash", str(REPO_ROOT / "scripts" / "java-deps.sh"), "3.9.1"],
                ("java", "javac", "mvn"))]
    try:
        import pyspark  # noqa: F401 - only whether it is installed
    except ImportError:
        pass
    else:
        scripts.append((["bash", str(REPO_ROOT / "scripts" / "spark-deps.sh"), sys.executable],
                        ("java", "mvn")))
    for cmd, tools in scripts:
        if any(shutil.which(t) is None for t in tools):
            continue
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
        if proc.returncode != 0:
            warnings.warn(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr[-2000:]}",
                          stacklevel=2)
