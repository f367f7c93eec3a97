"""Calibration of the suite's security scenarios (sasl-plain, sasl-scram, acls) and of its
secured-broker options: a pybroker and Apache Kafka 3.9, both with a SASL_PLAINTEXT listener
offering PLAIN and SCRAM-SHA-256/512 and Kafka's AclAuthorizer, are tested in one run as the
user ``alice`` (a PLAIN user of the listener's JAAS settings with SCRAM credentials of the same
password). Every scenario run passes on both: the security ones, and one produce-fetch per
client, which shows each client is given the run's SASL settings (a client missing here is
skipped, loudly).

Then the statuses a broker that lacks something gets: a pybroker offering PLAIN alone and no
authorizer reports sasl-scram and acls *not offered*, and a run without credentials reports
the SASL scenarios skipped with the reason.
"""

from __future__ import annotations

import json
import socket
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import alter_user_scram_credentials_request as alter_req
from pybroker.compat.apiversions import probe
from pybroker.compat.cleanup import cleanup
from pybroker.compat.cli import main
from pybroker.compat.clients import CLIENTS
from pybroker.compat.runner import Run, run_suite
from pybroker.compat.scenario import Scenario, load_scenarios
from pybroker.compat.scenarios.security import SECURED_CAPABILITIES
from pybroker.compat.security import AuthenticationError, ClientSecurity
from pybroker.compat.wire import WireConnection
from pybroker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512
from pybroker.testing.broker_process import BrokerProcess, free_port
from pybroker.testing.reference_kafka import ReferenceKafka
from tests.compat.suite.jvm_subset import fetch_jvm_jars
from tests.conftest import REFERENCE_OVERRIDES

pytestmark = pytest.mark.compat

USER, PASSWORD = "alice", "alice-secret"
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" '
        f'user_admin="admin-secret" user_{USER}="{PASSWORD}";')
SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"
ALICE = ClientSecurity(protocol="SASL_PLAINTEXT", mechanism="PLAIN", username=USER,
                       password=PASSWORD)
#: besides the security scenarios, one produce-fetch per client given the run's settings
#: (Spark's, at 15-35 s, is left to the full runs)
ALSO = ("kafka-python/produce-fetch", "confluent-kafka/produce-fetch",
        "aiokafka/produce-fetch", "wire/produce-fetch-versions", "java/produce-fetch",
        "cli/produce-fetch")


def overrides(port: int, sasl_port: int, mechanisms: str = "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
              authorizer: bool = True) -> dict[str, object]:
    listeners = f"PLAINTEXT://127.0.0.1:{port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}"
    out: dict[str, object] = {
        **REFERENCE_OVERRIDES,
        "listeners": listeners, "advertised.listeners": listeners,
        "sasl.enabled.mechanisms": mechanisms,
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config": SCRAM_JAAS,
    }
    if authorizer:
        out.update({"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
                    "allow.everyone.if.no.acl.found": "true", "super.users": "User:admin"})
    return out


def make_scram_user(plaintext: str) -> None:
    """SCRAM-SHA-256 and -512 credentials for alice (as ANONYMOUS on the PLAINTEXT listener)."""
    salt = b"calibration-salt"
    body = alter_req.AlterUserScramCredentialsRequest(upsertions=[
        alter_req.ScramCredentialUpsertion(
            name=USER, mechanism=mech.type_code, iterations=4096, salt=salt,
            salted_password=mech.salted_password(PASSWORD.encode(), salt, 4096))
        for mech in (SCRAM_SHA_256, SCRAM_SHA_512)])
    with WireConnection(plaintext) as conn:
        answer = conn.call(51, 0, body)
    assert [(r.user, r.error_code) for r in answer.results] == [(USER, 0)], answer


def wait_for_scram(sasl: str) -> None:
    """Kafka's brokers learn of new credentials through ZooKeeper: wait until they log in."""
    deadline = time.monotonic() + 30
    for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
        while True:
            try:
                probe(sasl, 5, ALICE.with_sasl(mechanism=mechanism))
                break
            except Exception:  # noqa: BLE001 - not yet: ProbeError of a refused login
                assert time.monotonic() < deadline, f"{sasl} never took alice's {mechanism}"
                time.sleep(0.2)


def wait_listening(port: int) -> None:
    """The broker's start answers on its first listener; wait for the SASL one too."""
    deadline = time.monotonic() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert time.monotonic() < deadline, f"nothing listens on 127.0.0.1:{port}"
            time.sleep(0.05)


def chosen() -> list[Scenario]:
    return [s for s in load_scenarios().values()
            if s.capability in SECURED_CAPABILITIES or s.id in ALSO]


