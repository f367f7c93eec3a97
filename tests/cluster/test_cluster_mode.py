"""A ZooKeeper-mode cluster of three pybroker processes on a real ZooKeeper: controller election,
replicated topics created from real clients and Kafka's CLI, Metadata from every broker, and
failover (SIGKILL of the controller and of a leader, a broker frozen past its session timeout,
controlled shutdown, ZooKeeper itself away for a while) with real clients carrying on.

Followers copy their leaders' logs and rejoin the ISR once caught up (tests/cluster/
test_replication.py and test_isr.py look at that closely): a killed leader loses no record an
acks=all producer had acknowledged, and a broker that comes back leads again after a
preferred-leader election. Each failover's duration is printed (``-s`` shows it).
"""

from __future__ import annotations

import bisect
import json
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from protocol.messages import ApiKey, metadata_request as mreq
from pybroker.testing.cluster import ClusterProcesses, wait_for
from pybroker.testing.failover import PartitionState, partition_states
from pybroker.testing.wire_client import WireClient
from pybroker.testing.zookeeper import ZooKeeperServer

SESSION_TIMEOUT_S = 6.0  # pybroker.testing.cluster.FAST_FAILOVER



def metadata(bootstrap: str, topics: list[str] | None = None):
    """Metadata v12 from one broker."""
    with WireClient(bootstrap) as client:
        return client.call(ApiKey.METADATA, 12, mreq.MetadataRequest(
            topics=None if topics is None else [mreq.MetadataRequestTopic(name=t)
                                                for t in topics],
            allow_auto_topic_creation=False))


def layout(bootstrap: str, topic: str) -> dict[int, PartitionState]:
    """partition -> (leader, replicas, ISR) as one broker answers."""
    return partition_states(bootstrap, topic)


def controller_of_each(cluster: ClusterProcesses) -> set[int]:
    return {metadata(cluster.broker(b).bootstrap).controller_id for b in cluster.live()}


def controller_of(cluster: ClusterProcesses) -> int:
    ids = controller_of_each(cluster)
    assert len(ids) == 1, f"brokers disagree on the controller: {ids}"
    return ids.pop()


def create(cluster: ClusterProcesses, topic: str, partitions: int = 6, rf: int = 3) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(topic, partitions, rf)], operation_timeout=30)[topic].result()


def all_agree(cluster: ClusterProcesses, topic: str, partitions: int):
    """Every live broker answers the same full layout, every partition led by a live broker."""
    views = [layout(cluster.broker(b).bootstrap, topic) for b in cluster.live()]
    first = views[0]
    live = set(cluster.live())
    if len(first) == partitions and all(v == first for v in views) \
            and all(leader in live for leader, _, _ in first.values()):
        return first
    return None


def test_a_replicated_topic_from_confluent_kafka_is_known_to_every_broker(cluster) -> None:
    create(cluster, "orders", 6, 3)
    view = wait_for(lambda: all_agree(cluster, "orders", 6), 20, "every broker's layout")
    assert {replicas for _, replicas, _ in view.values()} >= {(1, 2, 3), (2, 3, 1), (3, 1, 2)} \
        or len({r[0] for _, r, _ in view.values()}) == 3  # leaders spread over the brokers
    for leader, replicas, isr in view.values():
        assert sorted(replicas) == [1, 2, 3] and leader == replicas[0]
        assert sorted(isr) == [1, 2, 3]
    md = metadata(cluster.broker(2).bootstrap)
    assert sorted(b.node_id for b in md.brokers) == [1, 2, 3]
    assert md.controller_id in (1, 2, 3) and controller_of(cluster) == md.controller_id
    # AdminClient's describe_cluster (DescribeCluster) agrees
    admin = AdminClient({"bootstrap.servers": cluster.broker(3).bootstrap})
    described = admin.describe_cluster().result()
    assert sorted(n.id for n in described.nodes) == [1, 2, 3]
    assert described.controller.id == md.controller_id


