#!/usr/bin/env bash
# Fetches Kafka Streams for the exactly-once tests and compiles their application.
#
#   scripts/streams-deps.sh [VERSION]     (default: 3.9.1)
#
# Maven resolves the jars named in tests/compat/streams/pom.xml into .cache/streams/VERSION/lib
# and javac compiles tests/compat/streams/src/WordCount.java against them into
# .cache/streams/VERSION/classes. Stamp files hold a hash of the inputs, so a second run does
# nothing unless the pom or the application changed. Without mvn or javac this prints why and
# exits 0: the Streams tests then skip, naming the missing tool.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STREAMS_DIR="$ROOT/tests/compat/streams"
POM="$STREAMS_DIR/pom.xml"
APP="$STREAMS_DIR/src/WordCount.java"
VERSION="${1:-3.9.1}"
DIR="$ROOT/.cache/streams/$VERSION"

# shellcheck source=lib/require-tools.sh
source "$ROOT/scripts/lib/require-tools.sh"
require_tools streams-deps "the Kafka Streams tests" java javac mvn

mkdir -p "$DIR"
exec 9>"$DIR/.lock"
flock 9

deps_hash="$(printf '%s\n' "$VERSION" | cat - "$POM" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$DIR/lib.stamp" 2>/dev/null)" != "$deps_hash" ]; then
    echo "streams-deps: resolving kafka-streams $VERSION with Maven" >&2
    rm -rf "$DIR/lib" "$DIR/lib.tmp" "$DIR/lib.stamp" "$DIR/classes.stamp"
    mvn -B -q -Dstyle.color=never -f "$POM" -Dkafka.version="$VERSION" \
        dependency:copy-dependencies -DoutputDirectory="$DIR/lib.tmp" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
    mv "$DIR/lib.tmp" "$DIR/lib"
    echo "$deps_hash" > "$DIR/lib.stamp"
fi

classes_hash="$(printf '%s\n' "$deps_hash" | cat - "$APP" | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$DIR/classes.stamp" 2>/dev/null)" != "$classes_hash" ]; then
    echo "streams-deps: compiling WordCount against kafka-streams $VERSION" >&2
    rm -rf "$DIR/classes" "$DIR/classes.tmp" "$DIR/classes.stamp"
    javac -nowarn --release 17 -cp "$DIR/lib/*" -d "$DIR/classes.tmp" "$APP"
    mv "$DIR/classes.tmp" "$DIR/classes"
    echo "$classes_hash" > "$DIR/classes.stamp"
fi
