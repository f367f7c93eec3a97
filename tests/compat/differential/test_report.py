"""docs/compatibility.md lists exactly the differences the differential tests document."""

from __future__ import annotations

from tests.compat.differential.report import DOC, rewrite


def test_compatibility_doc_is_current() -> None:
    doc = DOC.read_text()
    assert rewrite(doc) == doc, (
        "docs/compatibility.md is out of date with the KNOWN lists of tests/compat/differential: "
        "run make compat-doc"
    )
