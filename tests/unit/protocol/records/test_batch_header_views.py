"""protocol.records.batch's header views: the fields a walk or a transactional check needs,
read straight from the header."""

from __future__ import annotations

from protocol.records.batch import (
    PREFIX_SIZE,
    BatchHeader,
    read_prefix,
    transactional_producer,
)
from protocol.records.record import build_batch

T0 = 1_700_000_000_000


def test_the_prefix_is_the_header_up_to_the_last_offset_delta() -> None:
    batch = build_batch([(None, b"a", (), T0), (None, b"b", (), T0)])
    header = BatchHeader.parse(batch)
    assert PREFIX_SIZE == 27
    assert read_prefix(batch) == tuple(header)[:7]
    assert read_prefix(b"\0" * 5 + batch, 5) == tuple(header)[:7]


def test_transactional_producer() -> None:
    txn = build_batch([(None, b"a", (), T0)], producer_id=7, producer_epoch=2,
                      base_sequence=11, is_transactional=True)
    assert transactional_producer(txn) == (7, 2, 11)
    assert transactional_producer(b"xx" + txn, 2) == (7, 2, 11)
    idempotent = build_batch([(None, b"a", (), T0)], producer_id=7, producer_epoch=2,
                             base_sequence=11)
    assert transactional_producer(idempotent) is None
    assert transactional_producer(txn[:40]) is None
    old = bytearray(txn)
    old[16] = 1  # magic 1
    assert transactional_producer(old) is None