def test_kafka_python_creates_grows_and_deletes_topics(cluster) -> None:
    from kafka import KafkaAdminClient
    from kafka.admin import NewPartitions as KpNewPartitions, NewTopic as KpNewTopic

    admin = KafkaAdminClient(bootstrap_servers=cluster.broker(2).bootstrap,
                             request_timeout_ms=30000)
    try:
        admin.create_topics([KpNewTopic("kp", 2, 3)], timeout_ms=30000)
        wait_for(lambda: all_agree(cluster, "kp", 2), 20, "kp created")
        admin.create_partitions({"kp": KpNewPartitions(total_count=5)}, timeout_ms=30000)
        view = wait_for(lambda: all_agree(cluster, "kp", 5), 20, "kp grown to 5")
        assert all(sorted(r) == [1, 2, 3] for _, r, _ in view.values())
        admin.delete_topics(["kp"], timeout_ms=30000)
        wait_for(lambda: all(metadata(cluster.broker(b).bootstrap, ["kp"]).topics[0].error_code
                             == 3 for b in cluster.live()), 20, "kp gone everywhere")
    finally:
        admin.close()


def test_kafka_topics_creates_and_describes_a_replicated_topic(cluster, kafka_tools_lib) -> None:
    from tests.compat.cli.conftest import KafkaCli

    cli = KafkaCli(cluster.broker(1).bootstrap, kafka_tools_lib)
    cli.tool("kafka-topics", "--create", "--topic", "cli", "--partitions", "3",
             "--replication-factor", "3")
    wait_for(lambda: all_agree(cluster, "cli", 3), 20, "cli created")
    out = cli.tool("kafka-topics", "--describe", "--topic", "cli").lines
    rows = [line for line in out if "Partition:" in line]
    assert len(rows) == 3, out
    for row in rows:
        fields = dict(part.split(": ", 1) for part in row.split("\t") if ": " in part)
        assert sorted(map(int, fields["Replicas"].split(","))) == [1, 2, 3], row
        assert sorted(map(int, fields["Isr"].split(","))) == [1, 2, 3], row
        assert int(fields["Leader"]) == int(fields["Replicas"].split(",")[0]), row
    assert "ReplicationFactor: 3" in out[0], out[0]


def test_the_controller_is_replaced_when_killed(cluster) -> None:
    create(cluster, "t", 6, 3)
    wait_for(lambda: all_agree(cluster, "t", 6), 20, "t created")
    old = controller_of(cluster)
    killed = time.monotonic()
    cluster.broker(old).kill()
    new = wait_for(lambda: (lambda c: c if c not in (old, -1) else None)(controller_of(cluster)),
                   SESSION_TIMEOUT_S + 10, "a new controller")
    elected = time.monotonic() - killed
    view = wait_for(lambda: all_agree(cluster, "t", 6), SESSION_TIMEOUT_S + 10,
                    "every partition led by a live broker")
    led = time.monotonic() - killed
    print(f"\ncontroller {old} killed: controller {new} after {elected:.1f}s, "
          f"all partitions led after {led:.1f}s")
    assert elected <= SESSION_TIMEOUT_S + 5
    assert all(leader != old and old not in isr for leader, _, isr in view.values())
    # the old controller comes back as a broker and gets its replicas' state again
    cluster.broker(old).start()
    wait_for(lambda: old in metadata(cluster.broker(new).bootstrap).brokers[0:3] or
             old in [b.node_id for b in metadata(cluster.broker(new).bootstrap).brokers],
             20, "the old controller registered again")
    # it learns the controller from the UpdateMetadata the controller sends it (-1 until then)
    wait_for(lambda: controller_of_each(cluster) == {new}, 20, "every broker naming the controller")


