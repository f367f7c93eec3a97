"""The layer table generator reads the contracts as import-linter does and says, for each
package, what the layers and the forbidden contracts keep it from importing."""

from __future__ import annotations

from pathlib import Path

import pytest

from pybroker.tools import layers_doc

CONFIG = """
[importlinter]
root_packages = pybroker

[importlinter:contract:layers]
name = the layers
type = layers
layers =
    pybroker.cli
    pybroker.api | pybroker.reconfigurables
    pybroker.controller : pybroker.coordinator
    # a comment
    pybroker.log

[importlinter:contract:handlers]
name = handlers use services
type = forbidden
allow_indirect_imports = True
source_modules = pybroker.api
forbidden_modules =
    pybroker.cli
    pybroker.log

[importlinter:contract:log]
name = the log is storage
type = forbidden
source_modules = pybroker.log
forbidden_modules = pybroker.api
"""


@pytest.fixture
def contracts(tmp_path: Path) -> layers_doc.Contracts:
    path = tmp_path / ".importlinter"
    path.write_text(CONFIG)
    return layers_doc.read_contracts(path)


def test_layers_and_siblings_are_read_top_down(contracts: layers_doc.Contracts) -> None:
    assert contracts.layers == [("pybroker.cli",), ("pybroker.api", "pybroker.reconfigurables"),
                                ("pybroker.controller", "pybroker.coordinator"),
                                ("pybroker.log",)]
    assert contracts.independent == [True, True, False, True]
    assert [c.name for c in contracts.forbidden] == ["handlers use services",
                                                     "the log is storage"]


def test_what_a_package_may_not_import(contracts: layers_doc.Contracts) -> None:
    assert layers_doc.may_not_import(contracts, 0, "pybroker.cli") == "-"
    # independent siblings, and what a forbidden contract adds below it
    assert layers_doc.may_not_import(contracts, 1, "pybroker.api") == (
        "the layers above; `pybroker.reconfigurables`; `pybroker.log` (directly)")
    # siblings joined with ':' may import each other
    assert layers_doc.may_not_import(contracts, 2, "pybroker.coordinator") == "the layers above"
    # what the layers already forbid is not repeated
    assert layers_doc.may_not_import(contracts, 3, "pybroker.log") == "the layers above"


def test_the_table_goes_between_the_markers_only() -> None:
    doc = f"# Title\n\nbefore\n{layers_doc.BEGIN}\nold table\n{layers_doc.END}\nafter\n"
    assert layers_doc.rewrite(doc, "NEW") == "# Title\n\nbefore\nNEW\nafter\n"
    with pytest.raises(SystemExit):
        layers_doc.rewrite("no markers", "NEW")


def test_a_package_in_no_layer_fails(contracts: layers_doc.Contracts) -> None:
    with pytest.raises(SystemExit, match="pybroker.admin"):
        layers_doc.check_complete(contracts, ["pybroker"])


def test_restructured_text_becomes_markdown() -> None:
    assert layers_doc.markdown(
        "The :class:`~pybroker.a.Broker` of\n:mod:`pybroker.zk`, ``x | y``.") == (
        "The `Broker` of `pybroker.zk`, `x \\| y`.")
