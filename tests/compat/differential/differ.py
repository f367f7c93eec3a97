"""Send the same request sequence to pybroker and to Apache Kafka and compare the answers.

A *scenario* is a function ``scenario(rec: Recorder, names: Names)`` that talks to one broker
through ``rec`` and may use what that broker answered (member ids, offsets) to build its next
request. The test runs it once against each broker, which gives two *transcripts*: one plain,
JSON-like answer per step label. :func:`compare` walks both transcripts field by field.
Requests that wait on each other (a JoinGroup held until the other members join) go through
more connections (:meth:`Recorder.other`) and are collected later (:meth:`Recorder.start`).

What differs by nature between two brokers is masked: fields named in :data:`MASKED_FIELDS`
(ids, hosts and ports, timings) and anything a step masks itself (a path pattern such as
``topics[*].partitions[*].log_append_time_ms``). Record batches are compared header by header
and record by record, after decoding, so a difference names the field that differs.

Every remaining difference must be *documented*: a :class:`Known` entry (scenario, step-label
pattern, path pattern, reason) in the ``KNOWN`` list of the test module, which ``report.py`` turns
into the table of docs/compatibility.md (a test checks the document is current). A difference
not documented fails the test; so does a documented one that no longer occurs, so the list stays
true.
"""

from __future__ import annotations

import dataclasses
import enum
import fnmatch
import ssl
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ErrorCode
from protocol.records import legacy
from protocol.records.record import decode_batch, iter_batches
from pybroker.testing.wire_client import WireClient

#: field names whose values are each broker's own by nature (compared only for presence)
MASKED_FIELDS = frozenset({
    "throttle_time_ms",
    "cluster_id",
    "topic_id",
    "member_id",
    "leader",  # JoinGroup: the leader's member id
    "host",
    "port",
})

MASK = "<masked>"
#: a fetch session id is each broker's own, but whether there is one (not 0) is compared
SESSION = "<session>"


class Absent(enum.Enum):
    """A key one side has and the other lacks."""

    ABSENT = "<absent>"


ABSENT = Absent.ABSENT


# -- normalising answers -----------------------------------------------------------------------


def error_name(code: int) -> str:
    try:
        return f"{ErrorCode(code).name} ({code})"
    except ValueError:
        return f"UNKNOWN_ERROR_CODE ({code})"


def _legacy_message(m: legacy.LegacyMessage) -> dict[str, Any]:
    return {"offset": m.offset, "magic": m.magic, "attributes": m.attributes,
            "timestamp": m.timestamp, "key": m.key, "value": m.value, "crc": m.crc}


def decode_legacy(buf: bytes) -> list[Any]:
    """A message set of magic 0/1 as dicts: each message with its CRC; a compressed wrapper
    by its header fields and inner messages (its own size and CRC depend on the compressor's
    bytes, which differ between brokers)."""
    entries: list[Any] = []
    end = 0
    for pos, size in legacy.iter_entries(buf):
        m = legacy.read_message(buf, pos, size)
        if m.compression:
            entries.append({"wrapper": {"offset": m.offset, "magic": m.magic,
                                        "attributes": m.attributes, "timestamp": m.timestamp},
                            "inner": [_legacy_message(i) for i in legacy.inner_messages(m)]})
        else:
            entries.append(_legacy_message(m))
        end = pos + size
    if end < len(buf):
        entries.append({"truncated_tail_bytes": len(buf) - end})
    return entries


def decode_records(raw: bytes | bytearray | memoryview | None) -> Any:
    """Batches as dicts (header fields and decoded records) for a readable comparison; a
    legacy message set (Fetch v0-v3) message by message."""
    if raw is None:
        return None
    buf = bytes(raw)
    if legacy.peek_magic(buf) in (legacy.MAGIC_V0, legacy.MAGIC_V1):
        return decode_legacy(buf)
    batches = []
    end = 0
    for pos, header in iter_batches(buf):
        _, records = decode_batch(buf, pos)
        batches.append({
            "header": header._asdict(),
            "records": [
                {
                    "offset": r.offset,
                    "timestamp": r.timestamp,
                    "key": r.key,
                    "value": r.value,
                    "headers": [list(h) for h in r.headers],
                }
                for r in records
            ],
        })
        end = pos + header.size
    if end < len(buf):
        batches.append({"truncated_tail_bytes": len(buf) - end})
    return batches


