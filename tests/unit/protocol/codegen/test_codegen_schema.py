"""The schema of Kafka's message specs: the importer, the loader, and the committed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol import messages
from protocol.codegen import import_specs
from protocol.codegen.__main__ import render
from protocol.codegen.emit import module_name
from protocol.codegen.spec import (
    OVERLAY_PATHS,
    SCHEMA_PATH,
    VersionRange,
    dump_schema,
    load_schema,
    parse_schema,
)

# A made-up spec written the way Kafka writes them: licence comment, // and /* */ comments,
# "about" prose, Java-only hints, a nested struct, a common struct, tagged and nullable fields.
SPEC = """// Licensed to the Apache Software Foundation (ASF) under one or more
// contributor license agreements.
{
  "apiKey": 99,
  "type": "request",
  "listeners": ["zkBroker", "broker"],
  "name": "ExampleRequest",
  // Version 1 adds Topics.
  /* Version 2 is the first flexible version. */
  "validVersions": "0-2",
  "deprecatedVersions": "0",
  "flexibleVersions": "2+",
  "latestVersionUnstable": true,
  "fields": [
    { "name": "ClientId", "type": "string", "versions": "0+", "flexibleVersions": "none",
      "nullableVersions": "0+", "default": null, "about": "A // not-a-comment \\"quoted\\" id." },
    { "name": "TimeoutMs", "type": "int32", "versions": "0+", "default": "60000",
      "ignorable": true, "about": "How long to wait." },
    { "name": "Topics", "type": "[]ExampleTopic", "versions": "1+", "nullableVersions": "2+",
      "about": "The topics.", "fields": [
      { "name": "Name", "type": "string", "versions": "1+", "mapKey": true,
        "entityType": "topicName", "about": "The topic name." },
      { "name": "Partitions", "type": "[]Partition", "versions": "1+" }
    ]},
    { "name": "Records", "type": "records", "versions": "0+", "zeroCopy": true,
      "nullableVersions": "0+", "about": "Record data." },
    { "name": "ClusterId", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 0,
      "nullableVersions": "2+", "default": "null", "about": "Tagged." },
    { "name": "Verify", "type": "bool", "versions": "0+", "default": false }
  ],
  "commonStructs": [
    { "name": "Partition", "versions": "0+", "fields": [
      { "name": "Index", "type": "int32", "versions": "0+", "default": -1 }
    ]}
  ]
}
"""


@pytest.fixture
def spec_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    (folder / "clients").mkdir(parents=True)
    (folder / "clients" / "ExampleRequest.json").write_text(SPEC, encoding="utf-8")
    (folder / "PINNED").write_text(
        "Apache Kafka message specs, copied unmodified.\n"
        "tag: 3.9.0-rc3 (a comment after the tag)\n"
        "commit: dd5272687e8adf9e79e3e329b1b3d2524afb6020\n",
        encoding="utf-8",
    )
    return folder


def test_importer_keeps_the_model_of_the_commented_json(spec_dir: Path, tmp_path: Path):
    out = tmp_path / "schema.json"
    assert import_specs.main([str(spec_dir), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    schema = load_schema(out)
    direct = import_specs.parse_message(spec_dir / "clients" / "ExampleRequest.json")
    assert schema.specs == [direct]
    # The model really holds what the spec says, so the equality above is not vacuous.
    assert direct.api_key == 99 and direct.listeners == ("zkBroker", "broker")
    assert direct.valid_versions == VersionRange(0, 2)
    assert direct.flexible_versions == VersionRange(2, None)
    assert direct.latest_version_unstable
    client_id, timeout, topics, records, cluster_id, verify = direct.fields
    assert client_id.never_flexible and client_id.default == "null"
    assert timeout.default == "60000"
    assert topics.nullable_versions == VersionRange(2, None)
    assert [f.name for f in topics.fields] == ["Name", "Partitions"]
    assert records.type == "records" and not records.nullable_versions.empty
    assert cluster_id.tag == 0 and cluster_id.tagged_versions == VersionRange(2, None)
    assert verify.default is False
    assert direct.common_structs[0].fields[0].default == -1
    # Provenance is kept; prose, comments and Java-only hints are not.
    assert schema.kafka_tag == "3.9.0-rc3" and schema.release == "3.9"
    assert schema.kafka_commit == "dd5272687e8adf9e79e3e329b1b3d2524afb6020"
    assert schema.importer == "protocol.codegen.import_specs"
    for dropped in ("about", "not-a-comment", "Licensed", "Version 1 adds", "mapKey",
                    "entityType", "zeroCopy", "ignorable", "deprecatedVersions"):
        assert dropped not in text
    # Deterministic: writing what was read gives the same bytes.
    assert dump_schema(schema) == text


def test_importer_needs_a_kafka_version_without_pinned(spec_dir: Path):
    (spec_dir / "PINNED").unlink()
    with pytest.raises(ValueError, match="no PINNED file"):
        import_specs.import_specs(spec_dir)
    schema = import_specs.import_specs(spec_dir, "4.0.0")
    assert (schema.kafka_tag, schema.kafka_commit, schema.release) == ("4.0.0", None, "4.0")
    with pytest.raises(ValueError, match="not a Kafka version"):
        import_specs.import_specs(spec_dir, "trunk")


def test_importer_refuses_a_version_that_contradicts_pinned(spec_dir: Path):
    with pytest.raises(ValueError, match="PINNED says 3.9.0-rc3"):
        import_specs.import_specs(spec_dir, "4.0.0")


def test_importer_refuses_spec_keys_it_does_not_know(spec_dir: Path):
    path = spec_dir / "clients" / "ExampleRequest.json"
    path.write_text(SPEC.replace('"mapKey": true', '"newFeature": true'), encoding="utf-8")
    with pytest.raises(ValueError, match=r"ExampleRequest.json.Topics.Name: .*newFeature"):
        import_specs.import_specs(spec_dir)


def test_loader_refuses_unknown_schema_keys(spec_dir: Path):
    text = dump_schema(import_specs.import_specs(spec_dir))
    with pytest.raises(ValueError, match="unknown schema key"):
        parse_schema(text.replace('"tag": 0', '"tag": 0, "about": "prose"'))


def test_committed_schema_covers_exactly_the_generated_modules():
    schema = load_schema()
    assert schema.release == "3.9"
    overlay = [s for path in OVERLAY_PATHS for s in load_schema(path).specs]
    generated = {p.stem for p in Path(messages.__file__).parent.glob("*.py")} - {"__init__"}
    assert len(generated) > 200
    # an overlay's spec replaces the base's of its file name, or of its API (a renamed one:
    # 3.9's ListClientMetricsResources is 4.1's ListConfigResources)
    replaced = {(s.api_key, s.type) for s in overlay if s.api_key is not None}
    kept = [s for s in schema.specs if (s.api_key, s.type) not in replaced]
    assert {module_name(s.file_name) for s in [*kept, *overlay]} == generated
    assert "list_config_resources_request" in generated
    assert "list_client_metrics_resources_request" not in generated
    api_keys = {s.api_key for s in schema.specs if s.api_key is not None}
    assert api_keys == set(messages.API_KEYS)


def test_committed_schema_is_in_the_importers_form():
    # A hand edit that the importer would not have written shows up here.
    for path in (SCHEMA_PATH, *OVERLAY_PATHS):
        text = path.read_text(encoding="utf-8")
        assert dump_schema(parse_schema(text)) == text


def test_the_overlay_replaces_its_specs_and_names_itself(spec_dir: Path, tmp_path: Path):
    # The 4.1 overlay holds KIP-848's messages: v1 of the heartbeat, the regex record.
    (overlay,) = OVERLAY_PATHS
    assert load_schema(overlay).release == "4.1"
    files = render()
    heartbeat = files["consumer_group_heartbeat_request.py"]
    assert "kafka-4.1.json" in heartbeat.split("\n", 1)[0]
    assert "VALID_VERSIONS = (0, 1)" in heartbeat
    assert "kafka-3.9.json" in files["join_group_request.py"].split("\n", 1)[0]
    assert "consumer_group_regular_expression_key.py" in files
    # Without the overlay the 3.9 spec is generated.
    assert "VALID_VERSIONS = (0, 0)" in render(SCHEMA_PATH, [])[
        "consumer_group_heartbeat_request.py"]
    # --only keeps the named files, and refuses a name that is not there.
    only = import_specs.import_specs(spec_dir, only={"ExampleRequest.json"})
    assert [s.file_name for s in only.specs] == ["ExampleRequest.json"]
    with pytest.raises(ValueError, match="not under"):
        import_specs.import_specs(spec_dir, only={"Missing.json"})


def test_generated_files_say_so_on_their_first_line():
    root = SCHEMA_PATH.parents[2]
    paths = sorted(Path(messages.__file__).parent.glob("*.py"))
    paths += [root / "docs" / "apis.md", root / "docs" / "state-machines.md"]
    for path in paths:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert "@generated" in first and "DO NOT EDIT" in first, path
