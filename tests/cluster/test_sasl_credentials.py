"""SCRAM credentials in a ZooKeeper-mode cluster: AlterUserScramCredentials, sent to the
controller by the admin client, writes ``/config/users/<user>`` as Kafka writes it and
announces it under ``/config/changes``; every broker then authenticates the user on its
SASL_PLAINTEXT listener and describes its credentials; a deletion reaches every broker too."""

from __future__ import annotations

import json
import time
from pathlib import Path

from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)
from kazoo.client import KazooClient

from pybroker.security.scram import SCRAM_SHA_256, ScramClient
from pybroker.testing.broker_process import free_port
from pybroker.testing.cluster import ClusterProcesses
from tests.compat import kafka_wire as wire
from tests.compat.test_sasl import authenticate, handshake

USER = "cluster user"  # a space: the znode name is sanitized, as Kafka's Sanitizer does


def scram_ok(bootstrap: str, password: str) -> bool:
    with wire.connect(bootstrap) as sock:
        assert handshake(sock, "SCRAM-SHA-256")[0] == 0
        client = ScramClient(SCRAM_SHA_256, USER, password)
        first = authenticate(sock, client.first())
        if first is None or first.error:
            return False
        final = authenticate(sock, client.final(first.auth_bytes), cid=3)
        return final is not None and final.error == 0


def wait_until(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_credentials_reach_every_broker(tmp_path: Path, zk_connect: str,
                                        zk: KazooClient) -> None:
    cluster = ClusterProcesses(tmp_path / "cluster", zk_connect, size=2, overrides={
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "inter.broker.listener.name": "PLAINTEXT",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256",
    })
    sasl = {}
    for broker_id, broker in cluster.brokers.items():
        sasl[broker_id] = f"127.0.0.1:{free_port()}"
        listeners = f"PLAINTEXT://127.0.0.1:{broker.port},SASL_PLAINTEXT://{sasl[broker_id]}"
        broker.extra_overrides.update({"listeners": listeners,
                                       "advertised.listeners": listeners})
    try:
        cluster.start()
        cluster.wait_formed()
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        upsert = UserScramCredentialUpsertion(
            USER, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), b"cluster-secret")
        admin.alter_user_scram_credentials([upsert])[USER].result(30)

        data, _ = zk.get("/config/users/cluster%20user")
        entity = json.loads(data)
        assert entity["version"] == 1
        fields = dict(f.split("=", 1) for f in entity["config"]["SCRAM-SHA-256"].split(","))
        assert set(fields) == {"salt", "stored_key", "server_key", "iterations"}
        assert fields["iterations"] == "8192"
        notes = [json.loads(zk.get(f"/config/changes/{n}")[0])
                 for n in zk.get_children("/config/changes")]
        assert {"version": 2, "entity_path": "users/cluster%20user"} in notes

        for bootstrap in sasl.values():
            wait_until(lambda b=bootstrap: scram_ok(b, "cluster-secret"), 30,
                       f"{bootstrap} never authenticated {USER}")
            assert not scram_ok(bootstrap, "wrong")
        for broker in cluster.brokers.values():
            one = AdminClient({"bootstrap.servers": broker.bootstrap})
            info = one.describe_user_scram_credentials([USER])[USER].result(30)
            assert [(i.mechanism, i.iterations) for i in info.scram_credential_infos] == [
                (ScramMechanism.SCRAM_SHA_256, 8192)]

        admin.alter_user_scram_credentials([UserScramCredentialDeletion(
            USER, ScramMechanism.SCRAM_SHA_256)])[USER].result(30)
        for bootstrap in sasl.values():
            wait_until(lambda b=bootstrap: not scram_ok(b, "cluster-secret"), 30,
                       f"{bootstrap} still authenticates a deleted credential")
    finally:
        cluster.stop()
