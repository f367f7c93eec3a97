"""One consumer of a group, as a process of its own, for the tests that kill members:
``python -m tests.compat.confluent_kafka.consumer_member BOOTSTRAP GROUP PROTOCOL SUBSCRIPTION
[INSTANCE_ID]``.

It subscribes (``SUBSCRIPTION`` is comma-separated topic names, or one ``^regex``), commits
every record synchronously before it reports it, so that a record it reports is never handed
to another member too (a record whose commit fails is sought back to and read again), and
prints one line per event, flushed::

    assigned <topic>:<partition> ...
    revoked <topic>:<partition> ...
    record <topic> <partition> <offset>
    error <text>

SIGTERM closes the consumer (leaving the group) and exits.
"""

from __future__ import annotations

import signal
import sys

from confluent_kafka import Consumer, KafkaException, TopicPartition


def main(argv: list[str]) -> int:
    bootstrap, group, protocol, subscription = argv[:4]
    instance = argv[4] if len(argv) > 4 else None
    config = {"bootstrap.servers": bootstrap, "group.id": group, "group.protocol": protocol,
              "auto.offset.reset": "earliest", "enable.auto.commit": False,
              "error_cb": lambda e: print(f"error {e}", flush=True)}
    if protocol == "classic":
        config["partition.assignment.strategy"] = "cooperative-sticky"
        config["session.timeout.ms"] = 10000
        config["heartbeat.interval.ms"] = 1000
    if instance:
        config["group.instance.id"] = instance
    consumer = Consumer(config)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))

    def show(kind: str, partitions) -> None:
        print(kind, *(f"{p.topic}:{p.partition}" for p in partitions), flush=True)

    consumer.subscribe(subscription.split(","),
                       on_assign=lambda c, ps: show("assigned", ps),
                       on_revoke=lambda c, ps: show("revoked", ps),
                       on_lost=lambda c, ps: show("lost", ps))
    try:
        while not stopping:
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error() is not None:
                print(f"error {msg.error()}", flush=True)
                continue
            try:
                consumer.commit(message=msg, asynchronous=False)
            except KafkaException as exc:
                # not committed (a stale epoch while the assignment moves): read it again,
                # or leave it to the member the partition goes to
                print(f"error commit {exc}", flush=True)
                try:
                    consumer.seek(TopicPartition(msg.topic(), msg.partition(), msg.offset()))
                except KafkaException:
                    pass
                continue
            print(f"record {msg.topic()} {msg.partition()} {msg.offset()}", flush=True)
    finally:
        consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