@pytest.fixture(scope="module")
def secured_run(kafka_tools_lib: Path, tmp_path_factory: pytest.TempPathFactory,
                ) -> Iterator[Run]:
    base = tmp_path_factory.mktemp("calibration-security")
    fetch_jvm_jars()
    ours, ours_sasl, theirs, theirs_sasl = (free_port() for _ in range(4))
    broker = BrokerProcess(base / "kafka-logs", port=ours, config=None,
                           overrides={**overrides(ours, ours_sasl),
                                      "auto.create.topics.enable": "false"})
    kafka = ReferenceKafka(base / "reference", port=theirs, lib=kafka_tools_lib,
                           overrides=overrides(theirs, theirs_sasl))
    try:
        broker.start()
        kafka.start()
        for plaintext, sasl in ((ours, ours_sasl), (theirs, theirs_sasl)):
            make_scram_user(f"127.0.0.1:{plaintext}")
            wait_for_scram(f"127.0.0.1:{sasl}")
        yield run_suite(f"127.0.0.1:{ours_sasl}", chosen(), name="pybroker",
                        reference_bootstrap=f"127.0.0.1:{theirs_sasl}",
                        work_dir=base / "scenarios", jobs=2, group_wait=10, security=ALICE)
    finally:
        kafka.stop()
        broker.stop()


def _statuses(results: dict) -> dict[str, str]:
    return {k: f"{r.status}: {r.message}" for k, r in results.items()}


def _passed(results: dict) -> bool:
    """Every scenario passed, or was skipped because its client is truly missing here (said
    loudly)."""
    skipped = {k: r.message for k, r in results.items() if r.status == "skipped"}
    for key in skipped:
        assert CLIENTS[results[key].client].missing(), f"{key} skipped: {skipped[key]}"
    if skipped:
        warnings.warn(f"scenarios skipped (client missing): {skipped}", stacklevel=2)
    return all(r.status in ("pass", "skipped") for r in results.values())


def test_security_scenarios_pass_against_kafka_and_pybroker(secured_run: Run) -> None:
    assert secured_run.reference is not None
    for target in (secured_run.reference, secured_run.target):
        statuses = _statuses(target.results)
        assert sorted(statuses) == sorted(s.id for s in chosen())
        assert _passed(target.results), (target.name, statuses)
        assert target.cleanup["left"] == [], target.cleanup
        assert target.cleanup["topics_deleted"], "the run's topics were not found by cleanup"
    # the scenarios logged in, and saw the wrong password refused, as alice
    plain = secured_run.target.results["kafka-python/sasl-plain"].evidence
    assert "SASL_AUTHENTICATION_FAILED" in plain["wrong password"]
    assert secured_run.target.results["confluent-kafka/acls"].evidence["principal"] == \
        "User:alice"


