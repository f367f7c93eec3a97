"""The compatibility suite's scenario interface: registration, names, evidence (pure)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pybroker.compat import CAPABILITIES, CLIENTS, Context, ScenarioFailed, registry, scenario
from pybroker.compat.scenario import jsonable, load_scenarios


def _ctx(tmp_path=None) -> Context:
    return Context(bootstrap="127.0.0.1:9092", run_id="r1", scenario_id="wire/produce-fetch",
                   deadline=time.monotonic() + 10,
                   evidence_path=None if tmp_path is None else tmp_path / "ev.jsonl")


def test_names_are_under_the_run_prefix() -> None:
    ctx = _ctx()
    assert ctx.prefix == "compat-r1-"
    assert ctx.topic() == "compat-r1-wire-produce-fetch-t"
    assert ctx.topic("2") == "compat-r1-wire-produce-fetch-t2"
    assert ctx.group().startswith(ctx.prefix) and ctx.group() != ctx.topic()
    assert ctx.transactional_id("a").startswith(ctx.prefix)


def test_evidence_is_written_as_it_is_attached(tmp_path) -> None:
    ctx = _ctx(tmp_path)
    ctx.evidence("sent", [b"k1", b"\xff"])
    lines = [json.loads(x) for x in (tmp_path / "ev.jsonl").read_text().splitlines()]
    assert lines == [{"label": "sent", "value": ["k1", "0xff"]}]
    with pytest.raises(ScenarioFailed) as e:
        ctx.check(1 == 2, "differs", got=3)
    assert e.value.evidence == {"got": 3} and ctx.attached["got"] == 3


def test_wait_until_fails_with_what_did_not_happen() -> None:
    with pytest.raises(ScenarioFailed, match="the thing did not happen"):
        _ctx().wait_until(lambda: False, "the thing", timeout=0.05, interval=0.01)
    assert _ctx().wait_until(lambda: 7, "x") == 7


def test_registration_checks_its_metadata() -> None:
    with pytest.raises(ValueError, match="unknown capability"):
        scenario("no-such-thing", client="wire")
    with pytest.raises(ValueError, match="unknown client"):
        scenario("produce-fetch", client="cobol")

    def local(ctx: Context) -> None:
        pass

    with pytest.raises(ValueError, match="module-level"):
        scenario("produce-fetch", client="wire", name="local-test")(local)


def test_every_registered_scenario_names_known_things() -> None:
    load_scenarios()
    assert registry
    for s in registry.values():
        assert s.capability in CAPABILITIES and s.client in CLIENTS
        assert callable(s.load()) and s.timeout > 0 and s.description, s.id


def test_jsonable() -> None:
    assert jsonable({1: (b"a", {2})}) == {"1": ["a", [2]]}
    assert jsonable(object()).startswith("<object")


def test_cleanup_refuses_a_prefix_the_suite_does_not_own() -> None:
    from pybroker.compat.cleanup import cleanup

    for prefix in ("", "compat-", "orders-", "compat"):
        with pytest.raises(ValueError, match="refusing"):
            cleanup("127.0.0.1:1", prefix)


def test_split_bootstrap() -> None:
    from pybroker.compat.wire import split_bootstrap

    assert split_bootstrap("127.0.0.1:9092") == ("127.0.0.1", 9092)
    assert split_bootstrap("[::1]:9093,other:1") == ("::1", 9093)
    with pytest.raises(ValueError):
        split_bootstrap("localhost")


def test_a_failures_traceback_names_files_without_the_machines_paths() -> None:
    import kafka  # a client's file, from its site-packages

    from pybroker.compat import child

    site = str(Path(kafka.__file__).parents[1])
    here = child.__file__
    trace = f'  File "{here}", line 1\n  File "{site}/kafka/util.py", line 2\n'
    assert child._shortened(trace) == (
        '  File "pybroker/compat/child.py", line 1\n  File "site-packages/kafka/util.py", line 2\n')
