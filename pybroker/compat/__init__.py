"""The compatibility suite: point it at any Kafka-compatible broker, get a report card.

``pybroker compat --bootstrap host:port`` runs real-client scenarios against a broker it knows
only by its bootstrap address (it never imports the broker, never reads its file system, and
sends nothing anywhere else). Each scenario exercises one *capability* (``produce-fetch``,
``codec-zstd``, ``transactions``, ...; :data:`CAPABILITIES`) with one *client* (``kafka-python``,
``confluent-kafka``, ``aiokafka``, ``java``, ``cli``, ``spark``, ``wire``; :data:`CLIENTS`).
The broker's ApiVersions answer is read first: a capability whose APIs it does not advertise is
reported *not offered*, not failed.

Writing a scenario
------------------

A scenario is a module-level function taking a :class:`Context`, registered with
:func:`scenario`::

    from pybroker.compat import Context, scenario

    @scenario("produce-fetch", client="kafka-python", timeout=30)
    def produce_fetch(ctx: Context) -> None:
        topic = ctx.create_topic()           # compat-<runid>-<scenario>-t, cleaned up afterwards
        ...                                  # talk to ctx.bootstrap with the client library
        ctx.evidence("produced", offsets)    # shown with a failure in the report card
        ctx.check(got == sent, "fetched records differ", sent=sent, got=got)

* It **passes** by returning, **fails** by raising anything (:meth:`Context.fail` and
  :meth:`Context.check` raise :class:`ScenarioFailed` with evidence), and is **skipped** with a
  reason only through :meth:`Context.skip` (for a client that truly cannot do the thing).
* It runs in a child process of its own (``python -m pybroker.compat.child``), in a new session
  killed (process group, by id) when its ``timeout`` (seconds) passes: a hung client library or
  a broker that stops answering costs that scenario only, reported failed with what it had
  attached so far and the tail of its output.
* It names topics, groups and transactional ids only through :meth:`Context.topic`,
  :meth:`Context.group` and :meth:`Context.transactional_id`: everything under the run prefix
  ``compat-<runid>-`` is deleted at the end of the run (and on Ctrl-C), nothing else is touched.
  :meth:`Context.create_topic` creates a topic and waits for its leaders, so that a scenario
  does not depend on auto-creation (off on many brokers).
* Its module must be listed in :data:`pybroker.compat.scenarios.SCENARIO_MODULES` (the child
  imports it by name) and must import client libraries inside the function or guard them, so
  that listing scenarios works where a library is missing; the client's availability is
  :attr:`Client.missing` in :data:`CLIENTS`.
* ``name`` defaults to the capability; give one when a client has several scenarios for one
  capability. A scenario's id is ``<client>/<name>``. ``params`` (JSON values) reach the
  function as keyword arguments, for one function registered several times (the codecs).

Running from Python
-------------------

``pybroker.compat.runner.run_suite(bootstrap, scenarios, name=..., reference_bootstrap=...)``
runs scenarios (``load_scenarios().values()``, filtered as you like) and returns a ``Run``;
``pybroker.compat.report.write_report(run.to_json(), directory)`` writes its card. The card's
JSON (``Run.to_json()``) is what the renderers read, so a saved ``report.json`` renders again.

Secured brokers
---------------

``--security-protocol``, ``--sasl-mechanism``, ``--sasl-username``, ``--sasl-password``,
``--ssl-cafile`` and ``--client-property`` make a :class:`~pybroker.compat.security.ClientSecurity`
that reaches every scenario as ``Context.security``: scenarios connect through
:meth:`Context.kafka_python`, :meth:`Context.aiokafka`, :meth:`Context.confluent` or
``WireConnection(..., security=ctx.security)``, and the probe and cleanup log in the same way.
``run_suite(..., security=...)`` takes it from Python.

Modules: :mod:`.scenario` (this interface and the registry), :mod:`.capabilities` (the table
of capabilities and the APIs each needs), :mod:`.clients`, :mod:`.apiversions` (the raw
ApiVersions probe and the not-offered decision), :mod:`.wire` (a raw protocol connection for
scenarios), :mod:`.security` (the secured-broker settings and the suite's SASL client side),
:mod:`.runner`, :mod:`.cleanup`, :mod:`.report` and :mod:`.cli`.
"""

from __future__ import annotations

from pybroker.compat.capabilities import CAPABILITIES, Capability
from pybroker.compat.clients import CLIENTS, Client
from pybroker.compat.scenario import (
    Context,
    Scenario,
    ScenarioFailed,
    ScenarioSkipped,
    registry,
    scenario,
)

__all__ = [
    "CAPABILITIES",
    "CLIENTS",
    "Capability",
    "Client",
    "Context",
    "Scenario",
    "ScenarioFailed",
    "ScenarioSkipped",
    "registry",
    "scenario",
]