def test_partitions_of_a_killed_leader_move_while_clients_carry_on(cluster) -> None:
    topic = "flow"
    create(cluster, topic, 3, 3)
    wait_for(lambda: all_agree(cluster, topic, 3), 20, "flow created")
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 5,
                         "message.timeout.ms": 60000, "enable.idempotence": True})
    delivered: list[bytes] = []
    failed: list[str] = []

    def on_delivery(err, msg) -> None:  # noqa: ANN001
        if err is None:
            delivered.append(msg.value())
        else:
            failed.append(str(err))
    group = f"g-{uuid.uuid4().hex[:6]}"
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group,
                         "auto.offset.reset": "earliest", "session.timeout.ms": 10000})
    consumer.subscribe([topic])
    seen: dict[int, list[bytes]] = {}

    def consume(seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            msg = consumer.poll(0.05)
            if msg is not None and msg.error() is None:
                seen.setdefault(msg.partition(), []).append(msg.value())

    def produce(values: range) -> None:
        for i in values:
            producer.produce(topic, str(i).encode(), partition=i % 3, on_delivery=on_delivery)
            producer.poll(0)

    try:
        produce(range(0, 300))
        assert producer.flush(30) == 0
        consume(3)
        before = layout(cluster.broker(1).bootstrap, topic)
        victim = before[0][0]
        killed = time.monotonic()
        cluster.broker(victim).kill()
        view = wait_for(lambda: all_agree(cluster, topic, 3), SESSION_TIMEOUT_S + 10,
                        "new leaders")
        print(f"\nleader {victim} killed: its partitions led again after "
              f"{time.monotonic() - killed:.1f}s")
        assert all(leader != victim for leader, _, _ in view.values())
        produce(range(300, 600))
        assert producer.flush(60) == 0, "the producer did not deliver after the failover"
        assert failed == [] and len(delivered) == 600
        # the group carries on: its coordinator may have moved with the killed broker, and
        # the consumer finds the new one and holds its partitions again
        coordinator_topic = layout(cluster.broker(view[0][0]).bootstrap, "__consumer_offsets")
        assert all(leader != victim for leader, _, _ in coordinator_topic.values())

        def assigned() -> bool:
            consume(0.5)
            return {tp.partition for tp in consumer.assignment()} == {0, 1, 2}

        wait_for(assigned, 60, "the group holding every partition again", interval=0.0)
        # every acknowledged record is there exactly once, the ones acknowledged by the killed
        # leader included (the new leaders were in the ISR, so they had them)
        assert sorted(read_all(cluster.bootstrap, topic, 3, 600)) == sorted(delivered)
        wait_for(lambda: (consume(0.5), {v for vs in seen.values() for v in vs}
                          >= set(delivered))[1], 60, "the group reading every record",
                 interval=0.0)
        # The broker comes back as a follower of its partitions, catches up and rejoins their
        # ISR; then a preferred-leader election gives it back the partitions it led first.
        cluster.broker(victim).start()
        wait_for(lambda: victim in [b.node_id for b in
                                    metadata(cluster.broker(view[0][0]).bootstrap).brokers],
                 20, "the killed broker registered again")
        wait_for(lambda: all(victim in isr for _, _, isr in
                             layout(cluster.broker(victim).bootstrap, topic).values()), 30,
                 "the killed broker back in every ISR")
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        from confluent_kafka import ElectionType, TopicPartition

        preferred = sorted(p for p, (_, replicas, _) in view.items() if replicas[0] == victim)
        assert preferred, view
        from confluent_kafka import KafkaError

        def elected() -> bool:
            """Elect the preferred leaders; True once none is left to elect. Under load the
            follower may drop out of an ISR again before the election (then Kafka's answer,
            and ours, is PREFERRED_LEADER_NOT_AVAILABLE): ask again, as an operator would."""
            results = admin.elect_leaders(ElectionType.PREFERRED,
                                          [TopicPartition(topic, p) for p in preferred]).result()
            codes = {e.code() for e in results.values() if e is not None}
            assert codes <= {KafkaError.PREFERRED_LEADER_NOT_AVAILABLE,
                             KafkaError.ELECTION_NOT_NEEDED}, results
            return KafkaError.PREFERRED_LEADER_NOT_AVAILABLE not in codes

        wait_for(elected, 30, "the preferred leaders elected", interval=0.5)
        wait_for(lambda: all(layout(cluster.broker(b).bootstrap, topic)[p][0] == victim
                             for b in cluster.live() for p in preferred), 20,
                 "the preferred leader leading again")
        log = cluster.broker(victim).log_path.read_text()
        assert "LeaderAndIsr from controller" in log.split("===== start #2")[-1]
        # its leaderships serve what was written while it was away
        produce(range(600, 700))
        assert producer.flush(30) == 0 and failed == []
        assert sorted(read_all(cluster.bootstrap, topic, 3, 700)) == sorted(delivered)
        # the three brokers' state-change logs, merged as Kafka's StateChangeLogMerger would
        # (pybroker state-change-log merge), tell partition 0's story in order. (Between the
        # elections the leader epoch may move more than once: a dead leader's replica leaves
        # the ISR with no leader, as in Kafka.)
        new_leader = view[0][0]
        controller = r"\[Controller id=\d+ epoch=\d+\] Changed partition " + f"{topic}-0 "
        epochs = assert_in_order(merged_history(cluster, topic, 0), [
            controller + rf"from NewPartition to OnlinePartition with state LeaderAndIsr\("
            rf"leader={victim}, leaderEpoch=(\d+),",
            rf"\[Broker id={victim}\] Leader {topic}-0 .*starts at leader epoch (\d+) ",
            controller + rf"from OfflinePartition to OnlinePartition with state LeaderAndIsr\("
            rf"leader={new_leader}, leaderEpoch=(\d+),",
            rf"\[Broker id={new_leader}\] Leader {topic}-0 .*starts at leader epoch (\d+) ",
            rf"\[Broker id={victim}\] Follower {topic}-0 starts at leader epoch (\d+) .*"
            rf"Current leader is {new_leader}\.",
            controller + rf"from OnlinePartition to OnlinePartition with state LeaderAndIsr\("
            rf"leader={victim}, leaderEpoch=(\d+),",
            rf"\[Broker id={victim}\] Leader {topic}-0 .*starts at leader epoch (\d+) ",
        ])
        created, first, elected, second, following, preferred, back = epochs
        assert created == first == 0
        assert 0 < elected == second == following < preferred == back
    finally:
        consumer.close()


def merged_history(cluster: ClusterProcesses, topic: str, partition: int) -> list[str]:
    """``pybroker state-change-log merge`` of every broker's state-change log, for one
    partition: the lines, in time order."""
    logs = ",".join(str(cluster.broker(b).state_change_log) for b in sorted(cluster.brokers))
    out = subprocess.run([sys.executable, "-m", "pybroker", "state-change-log", "merge",
                          "--logs", logs, "--topic", topic, "--partitions", str(partition)],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return out.splitlines()


def assert_in_order(lines: list[str], patterns: list[str]) -> list[int]:
    """Each pattern matches a line no earlier than the line the one before it matched; the
    number each pattern's group caught, in order. The merge orders lines by their millisecond
    timestamps, so lines of one millisecond from two brokers (a controller's decision and the
    LeaderAndIsr it sent, handled a fraction of a millisecond later) may come in either
    order."""
    stamps = [line[1:24] for line in lines]
    assert stamps == sorted(stamps), "the merged history is not in time order"
    at = 0
    groups = []
    for pattern in patterns:
        found = next(((i, m) for i in range(at, len(lines))
                      if (m := re.search(pattern, lines[i])) is not None), None)
        assert found is not None, (f"no line from line {at} on matches {pattern!r}; the "
                                   "history:\n" + "\n".join(lines))
        i, m = found
        groups.append(int(m.group(1)))
        at = bisect.bisect_left(stamps, stamps[i])  # the first line of that millisecond
    return groups


def read_all(bootstrap: str, topic: str, partitions: int, expected: int,
             timeout: float = 60) -> list[bytes]:
    """Every record of ``topic`` from the start, by assignment (a group may hand a record out
    twice across a rebalance; the log must hold it once)."""
    from confluent_kafka import OFFSET_BEGINNING, TopicPartition

    reader = Consumer({"bootstrap.servers": bootstrap, "group.id": "read-all",
                       "enable.auto.commit": False})
    reader.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(partitions)])
    values: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while len(values) < expected and time.monotonic() < deadline:
            msg = reader.poll(0.2)
            if msg is not None and msg.error() is None:
                values.append(msg.value())
        end = time.monotonic() + 1  # anything beyond what was expected (a duplicate) shows
        while time.monotonic() < end:
            msg = reader.poll(0.1)
            if msg is not None and msg.error() is None:
                values.append(msg.value())
    finally:
        reader.close()
    return values


