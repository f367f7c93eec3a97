"""The PySpark Structured Streaming job: page views per page in one-minute event-time windows.

It reads the ``page-views`` topic, drops views more than ``WATERMARK`` behind the newest it has
seen, and once a window can no longer change (the watermark has passed its end) writes one row
per page and window to two sinks: the ``page-view-counts`` topic (key ``window start|page``,
JSON value) and JSON files under the output folder. Both run in append mode, so each count is
written once and is final.

    python -m examples.activity_stream.job --bootstrap 127.0.0.1:9092 --output data/pipeline/out
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import DataFrame, SparkSession, functions as F
from pyspark.sql.streaming import StreamingQuery

INPUT_TOPIC = "page-views"
OUTPUT_TOPIC = "page-view-counts"
WINDOW = "1 minute"
WATERMARK = "30 seconds"
VIEW_SCHEMA = "user STRING, page STRING, referrer STRING, timestamp TIMESTAMP"


@dataclass
class PipelineQueries:
    to_kafka: StreamingQuery
    to_files: StreamingQuery

    def process_all_available(self) -> None:
        """Block until both have read everything and closed every window they can."""
        self.to_kafka.processAllAvailable()
        self.to_files.processAllAvailable()

    def stop(self) -> None:
        self.to_kafka.stop()
        self.to_files.stop()


def page_view_counts(spark: SparkSession, bootstrap: str, topic: str = INPUT_TOPIC) -> DataFrame:
    """``window_start, window_end, page, views`` for every closed window."""
    views = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .load()
        .select(F.from_json(F.col("value").cast("string"), VIEW_SCHEMA).alias("view"))
        .select("view.*")
    )
    return (
        views.withWatermark("timestamp", WATERMARK)
        .groupBy(F.window("timestamp", WINDOW), "page")
        .count()
        .select(
            F.col("window.start").alias("window_start"),
            F.col("window.end").alias("window_end"),
            "page",
            F.col("count").alias("views"),
        )
    )


def start(
    spark: SparkSession,
    bootstrap: str,
    output_dir: Path,
    checkpoint_dir: Path,
    *,
    input_topic: str = INPUT_TOPIC,
    output_topic: str = OUTPUT_TOPIC,
    trigger: str = "1 second",
) -> PipelineQueries:
    counts = page_view_counts(spark, bootstrap, input_topic)
    as_records = counts.select(
        F.concat_ws(
            "|", F.date_format("window_start", "yyyy-MM-dd'T'HH:mm:ss'Z'"), "page"
        ).alias("key"),
        F.to_json(F.struct(
            F.date_format("window_start", "yyyy-MM-dd'T'HH:mm:ss'Z'").alias("window_start"),
            F.date_format("window_end", "yyyy-MM-dd'T'HH:mm:ss'Z'").alias("window_end"),
            "page", "views",
        )).alias("value"),
    )
    to_kafka = (
        as_records.writeStream.format("kafka")
        .queryName("page-view-counts-to-kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", output_topic)
        .option("checkpointLocation", str(checkpoint_dir / "kafka"))
        .outputMode("append")
        .trigger(processingTime=trigger)
        .start()
    )
    to_files = (
        counts.writeStream.format("json")
        .queryName("page-view-counts-to-files")
        .option("path", str(output_dir))
        .option("checkpointLocation", str(checkpoint_dir / "files"))
        .outputMode("append")
        .trigger(processingTime=trigger)
        .start()
    )
    return PipelineQueries(to_kafka, to_files)


def main(argv: Sequence[str] | None = None) -> None:
    from examples.spark_connector import local_session

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bootstrap", default="127.0.0.1:9092")
    parser.add_argument("--output", type=Path, default=Path("data/pipeline/page-view-counts"))
    parser.add_argument("--checkpoints", type=Path, default=Path("data/pipeline/checkpoints"))
    args = parser.parse_args(argv)
    spark = local_session("activity-stream")
    spark.sparkContext.setLogLevel("WARN")
    queries = start(spark, args.bootstrap, args.output, args.checkpoints)
    print("page-view counts running; Ctrl-C stops them (a restart resumes from the checkpoints)")
    try:
        queries.to_kafka.awaitTermination()
    except KeyboardInterrupt:
        queries.stop()


if __name__ == "__main__":
    main()
