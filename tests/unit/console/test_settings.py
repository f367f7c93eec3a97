"""The console's settings (command line and TOML file) and its server-side paging."""

from __future__ import annotations

from pathlib import Path

import pytest

from pybroker.console.cluster import Page
from pybroker.console.settings import (
    SettingsError,
    listen_address,
    parse_cluster,
    settings_from,
)


def test_a_cluster_from_the_command_line() -> None:
    c = parse_cluster("prod=10.0.0.1:9092,10.0.0.2:9092")
    assert (c.name, c.bootstrap) == ("prod", "10.0.0.1:9092,10.0.0.2:9092")
    assert c.security.protocol == "PLAINTEXT"
    for bad in ("prod", "=host:9092", "has space=host:9092", "prod="):
        with pytest.raises(SettingsError):
            parse_cluster(bad)


def test_the_file_with_security_and_the_command_line_over_it(tmp_path: Path) -> None:
    config = tmp_path / "console.toml"
    config.write_text('''
listen = "127.0.0.1:9000"
[auth]
username = "operator"
password = "pw"
[[clusters]]
name = "secured"
bootstrap = "b:9093"
metrics = ["http://b:9404/metrics"]
[clusters.security]
protocol = "SASL_SSL"
mechanism = "SCRAM-SHA-512"
username = "console"
password = "never-shown"
cafile = "/ca.pem"
''')
    s = settings_from(config, ["local=127.0.0.1:9092"], "127.0.0.1:8081", read_only=True)
    assert [c.name for c in s.clusters] == ["secured", "local"]
    assert (s.listen, s.read_only, s.username, s.password) == (
        "127.0.0.1:8081", True, "operator", "pw")
    secured = s.cluster("secured")
    assert secured is not None
    assert secured.security.confluent()["sasl.password"] == "never-shown"
    assert "never-shown" not in repr(secured.public())
    assert secured.public()["security"] == (
        "SASL_SSL, SCRAM-SHA-512 as console, CA certificates from /ca.pem")


@pytest.mark.parametrize("text, message", [
    ('[[clusters]]\nname = "a"\n', "needs a name and a bootstrap"),
    ('colour = "blue"\n', "unknown settings colour"),
    ('[[clusters]]\nname = "a"\nbootstrap = "h:1"\n[clusters.security]\nprotocol = "X"\n',
     "unknown security protocol"),
    ('[[clusters]]\nname = "a"\nbootstrap = "h:1"\n[[clusters]]\nname = "a"\n'
     'bootstrap = "h:2"\n', "given twice: a"),
    ('[auth]\nusername = "u"\n[[clusters]]\nname = "a"\nbootstrap = "h:1"\n',
     "both a username and a password"),
    ("not toml [", "Expected"),
])
def test_bad_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "console.toml"
    config.write_text(text)
    with pytest.raises(SettingsError, match=message):
        settings_from(config, [], None, read_only=False)


def test_no_cluster_and_bad_listen_addresses() -> None:
    with pytest.raises(SettingsError, match="no clusters"):
        settings_from(None, [], None, read_only=False)
    assert listen_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert listen_address("[::1]:8080") == ("::1", 8080)
    for bad in ("8080", "host:", "host:99999"):
        with pytest.raises(SettingsError):
            listen_address(bad)


def test_a_page_is_searched_sorted_and_cut_on_the_server() -> None:
    rows = [{"name": f"t{i}", "size": size} for i, size in enumerate([5, None, 9, 1, 9])]
    rows.append({"name": "big", "size": 100})

    def names(page: Page) -> tuple[int, list[str]]:
        total, taken = page.take(rows)
        return total, [r["name"] for r in taken]

    # unknown sizes last in both directions; equal ones by name
    assert names(Page(limit=10, sort="size", search="t")) == (5, ["t3", "t0", "t2", "t4", "t1"])
    assert names(Page(limit=10, sort="-size", search="t")) == (5, ["t4", "t2", "t0", "t3", "t1"])
    assert names(Page(offset=2, limit=2, sort="-size", search="T")) == (5, ["t0", "t3"])
    assert names(Page(limit=2)) == (6, ["big", "t0"])
    assert names(Page(offset=10, limit=2)) == (6, [])


def test_metrics_endpoints_from_the_command_line() -> None:
    settings = settings_from(None, ["a=h:9092", "b=k:9092"], None, False,
                             ["a=http://h:9404/metrics,http://i:9404/metrics"], 2.0)
    assert settings.cluster("a").metrics == ("http://h:9404/metrics", "http://i:9404/metrics")
    assert settings.cluster("b").metrics == ()
    assert settings.metrics_interval == 2.0
    for bad in ("a", "a=", "a=h:9404", "c=http://h:9404/metrics"):
        with pytest.raises(SettingsError):
            settings_from(None, ["a=h:9092"], None, False, [bad])
    with pytest.raises(SettingsError, match="metrics interval"):
        settings_from(None, ["a=h:9092"], None, False, [], 0.1)
