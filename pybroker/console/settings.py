"""What a console serves: the clusters it shows, where it listens, whether it may change
anything, and who may use it.

Settings come from the command line (``--cluster name=bootstrap[,bootstrap...]``, repeatable)
or from a small TOML file for several clusters with security settings::

    listen = "127.0.0.1:8080"
    read_only = false
    metrics_interval = 5        # seconds between scrapes of the metrics endpoints

    [auth]                      # optional HTTP basic authentication
    username = "admin"
    password = "change-me"

    [[clusters]]
    name = "production"
    bootstrap = "10.0.0.1:9092,10.0.0.2:9092"
    metrics = ["http://10.0.0.1:9404/metrics", "http://10.0.0.2:9404/metrics"]

    [clusters.security]         # as the compatibility suite's --security options
    protocol = "SASL_SSL"
    mechanism = "SCRAM-SHA-512"
    username = "console"
    password = "secret"
    cafile = "/etc/kafka/ca.pem"

Passwords are kept here and given to the clients; :meth:`ClusterSettings.public` is what the
console ever shows of a cluster, and it has none.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pybroker.compat.security import ClientSecurity

#: a cluster's name is part of its pages' URLs
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
DEFAULT_LISTEN = "127.0.0.1:8080"


class SettingsError(ValueError):
    """Settings the console cannot start with; the message says which and why."""


@dataclass(frozen=True)
class ClusterSettings:
    """One cluster: its name in the console, its bootstrap servers, how to connect, and the
    brokers' Prometheus endpoints (empty: no charts)."""

    name: str
    bootstrap: str
    security: ClientSecurity = field(default_factory=ClientSecurity)
    metrics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise SettingsError(f"a cluster name is 1-64 letters, digits, '.', '_' or '-': "
                                f"{self.name!r}")
        if not self.bootstrap.strip():
            raise SettingsError(f"cluster {self.name}: no bootstrap servers")

    def public(self) -> dict[str, Any]:
        """What the console shows of the cluster's settings: never a password."""
        return {"name": self.name, "bootstrap": self.bootstrap,
                "security": self.security.describe(), "metrics": list(self.metrics)}


@dataclass(frozen=True)
class ConsoleSettings:
    clusters: tuple[ClusterSettings, ...]
    listen: str = DEFAULT_LISTEN
    read_only: bool = False
    #: HTTP basic authentication (both or neither)
    username: str | None = None
    password: str | None = None
    #: seconds between two scrapes of the brokers' metrics endpoints (the charts' step)
    metrics_interval: float = 5.0

    def __post_init__(self) -> None:
        if not self.clusters:
            raise SettingsError("no clusters: give --cluster name=bootstrap or a config file")
        names = [c.name for c in self.clusters]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise SettingsError(f"cluster names given twice: {', '.join(twice)}")
        if (self.username is None) != (self.password is None):
            raise SettingsError("basic authentication needs both a username and a password")
        listen_address(self.listen)
        if not 0.5 <= self.metrics_interval <= 300:
            raise SettingsError(f"the metrics interval is from 0.5 to 300 seconds, not "
                                f"{self.metrics_interval}")

    def cluster(self, name: str) -> ClusterSettings | None:
        return next((c for c in self.clusters if c.name == name), None)


def listen_address(listen: str) -> tuple[str, int]:
    """``host:port`` as the pair a server binds."""
    host, sep, port = listen.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise SettingsError(f"--listen takes host:port, not {listen!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def parse_cluster(spec: str) -> ClusterSettings:
    """``name=host:port[,host:port...]`` from the command line."""
    name, sep, bootstrap = spec.partition("=")
    if not sep:
        raise SettingsError(f"--cluster takes name=bootstrap, not {spec!r}")
    return ClusterSettings(name.strip(), bootstrap.strip())


def _security(name: str, table: dict[str, Any]) -> ClientSecurity:
    known = {"protocol", "mechanism", "username", "password", "cafile", "properties"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise SettingsError(f"cluster {name}: unknown security settings {', '.join(unknown)}")
    try:
        return ClientSecurity(
            protocol=str(table.get("protocol", "PLAINTEXT")),
            mechanism=str(table.get("mechanism", "PLAIN")),
            username=table.get("username"), password=table.get("password"),
            cafile=table.get("cafile"),
            properties=tuple((str(k), str(v)) for k, v in table.get("properties", {}).items()))
    except ValueError as e:
        raise SettingsError(f"cluster {name}: {e}") from None


def load_file(path: Path) -> dict[str, Any]:
    """The settings of a TOML file, as keyword arguments of :class:`ConsoleSettings`."""
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SettingsError(f"{path}: {e}") from None
    unknown = sorted(set(data) - {"listen", "read_only", "auth", "clusters",
                                  "metrics_interval"})
    if unknown:
        raise SettingsError(f"{path}: unknown settings {', '.join(unknown)}")
    clusters = []
    for entry in data.get("clusters", []):
        if "name" not in entry or "bootstrap" not in entry:
            raise SettingsError(f"{path}: each [[clusters]] needs a name and a bootstrap")
        clusters.append(ClusterSettings(
            str(entry["name"]), str(entry["bootstrap"]),
            _security(str(entry["name"]), entry.get("security", {})),
            tuple(str(m) for m in entry.get("metrics", []))))
    out: dict[str, Any] = {"clusters": tuple(clusters)}
    if "listen" in data:
        out["listen"] = str(data["listen"])
    if "read_only" in data:
        out["read_only"] = bool(data["read_only"])
    if "metrics_interval" in data:
        out["metrics_interval"] = float(data["metrics_interval"])
    auth = data.get("auth", {})
    if auth:
        out["username"], out["password"] = auth.get("username"), auth.get("password")
    return out


def parse_metrics(spec: str) -> tuple[str, tuple[str, ...]]:
    """``name=url[,url...]`` from the command line: a cluster's brokers' Prometheus
    endpoints."""
    name, sep, urls = spec.partition("=")
    endpoints = tuple(u.strip() for u in urls.split(",") if u.strip())
    if not sep or not endpoints or not all(u.startswith(("http://", "https://"))
                                           for u in endpoints):
        raise SettingsError(f"--metrics takes name=http://host:port/metrics[,...], not {spec!r}")
    return name.strip(), endpoints


def settings_from(config: Path | None, clusters: list[str], listen: str | None,
                  read_only: bool, metrics: list[str] | None = None,
                  metrics_interval: float | None = None) -> ConsoleSettings:
    """The command line's settings over the file's: ``--cluster`` adds clusters,
    ``--metrics`` gives one its endpoints, ``--listen`` and ``--read-only`` win."""
    values: dict[str, Any] = load_file(config) if config is not None else {"clusters": ()}
    values["clusters"] = tuple(values["clusters"]) + tuple(parse_cluster(c) for c in clusters)
    for name, endpoints in (parse_metrics(m) for m in metrics or []):
        if name not in {c.name for c in values["clusters"]}:
            raise SettingsError(f"--metrics for {name}, which is no cluster")
        values["clusters"] = tuple(replace(c, metrics=c.metrics + endpoints)
                                   if c.name == name else c for c in values["clusters"])
    if listen is not None:
        values["listen"] = listen
    if read_only:
        values["read_only"] = True
    if metrics_interval is not None:
        values["metrics_interval"] = metrics_interval
    return ConsoleSettings(**values)
