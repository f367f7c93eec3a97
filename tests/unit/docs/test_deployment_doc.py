"""docs/deployment.md shows only code the tests run: each example marked
``<!-- example: path -->`` must appear, lines in order (indentation aside), in that file."""

from __future__ import annotations

import re
import textwrap

import pytest

from tests.unit.paths import REPO_ROOT as ROOT

DOC = ROOT / "docs" / "deployment.md"
EXAMPLE = re.compile(r"<!-- example: (?P<path>\S+) -->\n```\w*\n(?P<code>.*?)\n```", re.S)


def examples() -> list[tuple[str, str]]:
    return [(m["path"], m["code"]) for m in EXAMPLE.finditer(DOC.read_text())]


def test_the_doc_has_examples() -> None:
    assert len(examples()) >= 6


@pytest.mark.parametrize(("path", "code"), examples(),
                         ids=[f"{i}-{p}" for i, (p, _) in enumerate(examples())])
def test_example_is_in_its_file(path: str, code: str) -> None:
    source = (ROOT / path).read_text().splitlines()
    wanted = textwrap.dedent(code).splitlines()
    for start, line in enumerate(source):
        if line.strip() != wanted[0].strip():
            continue
        window = source[start:start + len(wanted)]
        if textwrap.dedent("\n".join(window)).splitlines() == wanted:
            return
    pytest.fail(f"docs/deployment.md shows code that is not in {path}:\n{code}")
