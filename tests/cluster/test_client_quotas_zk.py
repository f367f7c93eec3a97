"""Client quotas in a ZooKeeper-mode cluster: AlterClientQuotas on one broker writes the
entities under ``/config/users`` and ``/config/clients`` as Kafka writes them and announces
each under ``/config/changes``; another broker describes them at once (it reads ZooKeeper) and
enforces them within a second (its watch); a broker that was down applies them when it starts;
removing the last quota of an entity removes its znodes, as Kafka's ``tryCleanQuotaNodes``."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable

from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from protocol.messages import (
    alter_client_quotas_request as acq,
    describe_client_quotas_request as dcq,
    produce_request as pr,
    produce_response as pr_response,
)
from protocol.records.record import build_batch
from pybroker.testing.cluster import ClusterProcesses
from pybroker.testing.wire_client import WireClient

PRODUCE, DESCRIBE_CLIENT_QUOTAS, ALTER_CLIENT_QUOTAS = 0, 48, 49
QUOTA, SIZE = 10_240, 120_000


def alter(bootstrap: str, entity: list[tuple[str, str | None]],
          quotas: dict[str, float | None]) -> None:
    with WireClient(bootstrap) as c:
        r = c.call(ALTER_CLIENT_QUOTAS, 1, acq.AlterClientQuotasRequest(entries=[acq.EntryData(
            entity=[acq.EntityData(entity_type=t, entity_name=n) for t, n in entity],
            ops=[acq.OpData(key=k, value=v or 0.0, remove=v is None)
                 for k, v in quotas.items()])]))
    assert [(e.error_code, e.error_message) for e in r.entries] == [(0, None)], r


def described(bootstrap: str) -> dict[tuple[tuple[str, str | None], ...], dict[str, float]]:
    with WireClient(bootstrap) as c:
        r = c.call(DESCRIBE_CLIENT_QUOTAS, 1, dcq.DescribeClientQuotasRequest(components=[]))
    assert r.error_code == 0, r
    return {tuple((e.entity_type, e.entity_name) for e in entry.entity):
            {v.key: v.value for v in entry.values} for entry in r.entries}


def produce_as_new_client(bootstrap: str, topic: str) -> pr_response.ProduceResponse:
    """120 KB produced by a client id never seen before (each has a quota of its own)."""
    batch = build_batch([(None, b"z" * SIZE)])
    request = pr.ProduceRequest(acks=1, timeout_ms=10_000, topic_data=[pr.TopicProduceData(
        name=topic, partition_data=[pr.PartitionProduceData(index=0, records=bytes(batch))])])
    with WireClient(bootstrap, client_id=f"quota-{uuid.uuid4().hex[:8]}") as c:
        response: pr_response.ProduceResponse = c.call(PRODUCE, 8, request)
    return response


def throttle_of_new_client(bootstrap: str, topic: str) -> int:
    """The throttle time of 120 KB produced by a client id never seen before."""
    r = produce_as_new_client(bootstrap, topic)
    assert r.responses[0].partition_responses[0].error_code == 0, r
    return r.throttle_time_ms


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Seconds until ``condition`` held."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout, what
        time.sleep(0.1)
    return time.monotonic() - start


def entity(zk: KazooClient, path: str) -> dict[str, str] | None:
    """An entity znode's configs; None when it has no data (a parent Kafka's
    ``createRecursive`` made) or does not exist."""
    found = zk.exists(path)
    if found is None or not zk.get(path)[0]:
        return None
    data = json.loads(zk.get(path)[0])
    assert data["version"] == 1
    return data["config"]


def notified(zk: KazooClient) -> list[dict[str, object]]:
    return [json.loads(zk.get(f"/config/changes/{n}")[0])
            for n in sorted(zk.get_children("/config/changes"))]


def test_quotas_are_kept_in_zookeeper_and_reach_every_broker(
        cluster: ClusterProcesses, zk: KazooClient) -> None:
    one, two, three = (cluster.broker(i).bootstrap for i in (1, 2, 3))
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    topics = {2: "quota-led-by-2", 3: "quota-led-by-3"}
    for futures in admin.create_topics([NewTopic(t, num_partitions=1, replica_assignment=[[b]],
                                                 replication_factor=-1)
                                        for b, t in topics.items()]).values():
        futures.result(30)
    for broker_id, topic in topics.items():
        wait_until(lambda b=broker_id, t=topic: admin.list_topics(t, timeout=10).topics[t]
                   .partitions[0].leader == b, 30, f"{topic} led")
    assert throttle_of_new_client(two, topics[2]) == 0

    # a user with a client id, and the default client id, written through broker 1
    alter(one, [("user", "alice user"), ("client-id", "app")], {"producer_byte_rate": 4096})
    alter(one, [("client-id", None)], {"producer_byte_rate": QUOTA})
    assert entity(zk, "/config/users/alice%20user/clients/app") == {
        "producer_byte_rate": "4096"}
    assert zk.exists("/config/users/alice%20user") is not None
    assert entity(zk, "/config/users/alice%20user") is None
    assert entity(zk, "/config/clients/<default>") == {"producer_byte_rate": str(QUOTA)}
    assert {"version": 2, "entity_path": "users/alice%20user/clients/app"} in notified(zk)
    assert {"version": 2, "entity_path": "clients/<default>"} in notified(zk)

    # broker 2 describes them at once, and throttles each new client id within a second
    assert described(two) == {
        (("user", "alice user"), ("client-id", "app")): {"producer_byte_rate": 4096.0},
        (("client-id", None),): {"producer_byte_rate": float(QUOTA)},
    }
    took = wait_until(lambda: throttle_of_new_client(two, topics[2]) > 0, 10,
                      "broker 2 to enforce the default client quota")
    assert took < 2.0
    expected = ((SIZE / 10) - QUOTA) / QUOTA * 10_000
    assert expected * 0.95 < throttle_of_new_client(two, topics[2]) < expected * 1.15

    # a broker down meanwhile applies the quotas as it starts
    cluster.broker(3).stop()
    alter(one, [("client-id", None)], {"producer_byte_rate": QUOTA / 2})
    cluster.start([3])
    # (the cluster's metadata may name broker 3 before broker 3 leads: ask broker 3 itself)
    wait_until(lambda: produce_as_new_client(three, topics[3]).responses[0]
               .partition_responses[0].error_code == 0, 60, "broker 3 leads again")
    expected_half = ((SIZE / 10) - QUOTA / 2) / (QUOTA / 2) * 10_000
    assert expected_half * 0.95 < throttle_of_new_client(three, topics[3]) \
        < expected_half * 1.15

    # the last quota of each entity removed: its znodes go, and nobody is throttled
    alter(one, [("user", "alice user"), ("client-id", "app")], {"producer_byte_rate": None})
    alter(one, [("client-id", None)], {"producer_byte_rate": None})
    assert zk.exists("/config/users/alice%20user") is None
    assert zk.exists("/config/clients/<default>") is None
    assert described(two) == {}
    wait_until(lambda: throttle_of_new_client(two, topics[2]) == 0, 10,
               "broker 2 to drop the quota")
