"""A local SparkSession that can read from and write to Kafka (and so to pybroker).

Spark's Kafka source and sink live in a separate connector, ``spark-sql-kafka-0-10``, that must
match the Spark release exactly. ``scripts/spark-deps.sh`` (run by ``make setup``) resolves it
from Maven Central into ``.cache/spark/<pyspark version>/jars``; :func:`local_session` hands
those jars to Spark through ``spark.jars``, so nothing is downloaded when a job starts. Outside
this repository the usual way is ``spark.jars.packages`` or ``spark-submit --packages
org.apache.spark:spark-sql-kafka-0-10_2.13:<spark version>``.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
CACHE = REPO_ROOT / ".cache" / "spark"


class ConnectorMissing(RuntimeError):
    """The connector jars for the installed PySpark have not been fetched."""


def spark_version() -> str:
    import pyspark

    return pyspark.__version__


def connector_jars(version: str | None = None) -> list[Path]:
    """The connector's jars for ``version`` (default: the installed PySpark's)."""
    version = version or spark_version()
    jars = sorted((CACHE / version / "jars").glob("*.jar"))
    if not any(j.name.startswith("spark-sql-kafka-0-10") for j in jars):
        raise ConnectorMissing(
            f"no spark-sql-kafka-0-10 jars for Spark {version} in {CACHE / version}: "
            "run make setup (scripts/spark-deps.sh)"
        )
    return jars


def local_session(app_name: str, *, cores: int = 2, **conf: str):
    """A ``local[cores]`` SparkSession on 127.0.0.1 with the Kafka connector on its class path.

    ``conf`` adds or replaces Spark settings (``spark_sql_shuffle_partitions="4"`` style names
    are not used: pass the real keys through ``**{"spark.sql.shuffle.partitions": "4"}``).
    """
    from pyspark.sql import SparkSession

    # keep Spark's driver and block manager on loopback, whatever the host name resolves to
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    settings = {
        "spark.jars": ",".join(str(j) for j in connector_jars()),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.streaming.forceDeleteTempCheckpointLocation": "true",
    }
    settings.update(conf)
    builder = SparkSession.builder.master(f"local[{cores}]").appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()
