"""Scenarios of a secured broker: SASL/PLAIN and SASL/SCRAM logins, and ACLs.

They need the run's credentials (``--security-protocol SASL_PLAINTEXT|SASL_SSL
--sasl-username U --sasl-password P``) and are skipped, saying so, without them. Each SASL
scenario logs in with those credentials through its own mechanism, so the user needs a
credential for each mechanism tested (Kafka keeps PLAIN users in the listener's JAAS settings
and SCRAM credentials in ZooKeeper). What the broker's SaslHandshake does not list is *not
offered*; so are ACLs when the broker answers SECURITY_DISABLED (no authorizer).
"""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode
from pybroker.compat.scenario import Context, scenario
from pybroker.compat.security import (
    AuthenticationError,
    ClientSecurity,
    authenticate as sasl_authenticate,
    sasl_handshake,
)
from pybroker.compat.wire import WireConnection

SCRAM = ("SCRAM-SHA-256", "SCRAM-SHA-512")
#: the capabilities of this module: they need a broker with SASL users and an authorizer
SECURED_CAPABILITIES = ("sasl-plain", "sasl-scram", "acls")


def _need_credentials(ctx: Context) -> None:
    if not ctx.security.sasl:
        ctx.skip("no credentials given (the run is not over SASL: "
                 "--security-protocol SASL_PLAINTEXT or SASL_SSL)")
    if not ctx.security.credentials:
        ctx.skip("no credentials given (--sasl-username, --sasl-password)")


def _offered(ctx: Context) -> list[str]:
    """The mechanisms the broker's SaslHandshake lists (asked for the run's own mechanism)."""
    with WireConnection(ctx.bootstrap, timeout=max(1.0, min(10.0, ctx.remaining() - 1)),
                        security=ctx.security, authenticate=False) as conn:
        code, offered = sasl_handshake(conn.call, ctx.security.mechanism)
    ctx.evidence("SaslHandshake", {"error": ErrorCode(code).name, "mechanisms": offered})
    return offered


def _wrong_password_refused(ctx: Context, login: ClientSecurity) -> None:
    """A login with a wrong password gets SASL_AUTHENTICATION_FAILED."""
    wrong = login.with_sasl(password=(login.password or "") + "-wrong")
    with WireConnection(ctx.bootstrap, timeout=max(1.0, min(10.0, ctx.remaining() - 1)),
                        security=wrong, authenticate=False) as conn:
        try:
            sasl_authenticate(conn.call, wrong)
        except AuthenticationError as e:
            ctx.evidence("wrong password", str(e))
            ctx.check(e.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED,
                      f"a wrong password got {ErrorCode(e.error_code).name}, not "
                      "SASL_AUTHENTICATION_FAILED", transcript=conn.transcript)
            return
        ctx.fail(f"a wrong password was accepted ({login.mechanism})",
                 transcript=conn.transcript)


def _round_trip(ctx: Context, login: ClientSecurity) -> None:
    """kafka-python, logged in with ``login``, produces records and fetches them back."""
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    topic = ctx.create_topic()
    sent = [(f"k{i}".encode(), f"{login.mechanism} record {i}".encode()) for i in range(10)]
    producer = KafkaProducer(**ctx.kafka_python(login), acks="all")
    try:
        futures = [producer.send(topic, key=k, value=v) for k, v in sent]
        producer.flush(timeout=ctx.remaining())
        offsets = [f.get(timeout=ctx.remaining()).offset for f in futures]
    finally:
        producer.close(timeout=5)
    ctx.evidence("produced offsets", offsets)
    consumer = KafkaConsumer(**ctx.kafka_python(login), enable_auto_commit=False)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got: list[Any] = []

        def read() -> bool:
            for batch in consumer.poll(timeout_ms=300).values():
                got.extend(batch)
            return len(got) >= len(sent)

        ctx.wait_until(read, f"fetching {len(sent)} records as {login.username}")
    finally:
        consumer.close()
    back = [(r.key, r.value) for r in got[:len(sent)]]
    ctx.check(back == sent, "the records fetched differ from those produced", sent=sent,
              got=back)


def _sasl(ctx: Context, mechanisms: tuple[str, ...]) -> None:
    _need_credentials(ctx)
    offered = _offered(ctx)
    ctx.evidence("mechanisms offered", offered)
    usable = [m for m in mechanisms if m in offered]
    if not usable:
        ctx.not_offered(f"SaslHandshake lists {', '.join(offered) or 'no mechanism'}, not "
                        + " or ".join(mechanisms))
    # the run's own mechanism when it is one of these, else the first offered
    mechanism = ctx.security.mechanism if ctx.security.mechanism in usable else usable[0]
    login = ctx.security.with_sasl(mechanism=mechanism)
    ctx.log(f"logging in as {login.username} with {mechanism}")
    _round_trip(ctx, login)
    _wrong_password_refused(ctx, login)


@scenario("sasl-plain", client="kafka-python", timeout=40)
def sasl_plain(ctx: Context) -> None:
    """Logged in with SASL/PLAIN, a client produces and fetches; a wrong password is refused
    with SASL_AUTHENTICATION_FAILED."""
    _sasl(ctx, ("PLAIN",))


@scenario("sasl-scram", client="kafka-python", timeout=40)
def sasl_scram(ctx: Context) -> None:
    """Logged in with SASL/SCRAM (the run's SCRAM mechanism, else SHA-256, else SHA-512), a
    client produces and fetches; a wrong password is refused with SASL_AUTHENTICATION_FAILED."""
    _sasl(ctx, SCRAM)


