"""The names the layers share for the same things."""

from __future__ import annotations

from typing import TypeAlias

#: a partition as the broker keys it everywhere: ``(topic, partition index)``. A plain tuple
#: on purpose: the produce and fetch paths build and hash these for every partition of every
#: request, and a tuple is the cheapest key there is.
TopicPartition: TypeAlias = tuple[str, int]
