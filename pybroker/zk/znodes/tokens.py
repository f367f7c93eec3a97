"""The delegation token znodes of ``kafka.zk.ZkData``: ``/delegation_token/tokens/<token id>``
with a token's information (never its HMAC: every broker derives it from the secret key), and
the ``/delegation_token/token_changes/token_change_<seq>`` notifications naming a token that
was created, renewed, expired or removed."""

from __future__ import annotations

from pybroker.security.delegation_tokens import TokenInformation
from pybroker.security.principal import KafkaPrincipal
from pybroker.zk.znodes.codec import ZNodeDecodeError, _dumps, _field, _int, _object
from pybroker.zk.znodes.configs import desanitize, sanitize


class DelegationTokenAuthZNode:
    PATH = "/delegation_token"


class DelegationTokenChangeNotificationZNode:
    PATH = f"{DelegationTokenAuthZNode.PATH}/token_changes"
    SEQUENCE_PREFIX = "token_change_"

    @staticmethod
    def path(name: str) -> str:
        return f"{DelegationTokenChangeNotificationZNode.PATH}/{name}"

    @staticmethod
    def encode(token_id: str) -> bytes:
        return token_id.encode()

    @staticmethod
    def decode(data: bytes | None) -> str:
        return (data or b"").decode("utf-8", errors="replace")


def _principal(text: str, what: str) -> KafkaPrincipal:
    try:
        return KafkaPrincipal.parse(desanitize(text))
    except ValueError as e:
        raise ZNodeDecodeError(f"{what}: {e}") from e


class DelegationTokenInfoZNode:
    """``{"owner":"User%3Aalice","renewers":[...],"tokenRequester":...,"expiryTimestamp":..,
    "maxTimestamp":..,"issueTimestamp":..,"tokenId":..,"version":3}``: the principals written
    as ``Type:name``, sanitized as Kafka's ``Sanitizer`` does (``DelegationTokenManagerZk``);
    version 1 and 2 have no requester (it is the owner)."""

    TOKENS = f"{DelegationTokenAuthZNode.PATH}/tokens"
    VERSION = 3

    @staticmethod
    def path(token_id: str) -> str:
        return f"{DelegationTokenInfoZNode.TOKENS}/{token_id}"

    @staticmethod
    def encode(token: TokenInformation) -> bytes:
        return _dumps({
            "owner": sanitize(str(token.owner)),
            "renewers": [sanitize(str(r)) for r in token.renewers],
            "tokenRequester": sanitize(str(token.token_requester)),
            "expiryTimestamp": token.expiry_timestamp,
            "maxTimestamp": token.max_timestamp,
            "issueTimestamp": token.issue_timestamp,
            "tokenId": token.token_id,
            "version": DelegationTokenInfoZNode.VERSION,
        })

    @staticmethod
    def decode(data: bytes | None) -> TokenInformation | None:
        """None for an empty znode, as Kafka reads one."""
        what = "delegation token"
        obj = _object(data, what)
        if obj is None:
            return None
        version = _int(obj, "version", what)
        if not 0 < version <= DelegationTokenInfoZNode.VERSION:
            raise ZNodeDecodeError(f"{what}: version {version}")
        owner = _principal(_field(obj, "owner", str, what), what)
        requester = owner if version < 3 else \
            _principal(_field(obj, "tokenRequester", str, what), what)
        renewers = _field(obj, "renewers", list, what)
        if not all(isinstance(r, str) for r in renewers):
            raise ZNodeDecodeError(f"{what}: renewers {renewers!r}")
        return TokenInformation(
            _field(obj, "tokenId", str, what), owner, requester,
            tuple(_principal(r, what) for r in renewers),
            _int(obj, "issueTimestamp", what), _int(obj, "maxTimestamp", what),
            _int(obj, "expiryTimestamp", what))
