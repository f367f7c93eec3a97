"""What a broker advertises (ApiVersions, read first over a raw socket), and which capabilities
that leaves *not offered*.

A table is ``{api_key: (min_version, max_version)}``. Kafka 3.9's ZooKeeper-mode broker's table
is recorded in ``data/kafka-3.9-api-versions.json`` (``python -m pybroker.compat.apiversions
--record BOOTSTRAP`` against the reference Kafka rewrites it; a test checks it against the live
reference).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import API_NAMES, ApiKey, api_versions_request
from pybroker.compat.capabilities import CAPABILITIES, Capability, Requirement
from pybroker.compat.security import AuthenticationError, ClientSecurity
from pybroker.compat.wire import WireConnection

ApiTable = dict[int, tuple[int, int]]

REFERENCE_FILE = Path(__file__).parent / "data" / "kafka-3.9-api-versions.json"
REFERENCE_NAME = "Apache Kafka 3.9 (ZooKeeper mode)"


class ProbeError(Exception):
    """The broker did not answer ApiVersions usefully."""


def probe(bootstrap: str, timeout: float = 10.0,
          security: ClientSecurity | None = None) -> ApiTable:
    """The broker's ApiVersions table (asked as v3, as current clients do; a broker that does
    not know v3 answers in the v0 layout, which the codec reads), over a connection secured and
    authenticated as ``security`` says."""
    request = api_versions_request.ApiVersionsRequest(
        client_software_name="pybroker-compat", client_software_version="1")
    try:
        with WireConnection(bootstrap, timeout, security=security) as conn:
            response = conn.call(ApiKey.API_VERSIONS, 3, request)
    except (OSError, ValueError, AuthenticationError) as e:
        raise ProbeError(f"ApiVersions to {bootstrap} failed: {e}") from e
    table = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
    if response.error_code != ErrorCode.NONE and not table:
        raise ProbeError(f"{bootstrap} answered ApiVersions with "
                         f"{ErrorCode(response.error_code).name}")
    return table


def unmet(requirement: Requirement, table: ApiTable) -> bool:
    """True when no version the broker advertises for the API falls in the requirement's range."""
    advertised = table.get(requirement.api_key)
    if advertised is None:
        return True
    lo, hi = advertised
    top = hi if requirement.max_version is None else min(hi, requirement.max_version)
    return max(lo, requirement.min_version) > top


def not_offered(capability: Capability, table: ApiTable) -> list[str]:
    """The requirements of ``capability`` the broker's table leaves unmet (empty: offered)."""
    return [str(r) for r in capability.needs if unmet(r, table)]


def offered_capabilities(table: ApiTable) -> dict[str, list[str]]:
    """Every capability id with its unmet requirements."""
    return {c.id: not_offered(c, table) for c in CAPABILITIES.values()}


def table_to_json(table: ApiTable) -> list[dict[str, Any]]:
    return [
        {"key": k, "name": API_NAMES.get(k, f"api {k}"), "min": lo, "max": hi}
        for k, (lo, hi) in sorted(table.items())
    ]


def table_from_json(rows: list[dict[str, Any]]) -> ApiTable:
    return {int(r["key"]): (int(r["min"]), int(r["max"])) for r in rows}


def reference_table(path: Path = REFERENCE_FILE) -> ApiTable:
    """Kafka 3.9's recorded table."""
    return table_from_json(json.loads(path.read_text())["apis"])


def record(bootstrap: str, path: Path = REFERENCE_FILE) -> ApiTable:
    table = probe(bootstrap)
    doc = {
        "broker": REFERENCE_NAME,
        "recorded_with": "python -m pybroker.compat.apiversions --record BOOTSTRAP",
        "apis": table_to_json(table),
    }
    rows = ",\n".join("  " + json.dumps(row) for row in doc.pop("apis"))
    head = json.dumps(doc, indent=1)[:-2]
    path.write_text(f'{head},\n "apis": [\n{rows}\n ]\n}}\n')
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pybroker.compat.apiversions",
                                     description=__doc__)
    parser.add_argument("bootstrap", metavar="HOST:PORT")
    parser.add_argument("--record", action="store_true",
                        help=f"write the table to {REFERENCE_FILE.name} (against Kafka 3.9 only)")
    args = parser.parse_args(argv)
    table = record(args.bootstrap) if args.record else probe(args.bootstrap)
    for row in table_to_json(table):
        print(f"{row['key']:>3} {row['name']:<32} v{row['min']}-v{row['max']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
