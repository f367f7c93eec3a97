"""Kafka's JAAS configuration text, as ``sasl.jaas.config`` properties carry it.

``org.apache.kafka.common.security.plain.PlainLoginModule required username="admin"
password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";``: one or more
login modules, each a class name, a control flag and ``key=value`` options (values quoted or
bare), ended by a semicolon. PLAIN's users are its ``user_<name>`` options; ``username`` and
``password`` are what this broker logs in with to other brokers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
FLAGS = ("required", "requisite", "sufficient", "optional")

_TOKEN = re.compile(r'\s*(?:(?P<semi>;)|"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<eq>=)'
                    r'|(?P<word>[^\s=;"]+))', re.DOTALL)


@dataclass(frozen=True, slots=True)
class LoginModule:
    class_name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


class JaasConfigError(ValueError):
    pass


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise JaasConfigError(f"cannot parse JAAS configuration near {text[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        assert kind is not None
        value = m.group(kind)
        if kind == "quoted":
            value = re.sub(r"\\(.)", r"\1", value)
        out.append((kind, value))
    return out


def parse_jaas_config(text: str) -> list[LoginModule]:
    """The login modules of a ``sasl.jaas.config`` value (JaasConfigError when it is not one)."""
    tokens = _tokens(text)
    modules: list[LoginModule] = []
    i = 0
    while i < len(tokens):
        if tokens[i][0] != "word" or i + 1 >= len(tokens) or tokens[i + 1][0] != "word":
            raise JaasConfigError("expected a login module class name and a control flag")
        class_name, flag = tokens[i][1], tokens[i + 1][1].lower()
        if flag not in FLAGS:
            raise JaasConfigError(f"invalid control flag {tokens[i + 1][1]!r} for {class_name}")
        i += 2
        options: dict[str, str] = {}
        while i < len(tokens) and tokens[i][0] != "semi":
            if (i + 2 >= len(tokens) or tokens[i][0] != "word" or tokens[i + 1][0] != "eq"
                    or tokens[i + 2][0] not in ("word", "quoted")):
                raise JaasConfigError(f"expected key=value options for {class_name}")
            options[tokens[i][1]] = tokens[i + 2][1]
            i += 3
        if i >= len(tokens):
            raise JaasConfigError(f"the options of {class_name} do not end with ';'")
        i += 1
        modules.append(LoginModule(class_name, flag, options))
    if not modules:
        raise JaasConfigError("no login module in the JAAS configuration")
    return modules


def plain_users(modules: list[LoginModule]) -> dict[str, str]:
    """PLAIN's users and passwords: the ``user_<name>`` options of ``PlainLoginModule``."""
    users: dict[str, str] = {}
    for module in modules:
        if module.class_name == PLAIN_LOGIN_MODULE:
            for key, value in module.options.items():
                if key.startswith("user_") and len(key) > len("user_"):
                    users[key[len("user_"):]] = value
    return users


def login_credentials(modules: list[LoginModule]) -> tuple[str, str] | None:
    """The ``username`` and ``password`` this side logs in with, when the first module has them."""
    for module in modules:
        username, password = module.options.get("username"), module.options.get("password")
        if username is not None and password is not None:
            return username, password
    return None
