"""The pure parts of the ZooKeeper layer: connect strings, error mapping, and who owns an
ephemeral znode a broker finds in its way."""

from __future__ import annotations

from kazoo import exceptions as kx  # type: ignore[import-untyped]

from pybroker.zk.client import (
    BadVersionError,
    ConnectionLossError,
    NodeExistsError,
    NoNodeError,
    NotEmptyError,
    SessionExpiredError,
    ZkError,
    map_error,
    split_connect_string,
)
from pybroker.zk.kafka_zk_brokers import EphemeralOwner, ephemeral_owner


def test_connect_strings() -> None:
    assert split_connect_string("127.0.0.1:2181") == ("127.0.0.1:2181", None)
    assert split_connect_string("a:1,b:2/pybroker") == ("a:1,b:2", "/pybroker")
    assert split_connect_string("a:1/kafka/x/") == ("a:1", "/kafka/x")
    assert split_connect_string("a:1/") == ("a:1", None)


def test_errors_map_to_one_family() -> None:
    cases = [(kx.NoNodeError(), NoNodeError), (kx.NodeExistsError(), NodeExistsError),
             (kx.BadVersionError(), BadVersionError), (kx.NotEmptyError(), NotEmptyError),
             (kx.ConnectionLoss(), ConnectionLossError),
             (kx.SessionExpiredError(), SessionExpiredError),
             (kx.ConnectionClosedError(), SessionExpiredError),
             (kx.NoAuthError(), ZkError)]
    for raised, expected in cases:
        err = map_error(raised, "/p")
        assert type(err) is expected, raised
        assert err.path == "/p" and err.__cause__ is raised


def test_an_existing_registration_of_this_session_is_ours() -> None:
    # a retried create that had succeeded
    assert ephemeral_owner(owner=5, registered_session=5, current_session=5) is EphemeralOwner.OURS
    assert ephemeral_owner(owner=5, registered_session=None,
                           current_session=5) is EphemeralOwner.OURS


def test_a_registration_left_by_our_previous_session_is_recreated() -> None:
    assert ephemeral_owner(owner=5, registered_session=5,
                           current_session=9) is EphemeralOwner.PREVIOUS_SESSION


def test_a_registration_of_any_other_session_means_the_id_is_taken() -> None:
    assert ephemeral_owner(owner=7, registered_session=5,
                           current_session=9) is EphemeralOwner.OTHER
    assert ephemeral_owner(owner=7, registered_session=None,
                           current_session=9) is EphemeralOwner.OTHER
