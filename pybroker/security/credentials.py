"""Users' SCRAM credentials: the cache authentication reads, and Kafka's rules for
DescribeUserScramCredentials and AlterUserScramCredentials.

A user's credentials are a config entity as Kafka keeps them (``/config/users/<user>`` in
ZooKeeper): ``{"SCRAM-SHA-256": "salt=...,stored_key=...,server_key=...,iterations=4096"}``.
The functions here decide; whoever stores the entities (the znode tree: ZooKeeper, or the
embedded node's file) applies what they decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pybroker.security.scram import (
    BY_TYPE,
    MAX_ITERATIONS,
    MECHANISMS,
    ScramCredential,
    ScramMechanism,
    credential_from_salted_password,
)

# Kafka's error codes (protocol.errors values)
NONE, UNSUPPORTED_SASL_MECHANISM, RESOURCE_NOT_FOUND, DUPLICATE_RESOURCE = 0, 33, 91, 92
UNACCEPTABLE_CREDENTIAL = 93

USERNAME_MUST_NOT_BE_EMPTY = "Username must not be empty"
UNKNOWN_MECHANISM = "Unknown SCRAM mechanism"


class CredentialCache:
    """Every user's SCRAM credentials as this broker knows them (fed by the store)."""

    def __init__(self) -> None:
        self._users: dict[str, dict[str, str]] = {}

    def set_user(self, user: str, configs: Mapping[str, str]) -> None:
        """Replace a user's config entity (empty: the user has none)."""
        kept = {k: v for k, v in configs.items() if k in MECHANISMS}
        if kept:
            self._users[user] = kept
        else:
            self._users.pop(user, None)

    def user_configs(self, user: str) -> dict[str, str]:
        return dict(self._users.get(user, {}))

    def users(self) -> dict[str, dict[str, str]]:
        return {u: dict(c) for u, c in self._users.items()}

    def lookup(self, user: str, mechanism: ScramMechanism) -> ScramCredential | None:
        text = self._users.get(user, {}).get(mechanism.name)
        if text is None:
            return None
        try:
            return ScramCredential.from_config_string(text)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class UserResult:
    user: str
    error_code: int = NONE
    error_message: str | None = None
    #: (mechanism type, iterations) of each credential (DescribeUserScramCredentials)
    credentials: tuple[tuple[int, int], ...] = ()


def describe_credentials(users: Sequence[str] | None,
                         all_users: Mapping[str, Mapping[str, str]]) -> list[UserResult]:
    """Kafka's describeUserScramCredentials: every user with a credential, sorted, when no
    user is named; else one result per distinct user named, in the order named."""

    def credentials_of(configs: Mapping[str, str]) -> tuple[tuple[int, int], ...]:
        out = []
        for mechanism in MECHANISMS.values():
            text = configs.get(mechanism.name)
            if text is not None:
                out.append((mechanism.type_code,
                            ScramCredential.from_config_string(text).iterations))
        return tuple(out)

    if not users:
        return [UserResult(u, credentials=credentials_of(all_users[u]))
                for u in sorted(all_users) if credentials_of(all_users[u])]
    results: dict[str, UserResult] = {}
    duplicated = {u for u in users if users.count(u) > 1}
    for user in dict.fromkeys(users):
        if not user:
            results[user] = UserResult(user, RESOURCE_NOT_FOUND, USERNAME_MUST_NOT_BE_EMPTY)
        elif user in duplicated:
            results[user] = UserResult(
                user, DUPLICATE_RESOURCE,
                f"Cannot describe SCRAM credentials for the same user twice in a single "
                f"request: {user}")
        else:
            creds = credentials_of(all_users.get(user, {}))
            results[user] = (UserResult(user, credentials=creds) if creds else UserResult(
                user, RESOURCE_NOT_FOUND,
                f"Attempt to describe a user credential that does not exist: {user}"))
    return [results[u] for u in dict.fromkeys(users)]


@dataclass(frozen=True, slots=True)
class Upsertion:
    name: str
    mechanism: int
    iterations: int
    salt: bytes
    salted_password: bytes


@dataclass(frozen=True, slots=True)
class Deletion:
    name: str
    mechanism: int


@dataclass(slots=True)
class AlterationPlan:
    #: one result per user, in Kafka's order: refused users first, then the altered ones
    results: list[UserResult] = field(default_factory=list)
    #: each altered user's new config entity (empty: delete it)
    new_configs: dict[str, dict[str, str]] = field(default_factory=dict)


def plan_alterations(upsertions: Sequence[Upsertion], deletions: Sequence[Deletion],
                     current: Callable[[str], Mapping[str, str]]) -> AlterationPlan:
    """Kafka's alterUserScramCredentials: which users are refused and why, and the new config
    entity of each of the others. ``current``: a user's config entity now."""
    plan = AlterationPlan()
    refused: dict[str, str] = {}
    for d in deletions:
        if not d.name:
            refused[d.name] = USERNAME_MUST_NOT_BE_EMPTY
        elif d.mechanism not in BY_TYPE:
            refused[d.name] = UNKNOWN_MECHANISM
    for u in upsertions:
        if not u.name:
            refused[u.name] = USERNAME_MUST_NOT_BE_EMPTY
        elif u.mechanism not in BY_TYPE:
            refused[u.name] = UNKNOWN_MECHANISM
        elif u.iterations > MAX_ITERATIONS:
            refused[u.name] = "Too many iterations"
        elif u.iterations < BY_TYPE[u.mechanism].min_iterations:
            refused[u.name] = "Too few iterations"
    for user, message in refused.items():
        code = UNSUPPORTED_SASL_MECHANISM if message == UNKNOWN_MECHANISM \
            else UNACCEPTABLE_CREDENTIAL
        plan.results.append(UserResult(user, code, message))
    pairs = [(u.name, u.mechanism) for u in upsertions if u.name not in refused] + \
            [(d.name, d.mechanism) for d in deletions if d.name not in refused]
    duplicated = list(dict.fromkeys(p[0] for p in pairs if pairs.count(p) > 1))
    for user in duplicated:
        plan.results.append(UserResult(user, DUPLICATE_RESOURCE,
                                       "A user credential cannot be altered twice in the same "
                                       "request"))
    candidates = list(dict.fromkeys(p[0] for p in pairs if p[0] not in duplicated))
    configs = {user: dict(current(user)) for user in candidates}
    missing = list(dict.fromkeys(
        d.name for d in deletions
        if d.name in configs and BY_TYPE[d.mechanism].name not in configs[d.name]))
    for user in missing:
        plan.results.append(UserResult(user, RESOURCE_NOT_FOUND,
                                       "Attempt to delete a user credential that does not "
                                       "exist"))
    for user in (u for u in candidates if u not in missing):
        entity = configs[user]
        for d in deletions:
            if d.name == user:
                entity.pop(BY_TYPE[d.mechanism].name, None)
        for u in upsertions:
            if u.name == user:
                mechanism = BY_TYPE[u.mechanism]
                entity[mechanism.name] = credential_from_salted_password(
                    mechanism, u.salt, u.salted_password, u.iterations).to_config_string()
        plan.new_configs[user] = entity
        plan.results.append(UserResult(user))
    return plan