def test_a_broker_frozen_past_its_session_loses_its_leaderships_and_registers_again(
        cluster, zookeeper_server: ZooKeeperServer, zk_chroot: str) -> None:
    create(cluster, "t", 3, 3)
    wait_for(lambda: all_agree(cluster, "t", 3), 20, "t created")
    controller = controller_of(cluster)
    victim = next(b for b in (1, 2, 3) if b != controller)
    frozen = time.monotonic()
    cluster.broker(victim).freeze()
    try:
        others = [b for b in (1, 2, 3) if b != victim]

        def moved():
            views = [layout(cluster.broker(b).bootstrap, "t") for b in others]
            ok = all(v == views[0] and len(v) == 3 and all(
                leader != victim and victim not in isr for leader, _, isr in v.values())
                for v in views)
            return views[0] if ok else None

        wait_for(moved, SESSION_TIMEOUT_S + 10, "leaderships moved off the frozen broker")
        print(f"\nbroker {victim} frozen: its partitions led elsewhere after "
              f"{time.monotonic() - frozen:.1f}s")
    finally:
        cluster.broker(victim).thaw()
    # it comes back with a new session and a new broker epoch, and is live again
    wait_for(lambda: victim in [b.node_id for b in
                                metadata(cluster.broker(controller).bootstrap).brokers],
             30, "the thawed broker registered again")
    log = cluster.broker(victim).log_path.read_text()
    assert "registered again with broker epoch" in log, log[-3000:]