def test_cleanup_deletes_the_acls_of_the_run_prefix_only(secured_run: Run) -> None:
    """ACLs a killed acls scenario would leave (on patterns named with the run prefix) go with
    the run's cleanup; an ACL of any other name stays."""
    from confluent_kafka.admin import (
        AclBinding,
        AclBindingFilter,
        AclOperation,
        AclPermissionType,
        AdminClient,
        ResourcePatternType,
        ResourceType,
    )

    prefix = "compat-cleanup-acls-"
    ours = [AclBinding(ResourceType.TOPIC, prefix + "t", ResourcePatternType.LITERAL,
                       "User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW),
            AclBinding(ResourceType.GROUP, prefix, ResourcePatternType.PREFIXED,
                       "User:bob", "*", AclOperation.READ, AclPermissionType.DENY)]
    other = AclBinding(ResourceType.TOPIC, "kept-" + prefix, ResourcePatternType.LITERAL,
                       "User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW)
    assert secured_run.reference is not None
    for target in (secured_run.target, secured_run.reference):
        admin = AdminClient({"bootstrap.servers": target.bootstrap, **ALICE.confluent()})
        for future in admin.create_acls([*ours, other], request_timeout=15).values():
            future.result(timeout=15)
        done = cleanup(target.bootstrap, prefix, group_wait=1, security=ALICE)
        assert done.left == [] and len(done.acls) == 2, (target.name, done)
        kept = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                AclOperation.ANY, AclPermissionType.ANY)
        deadline = time.monotonic() + 15
        while True:  # Kafka's other caches learn of ACL changes through ZooKeeper
            found = admin.describe_acls(kept, request_timeout=15).result(timeout=15)
            if [str(b) for b in found] == [str(other)]:
                break
            assert time.monotonic() < deadline, (target.name, found)
            time.sleep(0.2)
        admin.delete_acls([AclBindingFilter(
            other.restype, other.name, other.resource_pattern_type, None, None,
            AclOperation.ANY, AclPermissionType.ANY)], request_timeout=15)


def test_an_unauthenticated_probe_is_refused(secured_run: Run) -> None:
    """The probe and the cleanup do authenticate: without it the SASL listener answers
    nothing but ApiVersions and SaslHandshake."""
    bootstrap = secured_run.target.bootstrap
    wrong = ALICE.with_sasl(password="not-" + PASSWORD)
    with pytest.raises(AuthenticationError) as refused:
        WireConnection(bootstrap, 5, security=wrong)
    assert refused.value.error_code == 58  # SASL_AUTHENTICATION_FAILED


def test_what_a_broker_lacks_is_not_offered_and_no_credentials_skip(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    port, sasl_port = free_port(), free_port()
    broker = BrokerProcess(tmp_path / "kafka-logs", port=port, config=None,
                           overrides=overrides(port, sasl_port, mechanisms="PLAIN",
                                               authorizer=False))
    try:
        broker.start()
        wait_listening(sasl_port)
        security = [s for s in load_scenarios().values() if s.capability in SECURED_CAPABILITIES]
        run = run_suite(f"127.0.0.1:{sasl_port}", security, name="plain-only",
                        work_dir=tmp_path / "with", jobs=2, group_wait=5, security=ALICE)
        assert {k: r.status for k, r in run.target.results.items()} == {
            "kafka-python/sasl-plain": "pass", "kafka-python/sasl-scram": "not offered",
            "confluent-kafka/acls": "not offered"}, _statuses(run.target.results)
        assert "PLAIN" in run.target.results["kafka-python/sasl-scram"].message
        # the command: the options make the same settings, the password from the environment
        monkeypatch.setenv("PYBROKER_COMPAT_SASL_PASSWORD", PASSWORD)
        status = main(["--bootstrap", f"127.0.0.1:{sasl_port}", "--security-protocol",
                       "SASL_PLAINTEXT", "--sasl-username", USER, "--scenarios",
                       "kafka-python/sasl-plain,wire/produce-fetch-versions",
                       "--report", str(tmp_path / "card"), "--group-wait", "5"])
        card = json.loads((tmp_path / "card" / "report.json").read_text())
        assert status == 0, card["target"]["results"]
        assert {k: r["status"] for k, r in card["target"]["results"].items()} == {
            "kafka-python/sasl-plain": "pass", "wire/produce-fetch-versions": "pass"}
        assert not (tmp_path / "card" / "report.json").read_text().count(PASSWORD)
        assert card["target"]["connection"] == f"SASL_PLAINTEXT, PLAIN as {USER}"
        assert f"Connected with SASL_PLAINTEXT, PLAIN as {USER}." in (
            tmp_path / "card" / "report.md").read_text()
        anonymous = run_suite(f"127.0.0.1:{port}", security, name="anonymous",
                              work_dir=tmp_path / "without", jobs=2, group_wait=5)
        results = anonymous.target.results
        assert results["kafka-python/sasl-plain"].status == "skipped"
        assert "no credentials given" in results["kafka-python/sasl-plain"].message
        assert results["kafka-python/sasl-scram"].status == "skipped"
        assert results["confluent-kafka/acls"].status == "not offered"
    finally:
        broker.stop()


def test_over_sasl_ssl_every_library_checks_the_certificate(tmp_path: Path) -> None:
    """A SASL_SSL listener: with ``cafile`` the CA that issued the broker's certificate, the
    libraries, the probe and the cleanup connect and log in; with another CA nothing does."""
    from pybroker.testing.certs import CertificateAuthority, server_properties

    ca, stranger = CertificateAuthority.create(), CertificateAuthority.create()
    port, tls_port = free_port(), free_port()
    listeners = f"PLAINTEXT://127.0.0.1:{port},SASL_SSL://127.0.0.1:{tls_port}"
    broker = BrokerProcess(tmp_path / "kafka-logs", port=port, config=None, overrides={
        **REFERENCE_OVERRIDES, "listeners": listeners, "advertised.listeners": listeners,
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
        **server_properties(ca, ca.issue("CN=broker"), listener="SASL_SSL")})
    over_tls = ClientSecurity("SASL_SSL", "PLAIN", USER, PASSWORD,
                              cafile=str(ca.write(tmp_path, "ca")))
    ids = ("kafka-python/sasl-plain", *ALSO[:4], "cli/produce-fetch")
    scenarios = [s for s in load_scenarios().values() if s.id in ids]
    try:
        broker.start()
        wait_listening(tls_port)
        run = run_suite(f"127.0.0.1:{tls_port}", scenarios, name="sasl-ssl",
                        work_dir=tmp_path / "right", jobs=2, group_wait=5, security=over_tls)
        assert sorted(run.target.results) == sorted(ids)
        assert _passed(run.target.results), _statuses(run.target.results)
        assert run.target.cleanup["left"] == [] and run.target.cleanup["topics_deleted"]
        wrong_ca = ClientSecurity("SASL_SSL", "PLAIN", USER, PASSWORD,
                                  cafile=str(stranger.write(tmp_path, "stranger")))
        refused = run_suite(f"127.0.0.1:{tls_port}", scenarios[:1], name="wrong-ca",
                            work_dir=tmp_path / "wrong", jobs=1, group_wait=5,
                            security=wrong_ca)
        assert "CERTIFICATE_VERIFY_FAILED" in refused.target.probe_error
    finally:
        broker.stop()