def plain(obj: Any, name: str = "") -> Any:
    """A generated message (dataclasses, lists, bytes) as plain comparable values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out = {}
        for f in dataclasses.fields(obj):
            if f.name == "unknown_tagged_fields":
                continue
            out[f.name] = plain(getattr(obj, f.name), f.name)
        return out
    if isinstance(obj, list):
        items = [plain(item, name) for item in obj]
        return sorted(items, key=_order) if all(_order(i) is not None for i in items) else items
    if name == "records":
        return decode_records(obj)
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj)
    if isinstance(obj, uuid.UUID):
        return str(obj)
    if name == "error_code" and isinstance(obj, int):
        return error_name(obj)
    return obj


#: keys that identify an element of a list whose order carries no meaning (configs, topics,
#: partitions, groups); such lists are compared sorted by them
ORDER_KEYS = ("name", "partition_index", "index", "group_id", "resource_name")


def matches(path: str, pattern: str) -> bool:
    """fnmatch with ``[`` taken literally, so ``topics[*].name`` means what it says."""
    return fnmatch.fnmatchcase(path, pattern.replace("[", "[[]"))


def _order(item: Any) -> Any:
    if not isinstance(item, dict):
        return None
    for key in ORDER_KEYS:
        if key in item and item[key] is not None:
            return (key, str(item[key]))
    return None


def _mask(value: Any, patterns: tuple[str, ...], path: str = "",
          unordered: tuple[str, ...] = ()) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            if key in MASKED_FIELDS or any(matches(sub, p) for p in patterns):
                out[key] = MASK if item is not None else None
            elif key == "session_id" and isinstance(item, int):
                out[key] = SESSION if item else 0
            else:
                out[key] = _mask(item, patterns, sub, unordered)
        return out
    if isinstance(value, list):
        items = [_mask(item, patterns, f"{path}[*]", unordered) for item in value]
        if any(matches(path, p) for p in unordered):
            items.sort(key=repr)
        return items
    return value


# -- recording ---------------------------------------------------------------------------------


@dataclass
class Step:
    label: str
    api_key: int
    version: int
    answer: Any  # plain, masked


@dataclass
class Recorder:
    """Records one broker's answers to a scenario's requests."""

    bootstrap: str
    steps: list[Step] = field(default_factory=list)
    _client: WireClient | None = None
    _others: list[Recorder] = field(default_factory=list)
    #: TLS for the connections (a scenario run on an SSL listener)
    ssl_context: ssl.SSLContext | None = None

    @property
    def client(self) -> WireClient:
        if self._client is None:
            self._client = WireClient(self.bootstrap, timeout=30, ssl_context=self.ssl_context)
        return self._client

    def call(self, label: str, api_key: int, version: int, body: Any, *, mask: Iterable[str] = (),
             unordered: Iterable[str] = ()):
        """Send ``body``, record the answer under ``label`` and return it undecorated."""
        response = self.client.call(api_key, version, body)
        self.record(label, api_key, version, response, mask=mask, unordered=unordered)
        return response

    def start(self, label: str, api_key: int, version: int, body: Any, *,
              mask: Iterable[str] = (), unordered: Iterable[str] = ()) -> Callable[[], Any]:
        """Send ``body`` without waiting for the answer, for a request the broker holds until
        something else happens (a JoinGroup waits for the other members, which join through
        :meth:`other` connections). The returned function waits for the answer, records it
        under ``label`` and returns it; send nothing else on this connection before calling it."""
        client = self.client
        correlation_id = client.send(api_key, version, body)

        def finish() -> Any:
            response = client.receive(api_key, version, correlation_id)
            self.record(label, api_key, version, response, mask=mask, unordered=unordered)
            return response

        return finish

    def record(self, label: str, api_key: int, version: int, response: Any, *,
               mask: Iterable[str] = (), unordered: Iterable[str] = ()) -> None:
        """``unordered``: paths of lists whose order carries no meaning although their elements
        have no identifying key (JoinGroup's and DescribeGroups' members, which Kafka keeps in
        a hash map); they are compared sorted by their masked content."""
        if any(s.label == label for s in self.steps):
            raise ValueError(f"step label {label!r} used twice")
        answer = _mask(plain(response), tuple(mask), unordered=tuple(unordered))
        self.steps.append(Step(label, api_key, version, answer))

    def quietly(self, api_key: int, version: int, body: Any):
        """Send without recording (set-up and polling that is not under comparison)."""
        return self.client.call(api_key, version, body)

    def other(self) -> Recorder:
        """Another connection to the same broker, recording into the same transcript (so its
        labels must differ too); closed with this one."""
        rec = Recorder(self.bootstrap, self.steps, ssl_context=self.ssl_context)
        self._others.append(rec)
        return rec

    def new_connection(self) -> None:
        self.close()

    def close(self) -> None:
        for rec in self._others:
            rec.close()
        self._others.clear()
        if self._client is not None:
            self._client.close()
            self._client = None


# -- comparing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    label: str
    path: str
    pybroker: Any
    kafka: Any

    def __str__(self) -> str:
        return f"{self.label}: {self.path}: pybroker={self.pybroker!r} kafka={self.kafka!r}"


@dataclass(frozen=True)
class Known:
    """A documented difference: the scenario (function name), the step labels and answer paths
    it covers (fnmatch patterns), and why it is so."""

    scenario: str
    label: str
    path: str
    reason: str

    def covers(self, d: Difference) -> bool:
        return fnmatch.fnmatchcase(d.label, self.label) and matches(d.path, self.path)


def _walk(ours: Any, theirs: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in list(ours) + [k for k in theirs if k not in ours]:
            sub = f"{path}.{key}" if path else key
            yield from _walk(ours.get(key, ABSENT), theirs.get(key, ABSENT), sub)
    elif isinstance(ours, list) and isinstance(theirs, list):
        keyed_ours, keyed_theirs = _keyed(ours), _keyed(theirs)
        if keyed_ours is not None and keyed_theirs is not None:
            # elements matched by their identifying key: a missing one is named, not shifted
            for key in list(keyed_ours) + [k for k in keyed_theirs if k not in keyed_ours]:
                yield from _walk(keyed_ours.get(key, ABSENT), keyed_theirs.get(key, ABSENT),
                                 f"{path}{{{key}}}")
            return
        if len(ours) != len(theirs):
            yield f"{path}.length", len(ours), len(theirs)
        for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            yield from _walk(a, b, f"{path}[{i}]")
    elif ours != theirs:
        yield path, ours, theirs


def _keyed(items: list[Any]) -> dict[str, Any] | None:
    keys = [_order(item) for item in items]
    if not items or any(k is None for k in keys) or len(set(keys)) != len(keys):
        return None
    return {k[1]: item for k, item in zip(keys, items, strict=True)}


def compare(ours: list[Step], theirs: list[Step]) -> list[Difference]:
    """Field-by-field differences between two transcripts of the same scenario."""
    diffs: list[Difference] = []
    ours_by_label = {s.label: s for s in ours}
    theirs_by_label = {s.label: s for s in theirs}
    for label in list(ours_by_label) + [k for k in theirs_by_label if k not in ours_by_label]:
        a, b = ours_by_label.get(label), theirs_by_label.get(label)
        if a is None or b is None:
            diffs.append(Difference(label, "<step>", a is not None, b is not None))
            continue
        for path, x, y in _walk(a.answer, b.answer, ""):
            # list indexes are generalised to [*] so a Known entry covers every element
            diffs.append(Difference(label, _generalise(path), x, y))
    return diffs


def _generalise(path: str) -> str:
    """List indexes become ``[*]``; keys of keyed elements (``{name}``) stay."""
    out, i = [], 0
    while i < len(path):
        if path[i] == "[":
            j = path.index("]", i)
            out.append("[*]")
            i = j + 1
        else:
            out.append(path[i])
            i += 1
    return "".join(out)


def triage(diffs: list[Difference], known: Iterable[Known]) -> tuple[list[Difference], set[Known]]:
    """(differences no entry covers, entries that covered something)."""
    known = list(known)
    unexplained, used = [], set()
    for d in diffs:
        hits = [k for k in known if k.covers(d)]
        if hits:
            used.update(hits)
        else:
            unexplained.append(d)
    return unexplained, used


Scenario = Callable[[Recorder, Any], None]
