"""The peer brokers' catalogue and kfake's build and command logic (no process started)."""

from __future__ import annotations

import os
from pathlib import Path

from pybroker.testing import peers


def test_every_peer_is_either_obtainable_or_says_why_not() -> None:
    names = [p.name for p in peers.PEERS]
    assert len(names) == len(set(names))
    assert peers.KFAKE.obtainable and not peers.KFAKE.unobtainable
    assert peers.TANSU.obtainable and not peers.TANSU.unobtainable
    for peer in peers.PEERS:
        assert peer.description


def _touch(path: Path, mtime: float) -> None:
    path.write_text("x")
    os.utime(path, (mtime, mtime))


def test_binary_is_current_only_when_no_source_is_newer(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    binary = tmp_path / "bin" / "kfake"
    for name in ("go.mod", "go.sum", "main.go"):
        _touch(source / name, 1000.0)
    _touch(source / "README.txt", 5000.0)  # not a source: never makes the binary stale
    assert not peers.binary_is_current(binary, source)
    binary.parent.mkdir()
    _touch(binary, 2000.0)
    assert peers.binary_is_current(binary, source)
    _touch(source / "go.sum", 3000.0)
    assert not peers.binary_is_current(binary, source)


def test_go_environment_keeps_the_caches_in_the_given_place(tmp_path: Path) -> None:
    env = peers.go_environment(tmp_path)
    assert env["GOPATH"] == str(tmp_path / "path")
    assert env["GOCACHE"] == str(tmp_path / "build")
    assert "-mod=mod" in env["GOFLAGS"].split()
    assert env["GOTOOLCHAIN"] == "local"


def test_kfake_command_names_the_port_and_kafkas_defaults(tmp_path: Path) -> None:
    broker = peers.KfakeBroker(tmp_path, port=19999, binary=tmp_path / "kfake")
    assert broker.bootstrap == "127.0.0.1:19999"
    assert broker.command() == [
        str(tmp_path / "kfake"), "-port", "19999", "-partitions", "1", "-auto-create=true",
        "-log-level", "warn",
    ]
    assert broker.pid is None and not broker.is_running()
    assert broker.stop() is None


def test_the_kfake_sources_pin_their_modules() -> None:
    assert (peers.KFAKE_SOURCE / "go.sum").exists()
    go_mod = (peers.KFAKE_SOURCE / "go.mod").read_text()
    assert "github.com/twmb/franz-go/pkg/kfake v" in go_mod
