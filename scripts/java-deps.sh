#!/usr/bin/env bash
# Fetches the Java Kafka clients the compatibility tests drive and compiles their driver.
#
#   scripts/java-deps.sh [VERSION...]     (default: the versions in tests/compat/java/versions.txt)
#
# For each kafka-clients VERSION, Maven resolves the jars named in tests/compat/java/pom.xml into
# .cache/java/VERSION/lib and javac compiles tests/compat/java/src/ClientDriver.java against them
# into .cache/java/VERSION/classes. Stamp files hold a hash of the inputs, so a second run does
# nothing unless the pom or the driver changed. Without mvn or javac this prints why and exits 0:
# the Java tests then skip, naming the missing tool.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAVA_DIR="$ROOT/tests/compat/java"
POM="$JAVA_DIR/pom.xml"
DRIVER="$JAVA_DIR/src/ClientDriver.java"
CACHE="$ROOT/.cache/java"

# shellcheck source=lib/require-tools.sh
source "$ROOT/scripts/lib/require-tools.sh"
require_tools java-deps "the Java client tests" java javac mvn

if [ $# -gt 0 ]; then
    versions=("$@")
else
    mapfile -t versions < <(grep -v '^\s*#' "$JAVA_DIR/versions.txt" | grep -v '^\s*$')
fi

mkdir -p "$CACHE"
# One run at a time: parallel test sessions may all ask for the same cache.
exec 9>"$CACHE/.lock"
flock 9


for version in "${versions[@]}"; do
    dir="$CACHE/$version"
    mkdir -p "$dir"

    deps_hash="$(printf '%s\n' "$version" | cat - "$POM" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$dir/lib.stamp" 2>/dev/null)" != "$deps_hash" ]; then
        echo "java-deps: resolving kafka-clients $version with Maven" >&2
        rm -rf "$dir/lib" "$dir/lib.tmp" "$dir/lib.stamp" "$dir/classes.stamp"
        # (Debian's Maven prints colour resets even in batch mode: strip them)
        mvn -B -q -Dstyle.color=never -f "$POM" -Dkafka.version="$version" \
            dependency:copy-dependencies -DoutputDirectory="$dir/lib.tmp" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
        mv "$dir/lib.tmp" "$dir/lib"
        echo "$deps_hash" > "$dir/lib.stamp"
    fi

    classes_hash="$(printf '%s\n' "$deps_hash" | cat - "$DRIVER" | sha256sum | cut -d' ' -f1)"
    if [ "$(cat "$dir/classes.stamp" 2>/dev/null)" != "$classes_hash" ]; then
        echo "java-deps: compiling ClientDriver against kafka-clients $version" >&2
        rm -rf "$dir/classes" "$dir/classes.tmp" "$dir/classes.stamp"
        javac -Xlint:-deprecation -nowarn --release 17 -cp "$dir/lib/*" \
            -d "$dir/classes.tmp" "$DRIVER"
        mv "$dir/classes.tmp" "$dir/classes"
        echo "$classes_hash" > "$dir/classes.stamp"
    fi
done
