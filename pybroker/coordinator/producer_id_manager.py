"""Hands out producer ids for idempotent producers (InitProducerId).

Ids come from blocks reserved durably in the metadata store, as Kafka reserves them in
ZooKeeper (/latest_producer_id_block) or the controller: a restart never reuses an id.
"""

from __future__ import annotations

from pybroker.metadata.store import MetadataStore

BLOCK_SIZE = 1000


class ProducerIdManager:
    def __init__(self, store: MetadataStore, block_size: int = BLOCK_SIZE) -> None:
        self.store = store
        self.block_size = block_size
        self._next = 0
        self._end = 0  # exclusive

    def generate_producer_id(self) -> int:
        if self._next >= self._end:
            self._next = self.store.allocate_producer_id_block(self.block_size)
            self._end = self._next + self.block_size
        pid = self._next
        self._next += 1
        return pid
