"""How ``BrokerProcess`` builds its child's working directory, environment and configuration,
with and without ``source=`` (another checkout) and ``env=``; no broker is started."""

from __future__ import annotations

import os
from pathlib import Path

from pybroker.testing.broker_process import (
    DEFAULT_CONFIG,
    REPO_ROOT,
    BrokerProcess,
    listener_endpoints,
)


def fake_checkout(root: Path) -> Path:
    (root / "pybroker").mkdir(parents=True)
    (root / "pybroker" / "__init__.py").write_text("")
    (root / "config").mkdir()
    (root / "config" / "server.properties").write_text("num.partitions=1\n")
    return root


def test_default_runs_this_checkout(tmp_path: Path) -> None:
    broker = BrokerProcess(tmp_path / "data")
    assert broker.workdir == REPO_ROOT
    assert broker.command()[broker.command().index("--config") + 1] == str(DEFAULT_CONFIG)
    env = broker.environment()
    assert env.get("PYTHONPATH") == os.environ.get("PYTHONPATH")
    assert env["PYTHONUNBUFFERED"] == os.environ.get("PYTHONUNBUFFERED", "1")


def test_source_is_workdir_first_on_pythonpath_and_gives_the_config(tmp_path: Path) -> None:
    tree = fake_checkout(tmp_path / "old")
    broker = BrokerProcess(tmp_path / "data", source=tree)
    assert broker.workdir == tree.resolve()
    assert broker.environment()["PYTHONPATH"].split(os.pathsep)[0] == str(tree.resolve())
    cmd = broker.command()
    assert cmd[cmd.index("--config") + 1] == str(tree.resolve() / "config" / "server.properties")
    assert broker.imported_from("pybroker") == {"pybroker": str(tree.resolve() / "pybroker" / "__init__.py")}


def test_explicit_config_and_extra_environment(tmp_path: Path) -> None:
    tree = fake_checkout(tmp_path / "old")
    own = tmp_path / "own.properties"
    own.write_text("")
    broker = BrokerProcess(tmp_path / "data", source=tree, config=own, env={"PYBROKER_PROBE": "1"})
    cmd = broker.command()
    assert cmd[cmd.index("--config") + 1] == str(own)
    assert broker.environment()["PYBROKER_PROBE"] == "1"


def test_start_waits_for_every_listener_it_can_name() -> None:
    listeners = "PLAINTEXT://127.0.0.1:9092, SSL://:9093,SASL_SSL://[::1]:9094,EPHEMERAL://h:0"
    assert listener_endpoints(listeners, "127.0.0.5") == [
        ("127.0.0.1", 9092), ("127.0.0.5", 9093), ("::1", 9094)]
    assert listener_endpoints("") == []