def principal(security: ClientSecurity) -> str:
    """The principal a broker's default builder gives the run's clients: the SASL user, else
    ANONYMOUS (a plaintext client, or a TLS client without a certificate) (pure)."""
    if security.sasl and security.username is not None:
        return f"User:{security.username}"
    return "User:ANONYMOUS"


@scenario("acls", client="confluent-kafka", timeout=60)
def acls(ctx: Context) -> None:
    """ACLs on resources of this run are created, described and deleted with the admin
    client; a topic whose ACL denies writes to the client's own principal refuses its records
    with TOPIC_AUTHORIZATION_FAILED."""
    from confluent_kafka import KafkaError, Producer
    from confluent_kafka.admin import (
        AclBinding,
        AclBindingFilter,
        AclOperation,
        AclPermissionType,
        AdminClient,
        ResourcePatternType,
        ResourceType,
    )

    _authorizer_or_not_offered(ctx)
    admin = AdminClient({**ctx.confluent(), "client.id": "pybroker-compat"})
    timeout = max(1.0, min(15.0, ctx.remaining() - 2))
    anyone: Any = None  # a filter's principal and host: any
    me = principal(ctx.security)
    ctx.evidence("principal", me)
    denied = ctx.create_topic("denied")
    group = ctx.group()
    bindings = [
        AclBinding(ResourceType.TOPIC, denied, ResourcePatternType.LITERAL, me, "*",
                   AclOperation.WRITE, AclPermissionType.DENY),
        AclBinding(ResourceType.GROUP, group, ResourcePatternType.PREFIXED, me, "*",
                   AclOperation.READ, AclPermissionType.ALLOW),
    ]
    # exactly these two resources: deleting through them touches no other ACL
    mine = [AclBindingFilter(b.restype, b.name, b.resource_pattern_type, anyone, anyone,
                             AclOperation.ANY, AclPermissionType.ANY) for b in bindings]
    try:
        for future in admin.create_acls(bindings, request_timeout=timeout).values():
            future.result(timeout=timeout)

        def described() -> list[Any]:
            found: list[Any] = []
            for f in mine:
                found += admin.describe_acls(f, request_timeout=timeout).result(timeout=timeout)
            return found

        def listed() -> list[Any] | None:
            found = described()
            return found if sorted(map(str, found)) == sorted(map(str, bindings)) else None

        found = ctx.wait_until(listed, "DescribeAcls listing the two ACLs created", timeout=15)
        ctx.evidence("described", [str(b) for b in found])
        _denied(ctx, denied, Producer, KafkaError)
        deleted: list[Any] = []
        for future in admin.delete_acls(mine, request_timeout=timeout).values():
            deleted += future.result(timeout=timeout)
        ctx.check(sorted(map(str, deleted)) == sorted(map(str, bindings)),
                  "DeleteAcls did not delete exactly the ACLs created",
                  deleted=[str(b) for b in deleted])
        ctx.wait_until(lambda: described() == [], "DescribeAcls listing none after DeleteAcls",
                       timeout=15)
    finally:
        for future in admin.delete_acls(mine, request_timeout=timeout).values():
            future.result(timeout=timeout)


def _authorizer_or_not_offered(ctx: Context) -> None:
    """DescribeAcls (v1, of this run's prefixed patterns) over the protocol: SECURITY_DISABLED
    means the broker has no authorizer, so ACLs are not offered."""
    from protocol.messages import ApiKey, describe_acls_request

    with WireConnection(ctx.bootstrap, timeout=max(1.0, min(10.0, ctx.remaining() - 1)),
                        security=ctx.security) as conn:
        answer = conn.call(ApiKey.DESCRIBE_ACLS, 1, describe_acls_request.DescribeAclsRequest(
            resource_type_filter=1, resource_name_filter=ctx.prefix, pattern_type_filter=4,
            principal_filter=None, host_filter=None, operation=1, permission_type=1))
    if answer.error_code == ErrorCode.SECURITY_DISABLED:
        ctx.not_offered("DescribeAcls answered SECURITY_DISABLED (no authorizer)")
    ctx.check(answer.error_code == ErrorCode.NONE,
              f"DescribeAcls answered {ErrorCode(answer.error_code).name}",
              transcript=conn.transcript)


def _denied(ctx: Context, topic: str, producer_class: Any, error_class: Any) -> None:
    """A record to ``topic`` (its ACL denies WRITE to us) fails with
    TOPIC_AUTHORIZATION_FAILED."""
    def refused() -> Any:
        errors: list[Any] = []
        producer = producer_class({**ctx.confluent(), "client.id": "pybroker-compat",
                                   "message.timeout.ms": 5000, "retries": 0})
        producer.produce(topic, b"must be refused",
                         on_delivery=lambda err, _msg: errors.append(err))
        producer.flush(10)
        ctx.evidence("delivery", [str(e) for e in errors])
        return [e.code() for e in errors if e is not None] == [
            error_class.TOPIC_AUTHORIZATION_FAILED]

    ctx.wait_until(refused, "a record to a topic whose ACL denies WRITE refused with "
                   "TOPIC_AUTHORIZATION_FAILED (a super user is never denied)", timeout=25,
                   interval=0.5)
