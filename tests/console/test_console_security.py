"""ACLs and SCRAM users in the console, checked with ``kafka-acls`` and ``kafka-configs``:
ACLs against a pybroker node and an Apache Kafka 3.9 broker that both run Kafka's
``AclAuthorizer`` (the package's clusters have none, and the page says so); SCRAM users against
the package's pybroker cluster and reference Kafka."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from pybroker.compat.jvm_clients import KafkaCli
from pybroker.testing.broker_process import BrokerProcess
from pybroker.testing.console_process import ConsoleProcess
from pybroker.testing.reference_kafka import ReferenceKafka
from tests.console.helpers import click, confirm, load, rows, send, submit, unique

pytestmark = pytest.mark.compat

#: both secured brokers run Kafka's authorizer; a resource without ACLs stays open, so the
#: console's plaintext client (User:ANONYMOUS) can manage ACLs
SECURED = {"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
           "allow.everyone.if.no.acl.found": "true"}


@pytest.fixture(scope="module")
def secured(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, str]]:
    """``pybroker`` and ``kafka`` with an authorizer, each stopped by pid at the end."""
    work = tmp_path_factory.mktemp("secured")
    broker = BrokerProcess(work / "pybroker", overrides=SECURED, config=None)
    kafka = ReferenceKafka(work / "kafka", overrides=SECURED, lib=kafka_tools_lib)
    try:
        broker.start()
        kafka.start()
        yield {"pybroker": broker.bootstrap, "kafka": kafka.bootstrap}
    finally:
        broker.stop()
        kafka.stop()


@pytest.fixture(scope="module")
def secured_console(secured: dict[str, str],
                    tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleProcess]:
    with ConsoleProcess(tmp_path_factory.mktemp("secured-console"), secured) as process:
        yield process


def test_acls_added_and_removed_in_the_browser(
        secured_console: ConsoleProcess, secured: dict[str, str], kafka_tools_lib: Path,
        target: str, browser: Any, screenshots: Path) -> None:
    cli = KafkaCli(secured[target], kafka_tools_lib)
    topic = unique("guarded")
    # one ACL made by Kafka's tool: the console lists it
    cli.tool("kafka-acls", "--add", "--allow-principal", "User:bob", "--operation", "Write",
             "--topic", topic)
    load(browser, secured_console, f"/clusters/{target}/acls?q={topic}")
    assert rows(browser, "acls") == [["TOPIC", topic, "LITERAL", "User:bob", "*", "WRITE",
                                      "ALLOW", "Remove"]]

    load(browser, secured_console, f"/clusters/{target}/acls")
    submit(browser, "create-acl", {"resource_type": "GROUP", "name": f"{topic}-",
                                   "pattern": "PREFIXED", "principal": "User:alice",
                                   "operation": "READ", "permission": "DENY"})
    listed = cli.tool("kafka-acls", "--list", "--group", f"{topic}-",
                      "--resource-pattern-type", "prefixed").stdout
    assert "(principal=User:alice, host=*, operation=READ, permissionType=DENY)" in listed
    api = secured_console.get_json(f"/api/clusters/{target}/acls")
    assert api["authorizer"] is True
    assert {"resource_type": "GROUP", "name": f"{topic}-", "pattern": "PREFIXED",
            "principal": "User:alice", "host": "*", "operation": "READ",
            "permission": "DENY"} in api["acls"]
    browser.save_screenshot(str(screenshots / f"acls-{target}.png"))

    load(browser, secured_console, f"/clusters/{target}/acls?q={topic}")
    [bob] = [tr for tr in browser.find_elements(By.CSS_SELECTOR, "#acls tbody tr")
             if "User:bob" in tr.text]
    click(browser, bob.find_element(By.CSS_SELECTOR, "form.delete-acl button"))
    confirm(browser)
    assert "1 ACL(s) removed" in browser.find_element(By.CLASS_NAME, "flash").text
    assert "User:bob" not in cli.tool("kafka-acls", "--list", "--topic", topic).stdout

    # a principal without a type is refused before any call, as kafka-acls refuses it
    load(browser, secured_console, f"/clusters/{target}/acls")
    send(browser, "create-acl", {"resource_type": "TOPIC", "name": topic,
                                 "principal": "bob", "operation": "READ"})
    assert "Type:name" in browser.find_element(By.ID, "http-message").text


def test_a_cluster_without_an_authorizer_says_so(console: ConsoleProcess, target: str,
                                                 browser: Any) -> None:
    load(browser, console, f"/clusters/{target}/acls")
    assert "no authorizer" in browser.find_element(By.ID, "no-authorizer").text
    assert console.get_json(f"/api/clusters/{target}/acls")["authorizer"] is False


def test_scram_users_set_and_deleted_in_the_browser(
        console: ConsoleProcess, cli: KafkaCli, target: str, browser: Any) -> None:
    user = unique("operator")
    load(browser, console, f"/clusters/{target}/users")
    submit(browser, "upsert-user", {"user": user, "mechanism": "SCRAM-SHA-512",
                                    "iterations": "4096", "password": "never-shown-1"})
    assert ["SCRAM-SHA-512", "4096"] in [r[1:3] for r in rows(browser, "users")
                                          if r[0] == user]
    assert "never-shown-1" not in browser.page_source
    described = cli.tool("kafka-configs", "--describe", "--entity-type", "users",
                         "--entity-name", user).stdout
    assert "SCRAM-SHA-512=iterations=4096" in described, described
    assert console.get_json(f"/api/clusters/{target}/users") and "never-shown-1" not in \
        console.request(f"/api/clusters/{target}/users")[2].decode()

    [row] = [tr for tr in browser.find_elements(By.CSS_SELECTOR, "#users tbody tr")
             if tr.get_attribute("data-user") == user]
    click(browser, row.find_element(By.CSS_SELECTOR, "form.delete-user button"))
    confirm(browser)
    assert user not in [r[0] for r in rows(browser, "users")]
    described = cli.tool("kafka-configs", "--describe", "--entity-type", "users",
                         "--entity-name", user).stdout
    assert "SCRAM" not in described, described

