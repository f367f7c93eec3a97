# Sourced by the scripts that fetch jars with Maven.
#
#   require_tools NAME "WHAT IS SKIPPED" TOOL...
#
# Exits the calling script with status 0 after a loud banner when any TOOL is not on PATH: the
# tests that need the jars then skip, naming the missing tool, instead of the set-up failing.
require_tools() {
    local name="$1" skipped="$2"
    shift 2
    local missing=() tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "########################################################################" >&2
        echo "# $name: ${missing[*]} not found: $skipped will be skipped." >&2
        echo "# Install a JDK (17+) and Maven, e.g. apt-get install openjdk-17-jdk-headless maven" >&2
        echo "########################################################################" >&2
        exit 0
    fi
}