def test_controlled_shutdown_moves_leadership_before_the_broker_exits(cluster) -> None:
    create(cluster, "t", 6, 3)
    wait_for(lambda: all_agree(cluster, "t", 6), 20, "t created")
    controller = controller_of(cluster)
    victim = next(b for b in (1, 2, 3) if b != controller)
    assert cluster.broker(victim).stop() == 0
    log = cluster.broker(victim).log_path.read_text()
    assert f"Controlled shutdown of broker {victim} succeeded" in log, log[-3000:]
    view = layout(cluster.broker(controller).bootstrap, "t")
    assert all(leader != victim for leader, _, _ in view.values()), view


def test_brokers_serve_on_while_zookeeper_is_away(tmp_path: Path, kafka_tools_lib) -> None:
    zk = ZooKeeperServer(tmp_path / "zk", lib=kafka_tools_lib).start()
    cluster = ClusterProcesses(tmp_path / "cluster", zk.connect_string("/away"))
    try:
        cluster.start()
        create(cluster, "t", 3, 3)
        wait_for(lambda: all_agree(cluster, "t", 3), 20, "t created")
        zk.stop()
        producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": 1,
                             "message.timeout.ms": 30000})
        for i in range(100):
            producer.produce("t", str(i).encode())
        assert producer.flush(30) == 0, "produce failed while ZooKeeper was away"
        assert all_agree(cluster, "t", 3)
        zk.start()  # same port and data: the sessions come back
        time.sleep(2)
        for i in range(100):
            producer.produce("t", str(i).encode())
        assert producer.flush(30) == 0
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        admin.create_partitions([NewPartitions("t", 4)], operation_timeout=30)["t"].result()
        wait_for(lambda: all_agree(cluster, "t", 4), 30, "a partition added after ZooKeeper came back")
    finally:
        cluster.stop()
        zk.stop()


def test_znodes_are_written_as_kafka_writes_them(cluster, zk_connect, reference_kafka) -> None:
    """The same request to the reference Apache Kafka 3.9 and to pybroker leaves znodes of the
    same shape: compare each znode's JSON keys and value types (ids, epochs and times differ)."""
    from kazoo.client import KazooClient

    def shape(value):  # noqa: ANN001, ANN202
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list):
            return [shape(value[0])] if value else []
        return type(value).__name__

    def read(connect: str, paths: list[str]) -> dict[str, object]:
        zk = KazooClient(hosts=connect)
        zk.start(timeout=15)
        try:
            return {p: json.loads(zk.get(p)[0]) for p in paths}
        finally:
            zk.stop()
            zk.close()

    topic = f"shape-{uuid.uuid4().hex[:6]}"
    for bootstrap in (reference_kafka.bootstrap, cluster.bootstrap):
        admin = AdminClient({"bootstrap.servers": bootstrap})
        admin.create_topics([NewTopic(topic, 2, 1, config={"retention.ms": "3600000"})],
                            operation_timeout=30)[topic].result()
    wait_for(lambda: all_agree(cluster, topic, 2), 20, "created on pybroker")
    ref_broker = 0
    paths = [f"/brokers/topics/{topic}", f"/brokers/topics/{topic}/partitions/0/state",
             f"/config/topics/{topic}", "/controller", "/cluster/id"]
    theirs = read(reference_kafka.zookeeper_connect, [*paths, f"/brokers/ids/{ref_broker}"])
    mine = read(zk_connect, [*paths, "/brokers/ids/1"])
    for p in paths:
        assert shape(mine[p]) == shape(theirs[p]), (p, mine[p], theirs[p])
    assert shape(mine["/brokers/ids/1"]) == shape(theirs[f"/brokers/ids/{ref_broker}"])
    assert mine[f"/config/topics/{topic}"] == theirs[f"/config/topics/{topic}"]


@pytest.fixture
def slow_sessions(tmp_path: Path, zk_connect: str) -> Iterator[ClusterProcesses]:
    """A cluster whose brokers keep their ZooKeeper sessions through a 30 s freeze."""
    c = ClusterProcesses(tmp_path / "cluster", zk_connect,
                         overrides={"zookeeper.session.timeout.ms": 30000})
    try:
        yield c.start()
    finally:
        c.stop()


