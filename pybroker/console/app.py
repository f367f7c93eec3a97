"""The console's web application (Flask): the pages, and the JSON API behind them.

Pages and API share their data (:class:`~pybroker.console.cluster.ClusterClient`); each page is
a plain URL that can be bookmarked, lists take ``?page=``, ``?sort=`` (``-column`` descending)
and ``?q=`` (a substring of the name), and are paged on the server. The API answers lists as
JSON arrays with the total in ``X-Total-Count``, and errors as ``{"error": <Kafka's error
name>, "message": ..., "code": ...}`` with HTTP 502 (the cluster refused) or 404.

Safety: every page and API call passes HTTP basic authentication when the settings name a user;
actions are POSTs that carry the session's CSRF token, and a read-only console serves none.
"""

from __future__ import annotations

import hmac
import math
import secrets
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlencode

from flask import (
    Flask,
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
)
from werkzeug.wrappers.response import Response as BaseResponse

from pybroker.console import charts, messages, reassign, security
from pybroker.console.cluster import ClusterClient, Page
from pybroker.console.errors import KafkaCallError
from pybroker.console.settings import ConsoleSettings

PAGE_SIZE = 50
MAX_PAGE_SIZE = 1000


def create_app(settings: ConsoleSettings) -> Flask:
    app = Flask(__name__)
    # sessions hold only the CSRF token: a key of this process's own is enough
    app.secret_key = secrets.token_bytes(32)
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict")
    clients = {c.name: ClusterClient(c) for c in settings.clusters}
    app.extensions["pybroker-console"] = clients
    sampler = charts.Sampler({c.name: c.metrics for c in settings.clusters},
                             settings.metrics_interval).start()
    app.extensions["pybroker-console-sampler"] = sampler

    def client(name: str) -> ClusterClient:
        found = clients.get(name)
        if found is None:
            abort(404, f"no cluster named {name!r}")
        return found

    def rates_of(name: str) -> dict[str, float] | None:
        """Messages in per second of each topic, when the cluster's metrics are scraped."""
        return sampler.topic_rates(name) if client(name).settings.metrics else None

    def page_of(default_sort: str = "name") -> Page:
        try:
            number = max(1, int(request.args.get("page", 1)))
            size = min(MAX_PAGE_SIZE, max(1, int(request.args.get("size", PAGE_SIZE))))
        except ValueError:
            abort(400, "page and size are numbers")
        return Page(offset=(number - 1) * size, limit=size,
                    sort=request.args.get("sort", default_sort) or default_sort,
                    search=request.args.get("q", ""))

    @app.before_request
    def authenticate() -> Response | None:
        if settings.username is None or request.path == "/api/health":
            return None  # (the health check says only that the console is up)
        auth = request.authorization
        if (auth is not None and auth.type == "basic"
                and hmac.compare_digest(auth.username or "", settings.username)
                and hmac.compare_digest(auth.password or "", settings.password or "")):
            return None
        return Response("authentication required\n", 401,
                        {"WWW-Authenticate": 'Basic realm="pybroker console"'})

    @app.before_request
    def check_csrf() -> None:
        if request.method != "POST":
            return
        if settings.read_only:
            abort(403, "this console is read-only")
        sent = request.form.get("csrf_token") or request.headers.get("X-CSRF-Token", "")
        if not sent or not hmac.compare_digest(sent, session.get("csrf_token", "")):
            abort(400, "the form's CSRF token is missing or stale: reload the page")

    def csrf_token() -> str:
        if "csrf_token" not in session:
            session["csrf_token"] = secrets.token_urlsafe(32)
        return str(session["csrf_token"])

    @app.context_processor
    def common() -> dict[str, Any]:
        return {"clusters": settings.clusters, "read_only": settings.read_only,
                "charted": lambda name: bool(clients[name].settings.metrics)
                if name in clients else False, "metrics_interval": settings.metrics_interval,
                "csrf_token": csrf_token, "size": _size, "with_args": _with_args}

    def page(template: str, **values: Any) -> str:
        return render_template(template, **values)

    @app.errorhandler(KafkaCallError)
    def refused(e: KafkaCallError) -> tuple[Any, int]:
        """Any page or API call the cluster refused: Kafka's error as Kafka gives it, as JSON
        for the API and as the error page (in its cluster's frame) for a page."""
        if request.path.startswith("/api/"):
            return jsonify(e.to_json()), _status(e)
        cluster = (request.view_args or {}).get("name")
        return render_template("error.html", error=e, cluster=cluster), _status(e)

    # -- pages ----------------------------------------------------------------------------

    @app.get("/")
    def index() -> Response:
        return redirect("/clusters")  # type: ignore[return-value]

    @app.get("/clusters")
    def clusters_page() -> str:
        return page("clusters.html")

    @app.get("/clusters/<name>")
    def overview_page(name: str) -> str:
        return page("overview.html", cluster=name, overview=client(name).overview())

    @app.get("/clusters/<name>/topics")
    def topics_page(name: str) -> str:
        p = page_of()
        total, rows = client(name).topics(p, rates_of(name))
        return page("topics.html", cluster=name, topics=rows, total=total,
                    paging=_paging(p, total), default_sort="name")

    @app.get("/clusters/<name>/topics/<topic>")
    def topic_page(name: str, topic: str) -> str:
        return page("topic.html", cluster=name, topic=client(name).topic(topic))

    def browse_of() -> messages.Browse:
        """A browse from the query: partition, offset or timestamp, order, format, q, limit."""
        args = request.args
        try:
            return messages.Browse(
                partition=_number(args, "partition", optional=True) or 0,
                offset=_number(args, "offset", optional=True),
                timestamp=messages.parse_timestamp(args["timestamp"])
                if args.get("timestamp", "").strip() else None,
                order=args.get("order", "newest") or "newest",
                fmt=args.get("format", "text") or "text", search=args.get("q", ""),
                limit=_number(args, "limit", optional=True) or PAGE_SIZE)
        except ValueError as e:
            abort(400, str(e))

    @app.get("/clusters/<name>/topics/<topic>/messages")
    def messages_page(name: str, topic: str) -> str:
        b = browse_of()
        found = client(name).messages(topic, b)
        return page("messages.html", cluster=name, topic=topic, browse=b, found=found,
                    timestamp=request.args.get("timestamp", ""))

    @app.get("/clusters/<name>/reassignments")
    def reassignments_page(name: str) -> str:
        """The reassignments in progress, and the tool's three steps: generate a plan for
        ``?topics=`` over ``?brokers=`` (all when empty), execute it, verify it."""
        c = client(name)
        topics = [t.strip() for t in request.args.get("topics", "").split(",") if t.strip()]
        brokers_text = request.args.get("brokers", "").strip()
        rack_aware = request.args.get("disable_rack_aware") != "on"
        generated, problem = None, None
        ongoing, known = c.reassignments(), c.brokers()
        if topics:
            try:
                brokers = [int(b) for b in brokers_text.split(",") if b.strip()] \
                    if brokers_text else None
            except ValueError:
                abort(400, f"brokers are ids separated by commas, not {brokers_text!r}")
            try:
                generated = c.generate_reassignment(topics, brokers, rack_aware)
            except reassign.PlanError as e:
                problem = str(e)
        return page("reassignments.html", cluster=name, ongoing=ongoing, brokers=known,
                    topics=",".join(topics), brokers_text=brokers_text, rack_aware=rack_aware,
                    generated=generated, problem=problem)

    @app.get("/clusters/<name>/acls")
    def acls_page(name: str) -> str:
        search = request.args.get("q", "").strip().lower()
        found = client(name).acls()
        shown = [a for a in found["acls"] if not search
                 or search in a["principal"].lower() or search in a["name"].lower()]
        return page("acls.html", cluster=name, found=found, acls=shown, search=search,
                    choices=ACL_CHOICES)

    @app.get("/clusters/<name>/users")
    def users_page(name: str) -> str:
        found = client(name).users()
        return page("users.html", cluster=name, users=found, mechanisms=security.MECHANISMS)

    @app.get("/clusters/<name>/groups")
    def groups_page(name: str) -> str:
        p = page_of("group_id")
        total, rows = client(name).groups(p)
        return page("groups.html", cluster=name, groups=rows, total=total,
                    paging=_paging(p, total), default_sort="group_id")

    @app.get("/clusters/<name>/groups/<path:group_id>")
    def group_page(name: str, group_id: str) -> str:
        return page("group.html", cluster=name, group=client(name).group(group_id))

    # -- actions: a form's POST shows what it will do; the confirmation's POST does it ----

    @app.post("/clusters/<name>/actions/<action>")
    def action(name: str, action: str) -> BaseResponse | str | tuple[str, int]:
        c = client(name)
        if action not in ACTIONS:
            abort(404, f"no action {action!r}")
        form = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
        try:
            what, run = ACTIONS[action](c, form)
        except ValueError as e:
            abort(400, str(e))
        if request.form.get("confirm") != "yes":
            return page("confirm.html", cluster=name, action=action, what=what, form=form)
        try:
            outcome = run()
        except KafkaCallError as e:
            return render_template("error.html", error=e, cluster=name, what=what), _status(e)
        except ValueError as e:  # what the cluster lacks, found when checked (a plan's brokers)
            abort(400, str(e))
        if isinstance(outcome, list):  # per-partition outcomes, shown on a page of their own
            outcome = {"rows": outcome}
        if isinstance(outcome, dict):
            return page("outcome.html", cluster=name, what=what, action=action, **outcome)
        flash(f"Done: {what}")
        return redirect(outcome or f"/clusters/{name}")

    # -- the JSON API ---------------------------------------------------------------------

    def api(call: Callable[[], Any]) -> Response | tuple[Response, int]:
        result = call()  # (a refusal: the KafkaCallError handler answers)
        if isinstance(result, tuple):  # (total, rows) of a list
            total, rows = result
            response = jsonify(rows)
            response.headers["X-Total-Count"] = str(total)
            return response
        return jsonify(result)

    @app.get("/api/clusters")
    def api_clusters() -> Response | tuple[Response, int]:
        return api(lambda: [c.public() for c in settings.clusters])

    @app.get("/api/clusters/<name>")
    def api_overview(name: str) -> Response | tuple[Response, int]:
        return api(client(name).overview)

    @app.get("/api/clusters/<name>/brokers")
    def api_brokers(name: str) -> Response | tuple[Response, int]:
        return api(lambda: client(name).overview()["brokers"])

    @app.get("/api/clusters/<name>/topics")
    def api_topics(name: str) -> Response | tuple[Response, int]:
        p = page_of()
        return api(lambda: client(name).topics(p, rates_of(name)))

    @app.get("/api/clusters/<name>/topics/<topic>")
    def api_topic(name: str, topic: str) -> Response | tuple[Response, int]:
        return api(lambda: client(name).topic(topic))

    @app.get("/api/clusters/<name>/topics/<topic>/messages")
    def api_messages(name: str, topic: str) -> Response | tuple[Response, int]:
        b = browse_of()
        return api(lambda: client(name).messages(topic, b))

    @app.get("/api/clusters/<name>/reassignments")
    def api_reassignments(name: str) -> Response | tuple[Response, int]:
        return api(client(name).reassignments)

    @app.get("/api/clusters/<name>/acls")
    def api_acls(name: str) -> Response | tuple[Response, int]:
        return api(client(name).acls)

    @app.get("/api/clusters/<name>/users")
    def api_users(name: str) -> Response | tuple[Response, int]:
        return api(client(name).users)

    @app.get("/api/clusters/<name>/groups")
    def api_groups(name: str) -> Response | tuple[Response, int]:
        p = page_of("group_id")
        return api(lambda: client(name).groups(p))

    @app.get("/api/clusters/<name>/groups/<path:group_id>")
    def api_group(name: str, group_id: str) -> Response | tuple[Response, int]:
        return api(lambda: client(name).group(group_id))

    @app.get("/api/clusters/<name>/charts")
    def api_charts(name: str) -> Response | tuple[Response, int]:
        client(name)
        return api(lambda: sampler.series(name))

    @app.get("/api/clusters/<name>/topics/<topic>/charts")
    def api_topic_charts(name: str, topic: str) -> Response | tuple[Response, int]:
        client(name)
        return api(lambda: sampler.series(name, topic))

    @app.get("/api/health")
    def health() -> Response:
        return jsonify({"status": "ok", "clusters": [c.name for c in settings.clusters]})

    @app.errorhandler(400)
    @app.errorhandler(403)
    @app.errorhandler(404)
    def http_error(e: Any) -> tuple[Any, int]:
        if request.path.startswith("/api/"):
            return jsonify({"error": e.name, "message": e.description}), e.code
        return render_template("error.html", error=None, http=e), e.code

    return app


