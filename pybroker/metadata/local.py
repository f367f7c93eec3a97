"""The embedded single-node mode's metadata store: one JSON document in the first log dir.

Every change rewrites the document atomically (write a temporary file, fsync, rename, fsync the
directory), so a crash leaves either the old or the new state. It holds the topics, the next
producer id block, the dynamic broker configs (KIP-226: the broker's own under its id, the
cluster-wide defaults under ``<default>``, as ZooKeeper's ``/config/brokers`` names them) and
the ACLs (Kafka's documents by Kafka's ZooKeeper paths) and the users' config entities
with their SCRAM credentials (as ``/config/users`` holds them).
``meta.properties`` is written in Kafka's format so the directory is recognisable as a broker's.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from pathlib import Path
from typing import Any

from pybroker.log.dir_failure import LogDirFailureChannel, storage_error
from pybroker.metadata.model import ClusterImage, PartitionRecord, TopicRecord

METADATA_FILE = "__pybroker_metadata.json"
META_PROPERTIES = "meta.properties"
FORMAT_VERSION = 1


def new_cluster_id() -> str:
    """A cluster id the way Kafka makes one: a random UUID in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


def write_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_meta_properties_cluster_id(directory: Path) -> str | None:
    meta = directory / META_PROPERTIES
    if not meta.exists():
        return None
    for line in meta.read_text().splitlines():
        if line.startswith("cluster.id="):
            return line.split("=", 1)[1].strip()
    return None


def check_meta_properties(directory: Path, broker_id: int, cluster_id: str) -> None:
    """``meta.properties`` names the broker and its cluster, as Kafka writes it; a log dir of
    another cluster is refused (Kafka's InconsistentClusterIdException)."""
    meta = directory / META_PROPERTIES
    existing = read_meta_properties_cluster_id(directory)
    if existing and existing != cluster_id:
        raise RuntimeError(
            f"{meta} belongs to cluster {existing}, but this broker's cluster is {cluster_id}")
    text = f"version=0\nbroker.id={broker_id}\ncluster.id={cluster_id}\n"
    if not meta.exists() or meta.read_text() != text:
        write_atomically(meta, text.encode())


class LocalMetadataStore:
    """The single node's cluster metadata in its first log dir. ``failures``: where a write
    that fails is reported (it fails that log dir, and so the node); the change is then
    refused with KAFKA_STORAGE_ERROR."""

    def __init__(self, directory: Path, broker_id: int,
                 failures: LogDirFailureChannel | None = None) -> None:
        self.directory = directory
        self.broker_id = broker_id
        self.path = directory / METADATA_FILE
        self.failures = failures
        self._image: ClusterImage | None = None

    def load(self) -> ClusterImage:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            doc = json.loads(self.path.read_text())
            if doc.get("version") != FORMAT_VERSION:
                raise RuntimeError(f"{self.path}: unknown metadata format {doc.get('version')!r}")
            image = ClusterImage(
                cluster_id=doc["cluster_id"],
                topics={n: TopicRecord.from_json(n, t) for n, t in doc["topics"].items()},
                next_producer_id=int(doc.get("next_producer_id", 0)),
                broker_configs={str(e): {str(k): str(v) for k, v in c.items()}
                                for e, c in doc.get("broker_configs", {}).items()},
                acls={str(p): dict(d) for p, d in doc.get("acls", {}).items()},
                user_configs={str(u): {str(k): str(v) for k, v in c.items()}
                              for u, c in doc.get("user_configs", {}).items()},
            )
        else:
            image = ClusterImage(cluster_id=self._read_cluster_id() or new_cluster_id())
        self._image = image
        self._check_meta_properties(image.cluster_id)
        self._save(only_if_changed=True)
        return image

    def _read_cluster_id(self) -> str | None:
        return read_meta_properties_cluster_id(self.directory)

    def _check_meta_properties(self, cluster_id: str) -> None:
        check_meta_properties(self.directory, self.broker_id, cluster_id)

    @property
    def image(self) -> ClusterImage:
        if self._image is None:
            raise RuntimeError("metadata store used before load()")
        return self._image

    def _save(self, *, only_if_changed: bool = False) -> None:
        """Write the image (atomically); ``only_if_changed``: not when the file holds it
        already (start-up writes nothing to a disk that may be full)."""
        image = self.image
        doc: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "cluster_id": image.cluster_id,
            "next_producer_id": image.next_producer_id,
            "topics": {n: t.to_json() for n, t in sorted(image.topics.items())},
        }
        if image.broker_configs:
            doc["broker_configs"] = {e: dict(sorted(c.items()))
                                     for e, c in sorted(image.broker_configs.items())}
        if image.acls:
            doc["acls"] = dict(sorted(image.acls.items()))
        if image.user_configs:
            doc["user_configs"] = {u: dict(sorted(c.items()))
                                   for u, c in sorted(image.user_configs.items())}
        data = json.dumps(doc, indent=1).encode()
        if only_if_changed:
            try:
                if self.path.read_bytes() == data:
                    return
            except FileNotFoundError:
                pass
        try:
            write_atomically(self.path, data)
        except OSError as e:
            message = f"Error while writing the cluster metadata to dir {self.directory}"
            if self.failures is not None:
                self.failures.maybe_add_offline_log_dir(self.directory, message, e)
            raise storage_error(f"{message}: {e}") from e

    def create_topic(self, topic: TopicRecord) -> None:
        self.image.topics[topic.name] = topic
        self._save()

    def delete_topic(self, name: str) -> None:
        self.image.topics.pop(name, None)
        self._save()

    def add_partitions(self, name: str, partitions: list[PartitionRecord]) -> None:
        self.image.topics[name] = self.image.topics[name].with_partitions(partitions)
        self._save()

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None:
        self.image.topics[name] = self.image.topics[name].with_configs(configs)
        self._save()

    def set_broker_configs(self, entity: str, configs: dict[str, str]) -> None:
        if configs:
            self.image.broker_configs[entity] = dict(configs)
        else:
            self.image.broker_configs.pop(entity, None)
        self._save()

    def set_acls(self, documents: dict[str, dict[str, Any] | None]) -> None:
        """Replace the ACL documents at these paths (None deletes one), in one write."""
        for path, document in documents.items():
            if document is None:
                self.image.acls.pop(path, None)
            else:
                self.image.acls[path] = document
        self._save()

    def set_user_configs(self, user: str, configs: dict[str, str]) -> None:
        if configs:
            self.image.user_configs[user] = dict(configs)
        else:
            self.image.user_configs.pop(user, None)
        self._save()

    def allocate_producer_id_block(self, size: int) -> int:
        first = self.image.next_producer_id
        self.image.next_producer_id = first + size
        self._save()
        return first

    def close(self) -> None:
        pass
