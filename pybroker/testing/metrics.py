"""Reading a broker's metrics endpoint in tests: :func:`scrape` one page into samples, and
look them up by name and labels."""

from __future__ import annotations

import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families


@dataclass(frozen=True)
class Scrape:
    """One page of samples: ``(name, labels) -> value``, and each family's type by name."""

    samples: dict[tuple[str, frozenset[tuple[str, str]]], float]
    types: dict[str, str]

    def value(self, name: str, labels: Mapping[str, str] | None = None,
              default: float | None = None) -> float:
        """The sample with exactly these labels (none by default)."""
        key = (name, frozenset((labels or {}).items()))
        if key in self.samples:
            return self.samples[key]
        if default is not None:
            return default
        raise KeyError(f"no sample {name}{dict(labels or {})}; the page has "
                       f"{sorted(n for n, _ in self.samples if n == name)[:3] or 'none of it'}")

    def series(self, name: str) -> dict[frozenset[tuple[str, str]], float]:
        """Every sample of ``name``, by label set."""
        return {labels: v for (n, labels), v in self.samples.items() if n == name}

    def names(self) -> set[str]:
        return {n for n, _ in self.samples}


def parse(text: str) -> Scrape:
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    types: dict[str, str] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
            types[sample.name] = family.type
    return Scrape(samples, types)


def scrape(url: str, timeout: float = 10.0) -> Scrape:
    """GET ``url`` (a ``/metrics`` page) and parse it."""
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback
        return parse(response.read().decode())


def ready(url: str, timeout: float = 5.0) -> int:
    """The status of ``/ready`` beside the ``/metrics`` page ``url``."""
    base = url.rsplit("/", 1)[0]
    try:
        with urllib.request.urlopen(base + "/ready", timeout=timeout) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as e:
        return int(e.code)
