"""Arbitrary bytes never crash the request decoders: they decode or raise ProtocolError."""

from __future__ import annotations

import importlib
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from protocol import messages
from protocol.codegen.samples import build_sample
from protocol.codegen.spec import merged_specs
from protocol.errors import ProtocolError
from protocol.headers import decode_request
from protocol.messages import ApiKey

REQUEST_MODULES = {key: importlib.import_module(f"protocol.messages.{names[0]}") for key, names in messages.API_KEYS.items()}
SPECS = {s.name: s for s, _ in merged_specs()}
CASES = sorted((key, v) for key, m in REQUEST_MODULES.items() for v in m.READERS)

FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _decode_or_protocol_error(fn, *args) -> None:
    try:
        fn(*args)
    except ProtocolError:
        pass


@FUZZ
@given(st.binary(max_size=300))
def test_decode_request_on_noise(data: bytes):
    _decode_or_protocol_error(decode_request, data)


@FUZZ
@given(st.sampled_from(CASES), st.integers(-1, 30), st.binary(max_size=200))
def test_decode_request_with_a_plausible_header(case, correlation, body):
    # A valid header for a real api key and version, then noise: reaches the body decoders.
    key, version = case
    head = key.to_bytes(2, "big", signed=True) + version.to_bytes(2, "big") + correlation.to_bytes(4, "big", signed=True)
    head += b"\x00\x01c"
    if messages.REQUEST_FLEXIBLE_FROM[key] is not None and version >= messages.REQUEST_FLEXIBLE_FROM[key]:
        head += b"\x00"
    if key == ApiKey.CONTROLLED_SHUTDOWN and version == 0:
        head = head[:8]
    _decode_or_protocol_error(decode_request, head + body)


@FUZZ
@given(st.sampled_from(CASES), st.binary(max_size=300))
def test_every_request_module_on_noise(case, data: bytes):
    key, version = case
    _decode_or_protocol_error(REQUEST_MODULES[key].decode, data, version)


@FUZZ
@given(st.sampled_from(CASES), st.randoms(use_true_random=False), st.integers(1, 8))
def test_every_request_module_on_mutated_valid_bytes(case, rnd: random.Random, flips: int):
    # Noise rarely gets past the first length; corrupting a real encoding reaches deep fields.
    key, version = case
    module = REQUEST_MODULES[key]
    spec = SPECS[module.NAME]
    data = bytearray(module.encode(build_sample(spec, module, version, nulls=rnd.random() < 0.3), version))
    for _ in range(flips):
        if not data:
            break
        i = rnd.randrange(len(data))
        choice = rnd.random()
        if choice < 0.6:
            data[i] = rnd.randrange(256)
        elif choice < 0.8:
            del data[i:]
        else:
            data[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 6)))
    _decode_or_protocol_error(module.decode, bytes(data), version)
