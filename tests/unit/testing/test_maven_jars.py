"""The fixtures' jar-fetching step: a missing tool skips loudly, a failing script fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compat.maven_jars import fetch_or_skip


def test_missing_tool_skips_naming_it(tmp_path: Path):
    script = tmp_path / "never-run.sh"
    with pytest.raises(pytest.skip.Exception, match=r"^SKIPPED: the X tests need no-such-tool-1 "):
        fetch_or_skip(script, tools=("bash", "no-such-tool-1"), needed_for="the X tests")


def test_failing_script_fails_with_its_output(tmp_path: Path):
    script = tmp_path / "failing.sh"
    script.write_text("echo resolving >&2; exit 3\n")
    with pytest.raises(pytest.fail.Exception, match=r"failing.sh failed \(3\):\n\nresolving"):
        fetch_or_skip(script, tools=("bash",), needed_for="the X tests")


def test_succeeding_script_gets_its_arguments(tmp_path: Path):
    out = tmp_path / "args"
    script = tmp_path / "ok.sh"
    script.write_text(f'echo "$@" > {out}\n')
    fetch_or_skip(script, "a", "b c", tools=("bash",), needed_for="the X tests")
    assert out.read_text() == "a b c\n"
