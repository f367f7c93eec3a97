"""The interface every metadata store implements."""

from __future__ import annotations

from typing import Protocol

from pybroker.metadata.model import ClusterImage, PartitionRecord, TopicRecord


class MetadataStore(Protocol):
    """Durable cluster metadata. Each write is durable when the call returns."""

    def load(self) -> ClusterImage: ...

    def create_topic(self, topic: TopicRecord) -> None: ...

    def delete_topic(self, name: str) -> None: ...

    def add_partitions(self, name: str, partitions: list[PartitionRecord]) -> None: ...

    def set_topic_configs(self, name: str, configs: dict[str, str]) -> None: ...

    def set_broker_configs(self, entity: str, configs: dict[str, str]) -> None:
        """Replace the dynamic broker configs of ``entity`` (a broker id, or ``<default>``)."""
        ...

    def set_user_configs(self, user: str, configs: dict[str, str]) -> None:
        """Replace a user's config entity (its SCRAM credentials); empty: remove it."""
        ...

    def allocate_producer_id_block(self, size: int) -> int:
        """Reserve ``size`` producer ids and return the first; ids are never handed out twice,
        across restarts included (Kafka keeps the same promise with /latest_producer_id_block)."""
        ...

    def close(self) -> None: ...
