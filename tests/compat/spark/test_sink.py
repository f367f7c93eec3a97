"""Spark's Kafka sink (``writeStream``/``write.format("kafka")``) on pybroker.

What Spark writes is read back with librdkafka, so the records are checked by a client that
is not Spark: keys, values, headers, the topic each row named, and the partition it asked for.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql import Row
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    StringType,
    StructField,
    StructType,
)

from examples.spark_connector import CACHE
from tests.compat.spark.conftest import Kafka, Record

pytestmark = [pytest.mark.compat, pytest.mark.usefixtures("stop_queries")]

HEADERS = ArrayType(StructType([
    StructField("key", StringType()), StructField("value", BinaryType()),
]))


def received(kafka: Kafka, topic: str, expected: int) -> dict[bytes | None, tuple]:
    """``key -> (value, headers, partition)`` for every record librdkafka reads from ``topic``."""
    messages = kafka.read_all(topic, expected)
    assert len(messages) == expected, f"{topic}: {len(messages)} of {expected} records"
    out = {m.key(): (m.value(), tuple(m.headers() or ()), m.partition()) for m in messages}
    assert len(out) == expected, "keys repeated"
    return out


def test_batch_write_with_topic_column_keys_headers_and_partitions(spark, pybroker: Kafka):
    first = pybroker.create_topic("sink-a", partitions=3)
    second = pybroker.create_topic("sink-b", partitions=2)
    schema = StructType([
        StructField("topic", StringType()), StructField("key", StringType()),
        StructField("value", BinaryType()), StructField("headers", HEADERS),
        StructField("partition", IntegerType()),
    ])
    rows = [
        Row(topic=first if i % 3 else second, key=f"k{i}", value=f"v{i}".encode(),
            headers=[Row(key="i", value=str(i).encode()), Row(key="empty", value=None)]
            if i % 2 else [],
            partition=i % 2)
        for i in range(30)
    ]
    df = spark.createDataFrame(rows, schema)
    df.write.format("kafka").option("kafka.bootstrap.servers", pybroker.bootstrap).save()

    for topic in (first, second):
        expected = {
            r.key.encode(): (
                r.value, tuple((h.key, h.value) for h in r.headers), r.partition,
            )
            for r in rows if r.topic == topic
        }
        assert received(pybroker, topic, len(expected)) == expected


def test_batch_write_topic_option_and_null_keys(spark, pybroker: Kafka):
    topic = pybroker.create_topic("sink-opt", partitions=1)
    df = spark.createDataFrame(
        [(None, "no key"), ("k", "with key")], "key STRING, value STRING"
    )
    df.write.format("kafka").option("kafka.bootstrap.servers", pybroker.bootstrap) \
        .option("topic", topic).save()
    messages = pybroker.read_all(topic, 2)
    assert sorted((m.key() or b"", m.value()) for m in messages) == [
        (b"", b"no key"), (b"k", b"with key")
    ]
    assert [m.key() for m in messages if m.value() == b"no key"] == [None]


@pytest.mark.parametrize("codec", ["gzip", "snappy", "lz4", "zstd"])
def test_batch_write_compressed(spark, pybroker: Kafka, codec: str):
    """The Java producer's codecs, stored as sent and read back by Spark and librdkafka."""
    topic = pybroker.create_topic(f"sink-{codec}", partitions=1)
    df = spark.range(200).selectExpr(
        "CAST(id AS STRING) AS key", "repeat(CAST(id AS STRING), 20) AS value"
    )
    df.write.format("kafka").option("kafka.bootstrap.servers", pybroker.bootstrap) \
        .option("kafka.compression.type", codec).option("kafka.linger.ms", "50") \
        .option("topic", topic).save()
    expected = {str(i).encode(): str(i).encode() * 20 for i in range(200)}
    assert {k: v for k, (v, _, _) in received(pybroker, topic, 200).items()} == expected
    back = spark.read.format("kafka").option("kafka.bootstrap.servers", pybroker.bootstrap) \
        .option("subscribe", topic).load().selectExpr("CAST(key AS STRING) k", "value").collect()
    assert {r["k"].encode(): bytes(r["value"]) for r in back} == expected


def test_write_stream_routes_rows_by_topic_column(spark, pybroker: Kafka, checkpoint):
    """A streaming query from one pybroker topic into two others, chosen per row."""
    source = pybroker.create_topic("stream-in", partitions=3)
    evens = pybroker.create_topic("stream-even", partitions=2)
    odds = pybroker.create_topic("stream-odd", partitions=2)
    pybroker.produce(source, [
        Record(value=json.dumps({"n": n}).encode(), key=f"user-{n}".encode(), partition=n % 3,
               headers=[("origin", b"generator")])
        for n in range(40)
    ])

    df = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", pybroker.bootstrap)
        .option("subscribe", source).option("startingOffsets", "earliest")
        .option("includeHeaders", "true").load()
    )
    out = df.selectExpr(
        f"IF(get_json_object(CAST(value AS STRING), '$.n') % 2 = 0, '{evens}', '{odds}') AS topic",
        "key",
        "CAST(get_json_object(CAST(value AS STRING), '$.n') * 10 AS STRING) AS value",
        "array_union(headers, array(named_struct('key', 'source-offset',"
        " 'value', CAST(CAST(offset AS STRING) AS BINARY)))) AS headers",
    )
    query = (
        out.writeStream.format("kafka").option("kafka.bootstrap.servers", pybroker.bootstrap)
        .option("checkpointLocation", checkpoint()).trigger(availableNow=True).start()
    )
    assert query.awaitTermination(120)

    got = {**received(pybroker, evens, 20), **received(pybroker, odds, 20)}
    for n in range(40):
        value, headers, _ = got[f"user-{n}".encode()]
        assert value == str(n * 10).encode()
        assert headers == (("origin", b"generator"), ("source-offset", str(n // 3).encode()))
    assert {k for k in received(pybroker, evens, 20)} == {
        f"user-{n}".encode() for n in range(0, 40, 2)
    }


def test_the_session_takes_the_connector_from_the_local_cache(spark):
    """Spark got the connector as local jars fetched by make setup, with nothing to download."""
    jars = spark.conf.get("spark.jars").split(",")
    assert any("spark-sql-kafka-0-10_2.13-" in j for j in jars)
    assert all(Path(j).is_file() and Path(j).is_relative_to(CACHE) for j in jars), jars
    assert spark.conf.get("spark.jars.packages", None) is None
