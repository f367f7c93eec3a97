"""``meta.properties``: what a log dir says of the broker and the cluster it belongs to, as
Kafka writes it."""

from __future__ import annotations

import base64
import os
import uuid
from pathlib import Path

META_PROPERTIES = "meta.properties"


def new_cluster_id() -> str:
    """A cluster id the way Kafka makes one: a random UUID in URL-safe base64 without padding."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` by ``data``, durably: a crash leaves the old or the new content
    (a temporary file, fsync, rename, fsync of the directory)."""
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
