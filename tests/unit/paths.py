"""Where the unit tests find the checkout's own files (docs, config, recorded fixtures).

Named once here rather than as ``Path(__file__).parents[n]`` in each test, so that how deep a
test file sits in the folders that mirror the packages never changes what it reads.
"""

from __future__ import annotations

from pathlib import Path

#: the repository checkout these tests belong to
REPO_ROOT = Path(__file__).resolve().parents[2]
#: the files recorded from real clients and from Apache Kafka's own classes
FIXTURES = REPO_ROOT / "tests" / "fixtures"
DOCS = REPO_ROOT / "docs"
