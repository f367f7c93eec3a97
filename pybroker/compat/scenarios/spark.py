"""Scenarios with Spark (PySpark and its ``spark-sql-kafka-0-10`` connector).

A SparkSession takes 10-15 s to start, so there is one scenario: a batch write through the
Kafka sink and a batch read through the Kafka source, in one local session. The connector's
jars come from ``scripts/spark-deps.sh`` (``make spark-deps``) in ``.cache/spark/<version>``;
the session is given them through ``spark.jars``, so nothing is downloaded when it starts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pybroker.compat.clients import Client, register_client
from pybroker.compat.jvm_clients import REPO_ROOT
from pybroker.compat.scenario import Context, scenario

SPARK_CACHE = REPO_ROOT / ".cache" / "spark"


def connector_missing() -> str | None:
    """Why Spark's Kafka connector cannot be used here (None when it can)."""
    try:
        import pyspark
    except ImportError:
        return "the Python package pyspark is not installed"
    jars = SPARK_CACHE / pyspark.__version__ / "jars"
    if not any(j.name.startswith("spark-sql-kafka-0-10") for j in jars.glob("*.jar")):
        return f"no spark-sql-kafka-0-10 jars for Spark {pyspark.__version__} in {jars} " \
               "(run make spark-deps)"
    return None


#: available when PySpark is installed and its Kafka connector is in .cache
register_client(Client("spark", "Spark Structured Streaming (PySpark, spark-sql-kafka-0-10)",
                       connector_missing))


def local_session(app_name: str) -> Any:
    """A ``local[2]`` SparkSession on 127.0.0.1 with the Kafka connector, no UI."""
    import pyspark
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    jars: list[Path] = sorted((SPARK_CACHE / pyspark.__version__ / "jars").glob("*.jar"))
    settings = {
        "spark.jars": ",".join(str(j) for j in jars),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
    }
    builder = SparkSession.builder.master("local[2]").appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


@scenario("produce-fetch", client="spark", timeout=240)
def batch_write_read(ctx: Context) -> None:
    """A batch DataFrame of 40 rows (keys, values, headers) written with format("kafka") is read
    back whole by a batch format("kafka") read from earliest to latest."""
    missing = connector_missing()
    if missing:
        ctx.skip(missing)
    from pyspark.sql import Row

    topic = ctx.create_topic()
    spark = local_session("pybroker-compat")
    try:
        rows = [Row(key=f"k{i}", value=f"value-{i}", headers=[("h", f"{i}".encode())])
                for i in range(40)]
        df = spark.createDataFrame(rows, "key STRING, value STRING, "
                                         "headers ARRAY<STRUCT<key: STRING, value: BINARY>>")
        secured = {f"kafka.{k}": v for k, v in ctx.security.java_properties().items()}
        df.write.format("kafka").option("kafka.bootstrap.servers", ctx.bootstrap) \
            .options(**secured).option("topic", topic).save()
        ctx.log("written")
        back = spark.read.format("kafka").option("kafka.bootstrap.servers", ctx.bootstrap) \
            .options(**secured).option("subscribe", topic).option("startingOffsets", "earliest") \
            .option("endingOffsets", "latest").option("includeHeaders", "true").load() \
            .selectExpr("CAST(key AS STRING) k", "CAST(value AS STRING) v", "headers",
                        "partition", "offset").collect()
    finally:
        spark.stop()
    got = sorted((r["k"], r["v"], [(h["key"], bytes(h["value"])) for h in r["headers"] or []])
                 for r in back)
    expected = sorted((f"k{i}", f"value-{i}", [("h", f"{i}".encode())]) for i in range(40))
    ctx.evidence("rows read", len(back))
    ctx.check(got == expected, "the batch read did not return the 40 rows written",
              expected=expected[:3], read=got[:3], count=len(got))
    per_partition: dict[int, list[int]] = {}
    for r in back:
        per_partition.setdefault(r["partition"], []).append(r["offset"])
    ctx.check(all(sorted(o) == list(range(len(o))) for o in per_partition.values()),
              "offsets on a partition are not 0..n-1", offsets=per_partition)
