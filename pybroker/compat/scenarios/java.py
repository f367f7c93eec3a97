"""Scenarios with the Apache Kafka Java clients (kafka-clients 3.9, through ``ClientDriver``).

Each driver call is a JVM of its own (a second or two), so every scenario makes few calls: the
client's own behaviour (batching, the group protocol, the transaction manager) is what is under
test, not the number of requests. :mod:`pybroker.compat.jvm_clients` runs the driver.
"""

from __future__ import annotations

import base64
from typing import Any

from pybroker.compat.clients import Client, register_client
from pybroker.compat.jvm_clients import (
    JavaClient,
    ProduceRecord,
    ToolFailed,
    java_clients_missing,
)
from pybroker.compat.scenario import Context, scenario

#: available when java runs and the jars are in .cache, not only when java is on PATH
register_client(Client("java", "the Apache Kafka Java clients (kafka-clients 3.9)", java_clients_missing))


def _client(ctx: Context) -> JavaClient:
    missing = java_clients_missing()
    if missing:
        ctx.skip(missing)
    return JavaClient.of(config=ctx.security.java_properties().items())


def _b64(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def _admin(ctx: Context, client: JavaClient, *ops: str) -> list[dict[str, Any]]:
    """Run admin operations; fail the scenario if any of them (or any topic of one) failed."""
    results = client.admin(ctx.bootstrap, *ops, timeout=ctx.remaining())
    for op, result in zip(ops, results, strict=True):
        ctx.evidence(f"admin {op}", result)
        nested = result.get("result")
        per_key_errors = (
            {k: v["error"] for k, v in nested.items() if isinstance(v, dict) and "error" in v}
            if isinstance(nested, dict) else {}
        )
        errors = ([result["error"]] if "error" in result else []) + list(per_key_errors.values())
        if errors:
            first = errors[0]
            why = (f"{first.get('class', '')}: {first.get('message', '')}"
                   if isinstance(first, dict) else str(first))
            ctx.fail(f"Admin {op.split()[0]} failed: {why}", operation=op, result=result)
    return results


@scenario("produce-fetch", client="java", timeout=90)
def produce_fetch(ctx: Context) -> None:
    """KafkaProducer sends 30 records with keys, headers and timestamps; KafkaConsumer (assign,
    no group) reads them back unchanged, in order."""
    client = _client(ctx)
    topic = ctx.create_topic()
    base_ts = 1_700_000_000_000
    sent = [
        ProduceRecord(key=f"k{i}".encode(), value=f"value-{i}".encode() * (1 + i % 5),
                      headers=[("h", f"{i}".encode()), ("empty", None)], partition=0,
                      timestamp=base_ts + i)
        for i in range(30)
    ]
    try:
        acks = client.produce(ctx.bootstrap, topic, sent, "--acks", "all",
                              timeout=ctx.remaining())
    except ToolFailed as exc:
        ctx.fail("KafkaProducer did not get every record acknowledged", driver=str(exc))
    offsets = [a["offset"] for a in acks]
    ctx.evidence("produced offsets", offsets)
    ctx.check(offsets == list(range(30)), "offsets are not 0..29", offsets=offsets)
    lines = client.run("consume-assign", "--bootstrap", ctx.bootstrap, "--topic", topic,
                       "--partitions", "0", "--count", "30", "--timeout-ms", "30000",
                       timeout=ctx.remaining())
    got = [line for line in lines if "offset" in line and "value" in line]
    ctx.evidence("consumer summary", lines[-1] if lines else None)
    seen = [(_b64(r["key"]), _b64(r["value"]), r["offset"], r["timestamp"]) for r in got]
    expected = [(r.key, r.value, i, base_ts + i) for i, r in enumerate(sent)]
    ctx.check(seen == expected, "fetched records differ from those produced",
              expected=expected[:3], fetched=seen[:3], count=len(seen))
    headers = [[(h[0], _b64(h[1])) for h in r["headers"]] for r in got]
    ctx.check(headers == [[("h", f"{i}".encode()), ("empty", None)] for i in range(30)],
              "headers were not kept", fetched=headers[:3])


@scenario("group-classic", client="java", timeout=120)
def group_classic(ctx: Context) -> None:
    """A KafkaConsumer in a group (classic protocol) is assigned both partitions of a topic,
    reads the 20 records on them, commits, and reads its committed offsets back."""
    client = _client(ctx)
    topic, group = ctx.create_topic(partitions=2), ctx.group()
    client.run("produce", "--bootstrap", ctx.bootstrap, "--topic", topic, "--count", "20",
               "--acks", "all", timeout=ctx.remaining())
    lines = client.run("consume-group", "--bootstrap", ctx.bootstrap, "--topic", topic,
                       "--group", group, "--count", "20", "--timeout-ms", "60000",
                       "--config", "group.protocol=classic", timeout=ctx.remaining())
    assigned = {f"{p['topic']}-{p['partition']}"
                for line in lines if "assigned" in line for p in line["assigned"]}
    records = [line for line in lines if "offset" in line and "value" in line]
    committed = next((line["committed"] for line in lines if "committed" in line), None)
    ctx.evidence("assigned", sorted(assigned))
    ctx.evidence("committed", committed)
    ends: dict[str, int] = {}
    for r in records:
        key = f"{r['topic']}-{r['partition']}"
        ends[key] = max(ends.get(key, 0), r["offset"] + 1)
    ctx.check(len(records) == 20, "the member did not read the 20 records", read=len(records))
    ctx.check(assigned == {f"{topic}-0", f"{topic}-1"}, "the member was not assigned both "
              "partitions", assigned=sorted(assigned))
    ctx.check(set(ends) <= assigned, "records came from partitions the member was not "
              "assigned", assigned=sorted(assigned), read_from=sorted(ends))
    ctx.check(committed is not None and {k: v for k, v in committed.items() if k in ends} == ends,
              "committed offsets are not the positions after the records read",
              committed=committed, expected=ends)


@scenario("admin-topics", client="java", timeout=90)
def admin_topics(ctx: Context) -> None:
    """The Admin client creates a topic with 2 partitions, describes it, grows it to 3,
    describes it again and deletes it."""
    client = _client(ctx)
    topic = ctx.topic()
    results = _admin(
        ctx, client,
        f"create-topics --topic {topic} --partitions 2",
        f"describe-topics --topic {topic}",
        f"create-partitions --topic {topic} --total 3",
    )
    created = results[0]["result"][topic]
    ctx.check(created.get("partitions") == 2, "CreateTopics did not report 2 partitions",
              created=created)
    described = results[1]["result"][topic]
    ctx.check([p["partition"] for p in described["partitions"]] == [0, 1],
              "the new topic is not described with partitions 0 and 1", described=described)

    def grown() -> bool:
        again = _admin(ctx, client, f"describe-topics --topic {topic}")[0]["result"][topic]
        return [p["partition"] for p in again["partitions"]] == [0, 1, 2]

    ctx.wait_until(grown, "the topic being described with 3 partitions", timeout=30,
                   interval=0.5)
    _admin(ctx, client, f"delete-topics --topic {topic}")

    def gone() -> bool:
        listed = _admin(ctx, client, "list-topics")[0]["result"]
        return topic not in listed

    ctx.wait_until(gone, "the deleted topic leaving the topic list", timeout=30, interval=0.5)


@scenario("transactions", client="java", timeout=120)
def transactions(ctx: Context) -> None:
    """A transactional KafkaProducer commits 5 records, aborts 3 and commits 2; a
    read_committed KafkaConsumer reads exactly the 7 committed ones."""
    client = _client(ctx)
    topic = ctx.create_topic()
    lines = client.run("txn-produce", "--bootstrap", ctx.bootstrap, "--topic", topic,
                       "--transactional-id", ctx.transactional_id(), "--plan", "c5,a3,c2",
                       "--partition", "0", timeout=ctx.remaining())
    ctx.evidence("transactions", lines)
    ctx.check([line.get("outcome") for line in lines] == ["commit", "abort", "commit"],
              "the producer did not run commit, abort, commit", lines=lines)
    read = client.run("consume-assign", "--bootstrap", ctx.bootstrap, "--topic", topic,
                      "--partitions", "0", "--timeout-ms", "30000",
                      "--config", "isolation.level=read_committed", timeout=ctx.remaining())
    values = [(_b64(r["value"]) or b"").decode() for r in read if "value" in r]
    ctx.evidence("read_committed values", values)
    expected = [f"txn0-{i}" for i in range(5)] + [f"txn2-{i}" for i in range(2)]
    ctx.check(values == expected, "read_committed did not read exactly the committed records",
              expected=expected, read=values)
