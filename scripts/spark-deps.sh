#!/usr/bin/env bash
# Fetches Spark's Kafka connector for the PySpark installed in .venv.
#
#   scripts/spark-deps.sh [PYTHON]     (default: .venv/bin/python)
#
# The connector must match Spark exactly, so the version is read from the installed PySpark.
# Maven resolves spark-sql-kafka-0-10 with its runtime dependencies (scripts/spark/pom.xml) into
# .cache/spark/VERSION/jars, leaving out every library PySpark already ships in pyspark/jars so
# that one copy of each is on the class path. Jobs get the jars through spark.jars
# (examples/spark_connector.py), so nothing is downloaded when a job starts. A stamp
# file holds a hash of the inputs: a second run does nothing unless they changed. Without java or
# mvn this prints why and exits 0: the Spark tests then skip, naming the missing tool.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POM="$ROOT/scripts/spark/pom.xml"
SETTINGS="$ROOT/scripts/spark/settings.xml"
PY="${1:-$ROOT/.venv/bin/python}"
CACHE="$ROOT/.cache/spark"

# shellcheck source=lib/require-tools.sh
source "$ROOT/scripts/lib/require-tools.sh"
require_tools spark-deps "the Spark tests" java mvn

read -r VERSION SPARK_JARS < <("$PY" -c '
import os, pyspark
print(pyspark.__version__, os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
DIR="$CACHE/$VERSION"
mkdir -p "$DIR"
# One run at a time: parallel test sessions may all ask for the same cache.
exec 9>"$CACHE/.lock"
flock 9

hash="$(printf '%s\n' "$VERSION" | cat - "$POM" "$SETTINGS" "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$DIR/jars.stamp" 2>/dev/null)" = "$hash" ]; then
    exit 0
fi

echo "spark-deps: resolving spark-sql-kafka-0-10 $VERSION with Maven" >&2
rm -rf "$DIR/jars" "$DIR/jars.tmp" "$DIR/jars.stamp"
# (Debian's Maven prints colour resets even in batch mode: strip them)
mvn -B -q -Dstyle.color=never -s "$SETTINGS" -f "$POM" -Dspark.version="$VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$DIR/jars.tmp" \
    2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2

# Drop what PySpark already has (lz4, snappy, slf4j, ...), whatever its version: Spark's own
# copy is the one its classes were built and tested with.
shipped="$(ls "$SPARK_JARS" | sed -E 's/-[0-9][^-]*(-[^-]*)?\.jar$//' | sort -u)"
for jar in "$DIR"/jars.tmp/*.jar; do
    name="$(basename "$jar" | sed -E 's/-[0-9][^-]*(-[^-]*)?\.jar$//')"
    if grep -qxF "$name" <<<"$shipped"; then
        rm "$jar"
    fi
done
mv "$DIR/jars.tmp" "$DIR/jars"
echo "$hash" > "$DIR/jars.stamp"