def test_kafka_reassign_partitions_moves_replicas_and_cancels(slow_sessions, zk_connect,
                                                              kafka_tools_lib,
                                                              tmp_path: Path) -> None:
    """Reassignments whose targets are in the ISR complete at once (a reorder, a removal); one
    adding a replica stays in progress until that replica is in the ISR - broker 3 is frozen
    here, so it cannot copy the log - shows in --list, and --cancel moves the partition back to
    its replicas. (tests/cluster/test_isr.py has one adding a replica complete.)"""
    from kazoo.client import KazooClient

    from tests.compat.cli.conftest import KafkaCli

    cluster = slow_sessions
    cli = KafkaCli(cluster.broker(1).bootstrap, kafka_tools_lib)
    # while broker 3 is frozen the tools' admin client may pick it for a request: give up on it
    # quickly and ask another broker
    admin_config = tmp_path / "admin.properties"
    admin_config.write_text("request.timeout.ms=5000\ndefault.api.timeout.ms=60000\n")
    quick = ("--command-config", str(admin_config))
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic("moving", num_partitions=1, replica_assignment=[[1, 2]])],
                        operation_timeout=30)["moving"].result()
    wait_for(lambda: all_agree(cluster, "moving", 1), 20, "moving created")
    zk = KazooClient(hosts=zk_connect)
    zk.start(timeout=15)

    def recorded() -> dict:
        return json.loads(zk.get("/brokers/topics/moving")[0])

    def plan(replicas: list[int]) -> str:
        path = tmp_path / f"plan-{'-'.join(map(str, replicas))}.json"
        path.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "moving", "partition": 0, "replicas": replicas}]}))
        return str(path)

    try:
        # a reorder: complete at once, the znode records it
        cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                 plan([2, 1]))
        wait_for(lambda: recorded()["partitions"]["0"] == [2, 1], 10, "[2, 1] recorded")
        assert recorded()["adding_replicas"] == {} and recorded()["removing_replicas"] == {}
        # replacing broker 2 by broker 3: in progress until 3 is in the ISR, which it cannot
        # join while frozen (its session outlives the freeze: it stays a live broker)
        cluster.broker(3).freeze()
        try:
            cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                     plan([1, 3]), *quick)
            wait_for(lambda: recorded()["adding_replicas"].get("0") == [3], 10, "3 being added")
            assert recorded()["removing_replicas"] == {"0": [2]}
            listed = cli.tool("kafka-reassign-partitions", "--list", *quick).lines
            assert any("moving-0" in line and "adding" in line.lower() for line in listed), \
                listed
            view = layout(cluster.broker(2).bootstrap, "moving")
            assert view[0][1] == (1, 3, 2)  # Metadata shows every replica meanwhile
            assert 3 not in view[0][2]
            # (the tool cancels only moves that remove a replica: Kafka 3.9's own rule; it
            # leaves the throttles alone, which it would clear on every broker, 3 included)
            cancelled = cli.tool("kafka-reassign-partitions", "--cancel", "--preserve-throttles",
                                 "--reassignment-json-file", plan([1, 3]), *quick)
            assert "Successfully cancelled partition reassignment for: moving-0" in \
                cancelled.stdout
            # back to the original replicas, in the order they have in the union [1, 3, 2] (as
            # Kafka's originReplicas orders them)
            wait_for(lambda: recorded()["partitions"]["0"] == [1, 2]
                     and recorded()["adding_replicas"] == {}, 10, "cancelled back to [1, 2]")
        finally:
            cluster.broker(3).thaw()
        # thawed, broker 3 takes the requests queued for it, its replica's deletion last
        wait_for(lambda: not (cluster.broker(3).data_dir / "moving-0").exists(), 30,
                 "broker 3's replica deleted")
        assert cli.tool("kafka-reassign-partitions", "--list").lines == [
            "No partition reassignments found."]
        # a removal: complete at once; broker 1 stops hosting the partition and deletes it
        cli.tool("kafka-reassign-partitions", "--execute", "--reassignment-json-file",
                 plan([2]))
        wait_for(lambda: recorded()["partitions"]["0"] == [2], 10, "[2] recorded")
        assert recorded()["removing_replicas"] == {}
        wait_for(lambda: not (cluster.broker(1).data_dir / "moving-0").exists(), 10,
                 "broker 1's replica deleted")
        wait_for(lambda: layout(cluster.broker(3).bootstrap, "moving")[0][1] == (2,), 10,
                 "Metadata showing the one replica left")
    finally:
        zk.stop()
        zk.close()
