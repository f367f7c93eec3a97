"""Running the scripts that fetch jars from Maven Central, from a session fixture.

Each of ``scripts/java-deps.sh``, ``kafka-tools-deps.sh`` and ``spark-deps.sh`` does nothing when
its cache is current, so the fixtures run them again: a test session started without
``make setup`` still gets its jars.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from pybroker.testing.broker_process import REPO_ROOT


def fetch_or_skip(script: Path, *args: str, tools: Sequence[str], needed_for: str) -> None:
    """Run ``script``; skip, naming what is missing, when a tool is not on PATH; fail if it fails."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(
            f"SKIPPED: {needed_for} need {', '.join(missing)} on PATH (a JDK 17+ and Maven): "
            "install them, then run make setup"
        )
    proc = subprocess.run(["bash", str(script), *args], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        name = script.relative_to(REPO_ROOT) if script.is_relative_to(REPO_ROOT) else script
        pytest.fail(f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
