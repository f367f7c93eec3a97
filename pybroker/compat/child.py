"""``python -m pybroker.compat.child SPEC RESULT``: run one scenario, write its outcome.

SPEC is a JSON file (``scenario``, ``module``, ``bootstrap``, ``run_id``, ``timeout``,
``evidence``, ``security``); RESULT receives ``{"status": "pass"|"fail"|"skipped"|"not
offered", "message", "traceback", "evidence", "seconds"}``. The runner starts this in a new session and kills the session when
the scenario's time limit passes, so nothing here needs to guard against hanging.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from pybroker.compat.clients import CLIENTS
from pybroker.compat.report import NOT_OFFERED
from pybroker.compat.scenario import (
    Context,
    ScenarioFailed,
    ScenarioNotOffered,
    ScenarioSkipped,
    load_scenarios,
)
from pybroker.compat.security import ClientSecurity


def _shortened(trace: str) -> str:
    """A traceback with the machine's own paths cut: files of this checkout relative to it, the
    clients' relative to their ``site-packages``, so that a card reads the same wherever it
    was made."""
    checkout = str(Path(__file__).parents[2]) + os.sep
    for path in sorted({p for p in sys.path if p.endswith("site-packages")}, key=len,
                       reverse=True):
        trace = trace.replace(path + os.sep, "site-packages" + os.sep)
    return trace.replace(checkout, "")


def run(spec: dict[str, Any]) -> dict[str, Any]:
    started = time.monotonic()
    scenarios = load_scenarios([spec["module"]])
    s = scenarios[spec["scenario"]]
    evidence_path = Path(spec["evidence"]) if spec.get("evidence") else None
    ctx = Context(
        bootstrap=spec["bootstrap"], run_id=spec["run_id"], scenario_id=s.id,
        deadline=started + float(spec["timeout"]), evidence_path=evidence_path,
        security=ClientSecurity.from_json(spec.get("security")),
    )
    result: dict[str, Any] = {"status": "pass", "message": "", "traceback": ""}
    missing = CLIENTS[s.client].missing()
    try:
        if missing:
            raise ScenarioSkipped(missing)
        s.load()(ctx, **dict(s.params))
    except ScenarioSkipped as e:
        result.update(status="skipped", message=str(e))
    except ScenarioNotOffered as e:
        result.update(status=NOT_OFFERED, message=str(e))
    except ScenarioFailed as e:
        result.update(status="fail", message=str(e), traceback=_shortened(traceback.format_exc()))
    except BaseException as e:  # noqa: BLE001 - any error is the scenario's failure
        result.update(status="fail", message=f"{type(e).__name__}: {e}",
                      traceback=_shortened(traceback.format_exc()))
    result["evidence"] = ctx.attached
    result["seconds"] = round(time.monotonic() - started, 3)
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec = json.loads(Path(args[0]).read_text())
    # the client libraries' own logging goes to the output kept with a failure
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="[%(asctime)s] %(levelname)s %(name)s: %(message)s")
    result = run(spec)
    tmp = Path(args[1] + ".tmp")
    tmp.write_text(json.dumps(result))
    tmp.rename(args[1])
    sys.stdout.flush()
    sys.stderr.flush()
    return 0


if __name__ == "__main__":
    # a client library's threads must not hold the process open once the result is written
    os._exit(main())