def _number(form: Mapping[str, str], key: str, *, optional: bool = False) -> int | None:
    text = form.get(key, "").strip()
    if not text and optional:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{key} must be a whole number, not {text!r}") from None


def _required(form: dict[str, str], key: str) -> str:
    text = form.get(key, "").strip()
    if not text:
        raise ValueError(f"{key} is required")
    return text


def _configs(text: str) -> dict[str, str]:
    """``key=value`` lines (kafka-topics --config)."""
    out = {}
    for line in text.splitlines():
        if line.strip():
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"a config is key=value, not {line.strip()!r}")
            out[key.strip()] = value.strip()
    return out


Action = Callable[[ClusterClient, dict[str, str]], tuple[str, Callable[[], Any]]]


def _create_topic(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic = _required(form, "topic")
    partitions = _number(form, "partitions", optional=True)
    rf = _number(form, "replication_factor", optional=True)
    configs = _configs(form.get("configs", ""))
    what = (f"create topic {topic} with {partitions or 'the default number of'} partition(s) "
            f"at replication factor {rf or 'the default'}"
            + (f", configs {', '.join(f'{k}={v}' for k, v in configs.items())}"
               if configs else ""))

    def run() -> str:
        c.create_topic(topic, partitions, rf, configs)
        return f"/clusters/{c.settings.name}/topics/{topic}"
    return what, run


def _delete_topic(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic = _required(form, "topic")

    def run() -> str:
        c.delete_topic(topic)
        return f"/clusters/{c.settings.name}/topics"
    return f"delete topic {topic} and all its data", run


def _add_partitions(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic = _required(form, "topic")
    total = _number(form, "partitions")
    assert total is not None

    def run() -> str:
        c.add_partitions(topic, total)
        return f"/clusters/{c.settings.name}/topics/{topic}"
    return f"give topic {topic} {total} partitions in all", run


def _alter_config(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic, name = _required(form, "topic"), _required(form, "config")
    delete = form.get("operation") == "delete"
    value = None if delete else form.get("value", "")

    def run() -> str:
        c.alter_topic_config(topic, name, value)
        return f"/clusters/{c.settings.name}/topics/{topic}#configs"
    what = (f"remove the override of {name} on topic {topic}" if delete
            else f"set {name}={value} on topic {topic}")
    return what, run


def _elect_leaders(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic = form.get("topic", "").strip() or None
    what = (f"elect the preferred leaders of topic {topic}" if topic
            else "elect the preferred leaders of every partition")
    return what, lambda: c.elect_preferred_leaders(topic)


def _reset_offsets(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    group, to = _required(form, "group"), _required(form, "to")
    if to not in ("earliest", "latest", "timestamp", "offset"):
        raise ValueError(f"reset to earliest, latest, timestamp or offset, not {to!r}")
    value = _number(form, "value") if to in ("timestamp", "offset") else None
    topic = form.get("topic", "").strip() or None
    target = {"earliest": "the earliest offsets", "latest": "the latest offsets",
              "timestamp": f"the first offsets at or after timestamp {value}",
              "offset": f"offset {value}"}[to]
    what = (f"reset the offsets of group {group} on "
            f"{'topic ' + topic if topic else 'every partition it committed'} to {target}")

    def run() -> str:
        c.reset_offsets(group, to, value, topic)
        return f"/clusters/{c.settings.name}/groups/{quote(group, safe='')}"
    return what, run


def _produce(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    topic = _required(form, "topic")
    partition = _number(form, "partition", optional=True)
    key = form.get("key", "") or None
    value = form.get("value", "")
    headers = list(_configs(form.get("headers", "")).items())
    what = (f"produce a record to topic {topic}"
            + (f" partition {partition}" if partition is not None else "")
            + (f" with key {key!r}" if key is not None else "")
            + f", value of {len(value.encode())} byte(s)"
            + (f", headers {', '.join(k for k, _ in headers)}" if headers else ""))

    def run() -> str:
        at = c.produce(topic, value=value, key=key, partition=partition, headers=headers)
        flash(f"Produced to partition {at['partition']} at offset {at['offset']}")
        return (f"/clusters/{c.settings.name}/topics/{quote(topic, safe='')}/messages?"
                + urlencode({"partition": at["partition"], "offset": at["offset"],
                             "order": "newest"}))
    return what, run


def _plan(form: dict[str, str]) -> reassign.Assignment:
    return reassign.parse_plan(_required(form, "plan"))


def _partitions_named(plan: reassign.Assignment) -> str:
    names = [f"{t}-{p}" for t, p in sorted(plan)]
    return ",".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "")


def _reassign_execute(c: ClusterClient,
                      form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    plan = _plan(form)
    throttle = _number(form, "throttle", optional=True)
    if throttle is not None and throttle <= 0:
        raise ValueError("a throttle is a positive number of bytes per second")
    additional = form.get("additional") == "on"
    what = (f"move the replicas of {_partitions_named(plan)} as the plan says"
            + (f", replication throttled to {throttle} B/s" if throttle is not None else "")
            + (", beside the reassignments already running" if additional else ""))

    def run() -> dict[str, Any]:
        rows = c.execute_reassignment(plan, throttle, additional)
        notes = ["Run verify until the reassignment completes, so that the throttle is "
                 "removed."] if throttle is not None else []
        return {"rows": rows, "ok": "started", "notes": notes}
    return what, run


def _reassign_verify(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    plan = _plan(form)
    preserve = form.get("preserve_throttles") == "on"
    what = (f"verify the reassignment of {_partitions_named(plan)}"
            + ("" if preserve else ", and clear the replication throttles once it is done"))

    def run() -> dict[str, Any]:
        verdict = c.verify_reassignment(plan, preserve)
        return {"rows": [{**r, "error": None} for r in verdict["partitions"]],
                "notes": verdict["cleared"]}
    return what, run


ACL_CHOICES = {"resource_type": security.RESOURCE_TYPES, "pattern": security.PATTERNS,
               "operation": security.OPERATIONS, "permission": security.PERMISSIONS}


def _acl(form: dict[str, str]) -> tuple[Any, str]:
    acl = security.binding(form.get("resource_type", ""), form.get("name", ""),
                           form.get("pattern", "LITERAL"), form.get("principal", ""),
                           form.get("host", "*"), form.get("operation", ""),
                           form.get("permission", "ALLOW"))
    row = security.binding_row(acl)
    words = (f"{row['permission']} {row['principal']} {row['operation']} from host "
             f"{row['host']} on {row['resource_type']} {row['name']} ({row['pattern']})")
    return acl, words


def _create_acl(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    acl, words = _acl(form)

    def run() -> str:
        c.create_acl(acl)
        return f"/clusters/{c.settings.name}/acls"
    return f"add the ACL: {words}", run


def _delete_acl(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    acl, words = _acl(form)

    def run() -> str:
        removed = c.delete_acl(acl)
        flash(f"{removed} ACL(s) removed")
        return f"/clusters/{c.settings.name}/acls"
    return f"remove the ACL: {words}", run


def _upsert_user(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    user, mechanism = _required(form, "user"), _required(form, "mechanism")
    iterations = _number(form, "iterations", optional=True) or 8192
    password = form.get("password", "")

    def run() -> str:
        c.upsert_user(user, mechanism, iterations, password)
        return f"/clusters/{c.settings.name}/users"
    # (the confirmation page carries the password in a hidden field of the same form,
    # never in its words)
    return f"set the {mechanism} credential of user {user} ({iterations} iterations)", run


def _delete_user(c: ClusterClient, form: dict[str, str]) -> tuple[str, Callable[[], Any]]:
    user, mechanism = _required(form, "user"), _required(form, "mechanism")

    def run() -> str:
        c.delete_user_credential(user, mechanism)
        return f"/clusters/{c.settings.name}/users"
    return f"delete the {mechanism} credential of user {user}", run


#: each action's form reader: what it will do (for the confirmation), and how
ACTIONS: dict[str, Action] = {
    "create-topic": _create_topic, "delete-topic": _delete_topic,
    "add-partitions": _add_partitions, "alter-config": _alter_config,
    "elect-leaders": _elect_leaders, "reset-offsets": _reset_offsets,
    "produce": _produce, "reassign-execute": _reassign_execute,
    "reassign-verify": _reassign_verify, "create-acl": _create_acl,
    "delete-acl": _delete_acl, "upsert-user": _upsert_user, "delete-user": _delete_user,
}


def _status(e: KafkaCallError) -> int:
    """404 for a topic or group the cluster does not have; 502 for any other refusal."""
    return 404 if e.name in ("UNKNOWN_TOPIC_OR_PARTITION", "GROUP_ID_NOT_FOUND") else 502


def _size(n: int | None) -> str:
    """Bytes as kafka-ui and du -h show them."""
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    raise AssertionError("unreachable")


def _with_args(**changes: Any) -> str:
    """This page's URL with some query arguments changed (None: removed)."""
    args = request.args.to_dict()
    for k, v in changes.items():
        if v is None:
            args.pop(k, None)
        else:
            args[k] = str(v)
    return request.path + ("?" + urlencode(args) if args else "")


def _paging(p: Page, total: int) -> dict[str, int]:
    pages = max(1, math.ceil(total / p.limit))
    return {"page": p.offset // p.limit + 1, "pages": pages, "size": p.limit,
            "first": p.offset + 1 if total else 0, "last": min(total, p.offset + p.limit)}
