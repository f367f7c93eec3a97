#!/usr/bin/env bash
# Fetches the jars of Apache Kafka's command-line tools for the CLI compatibility tests.
#
#   scripts/kafka-tools-deps.sh [VERSION]     (default: 3.9.1)
#
# Maven resolves kafka_2.13 and kafka-tools (tests/compat/cli/pom.xml) with their runtime
# dependencies into .cache/kafka-tools/VERSION/lib; the tests then start each tool through its
# main class, as bin/kafka-run-class.sh would. A stamp file holds a hash of the inputs, so a
# second run does nothing unless the pom changed. Without java or mvn this prints why and exits
# 0: the CLI tests then skip, naming the missing tool.
#
# Beside lib/, agent/ holds the Prometheus JMX exporter's java agent, with which the reference
# Kafka of the metrics tests serves its MBeans (pybroker/testing/reference_kafka.py); it is not
# on the tools' class path.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
POM="$ROOT/tests/compat/cli/pom.xml"
VERSION="${1:-3.9.1}"
CACHE="$ROOT/.cache/kafka-tools"
DIR="$CACHE/$VERSION"

# shellcheck source=lib/require-tools.sh
source "$ROOT/scripts/lib/require-tools.sh"
require_tools kafka-tools-deps "the Kafka CLI tool tests" java mvn

mkdir -p "$DIR"
# One run at a time: parallel test sessions may all ask for the same cache.
exec 9>"$CACHE/.lock"
flock 9

JMX_EXPORTER_VERSION=1.0.1
if [ ! -f "$DIR/agent/jmx_prometheus_javaagent-$JMX_EXPORTER_VERSION.jar" ]; then
    echo "kafka-tools-deps: fetching the Prometheus JMX exporter's java agent" >&2
    mvn -B -q -Dstyle.color=never dependency:copy \
        -Dartifact="io.prometheus.jmx:jmx_prometheus_javaagent:$JMX_EXPORTER_VERSION" \
        -DoutputDirectory="$DIR/agent" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
fi

hash="$(printf '%s\n' "$VERSION" | cat - "$POM" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$DIR/lib.stamp" 2>/dev/null)" = "$hash" ]; then
    exit 0
fi

echo "kafka-tools-deps: resolving the Kafka $VERSION command-line tools with Maven" >&2
rm -rf "$DIR/lib" "$DIR/lib.tmp" "$DIR/lib.stamp"
# (Debian's Maven prints colour resets even in batch mode: strip them)
mvn -B -q -Dstyle.color=never -f "$POM" -Dkafka.version="$VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$DIR/lib.tmp" \
    2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
mv "$DIR/lib.tmp" "$DIR/lib"
echo "$hash" > "$DIR/lib.stamp"
