"""``graph-trust review serve``: the review page, a small Starlette app with server-rendered Jinja2
templates (no build step, no script from elsewhere: one local file for the keyboard shortcuts).

It calls only the functions :func:`graph_trust.api.review_page_app` hands it (:class:`PageOps`:
the queue, a fact's view, decide, undo, the audit trail), the same ones the ``graph-trust review``
commands call, so the page and the CLI cannot disagree.

Writes are guarded three ways: a CSRF token (double submit: a signed random token in a
``SameSite=Strict`` cookie must equal the form's hidden field; the key lives in this process),
a reviewer identity (``review.page.reviewer``, or the header a trusted proxy sets,
``review.page.identity_header``; none: the write is refused), and the Host header
(``review.page.allowed_hosts``, against DNS rebinding). Every value reaches the page through
Jinja2's autoescaping; the content security policy allows scripts and styles from the page only.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from graph_trust.config import ReviewPageSettings
from graph_trust.errors import (
    ConfigError,
    GraphConnectionError,
    GraphTrustError,
    InputError,
    NotFoundError,
    ReviewDBError,
    RollbackConflictError,
    scrub,
)
from graph_trust.review.schema import ACTIONS

try:  # the optional review-page extra: without it create_app and serve raise one ConfigError line
    import jinja2
    import uvicorn
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import RedirectResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
    from starlette.templating import Jinja2Templates
except ImportError:  # pragma: no cover - exercised by an install without the extra
    Starlette = None  # type: ignore[assignment,misc]

HERE = Path(__file__).resolve().parent
CSRF_COOKIE = "gt_review_csrf"
CSRF_FIELD = "csrf_token"
# what every response carries: scripts, styles and images from the page only, no framing
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                                 b"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
SHORTCUTS = [  # (keys, what, where): shown on every page and in docs/review.md
    ("j / k", "next / previous fact", "queue"),
    ("Enter or o", "open the selected fact", "queue"),
    ("p / c / r / e", "choose promote / corroborate / reject / expire and type the reason", "fact"),
    ("Enter (in the reason)", "submit the chosen decision", "fact"),
    ("u", "undo: type the reason for undoing the latest decision on this fact", "fact"),
    ("q", "back to the queue", "every page"),
    ("h", "the audit trail (history)", "every page"),
    ("?", "show or hide the shortcuts", "every page"),
    ("Esc", "leave a text field", "every page"),
]


@dataclass(frozen=True)
class PageOps:
    """The library functions the page calls, bound to the server's settings by
    :func:`graph_trust.api.review_page_app`: ``open_graph()`` (an async context manager of a graph
    connection, opened once for the app's life), ``queue(group=, limit=, graph=)``,
    ``fact(target, graph=, actor=)``, ``decide(action, ids, actor=, reason=, apply_sync=, graph=, expect=)``,
    ``undo(actor=, reason=, batch_id=, force=, apply_sync=, graph=)``, ``history(target, limit=)`` and
    ``skip(ids, actor=, reason=, graph=)`` (the "skip" button: looked, not decided)."""

    open_graph: Callable[[], AbstractAsyncContextManager[Any]]
    queue: Callable[..., Awaitable[list[Any]]]
    fact: Callable[..., Awaitable[dict[str, Any]]]
    decide: Callable[..., Awaitable[dict[str, Any]]]
    undo: Callable[..., Awaitable[dict[str, Any]]]
    history: Callable[..., list[dict[str, Any]]]
    skip: Callable[..., Awaitable[dict[str, Any]]] | None = None  # skip(ids, actor=, reason=, graph=): looked, not decided


def _need_extra() -> None:
    if Starlette is None:
        raise ConfigError("graph-trust review serve needs the web framework: pip install 'graph-trust[review-page]' "
                          "(installs starlette, jinja2, uvicorn, python-multipart)")


def status_of(exc: GraphTrustError) -> int:
    """The HTTP status of a library error."""
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, RollbackConflictError):
        return 409
    if isinstance(exc, (ReviewDBError, GraphConnectionError)):
        return 503
    if isinstance(exc, (InputError, ConfigError)):
        return 400
    return 500


def reviewer_of(headers: Any, page: ReviewPageSettings) -> str | None:
    """Who is reviewing: the trusted proxy's header when ``identity_header`` is set (only it), else
    the configured ``reviewer``; None when neither names anyone."""
    if page.identity_header:
        value = headers.get(page.identity_header)
        return value.strip() if isinstance(value, str) and value.strip() else None
    return page.reviewer


class Csrf:
    """Double-submit tokens: ``nonce.signature`` (HMAC-SHA256 under a key made at start-up), set as a
    cookie and repeated in every form; a write needs both, equal and signed by this process."""

    def __init__(self) -> None:
        self._key = secrets.token_bytes(32)

    def _sign(self, nonce: str) -> str:
        return hmac.new(self._key, nonce.encode(), hashlib.sha256).hexdigest()

    def _signed(self, token: str | None) -> bool:
        if not token or token.count(".") != 1:
            return False
        nonce, sig = token.split(".")
        return bool(nonce) and hmac.compare_digest(sig, self._sign(nonce))

    def token(self, cookie: str | None) -> tuple[str, bool]:
        """(the token for this response, whether the cookie must be set)."""
        if self._signed(cookie):
            return cookie, False  # type: ignore[return-value]
        nonce = secrets.token_urlsafe(24)
        return f"{nonce}.{self._sign(nonce)}", True

    def valid(self, cookie: str | None, field: Any) -> bool:
        return (isinstance(field, str) and self._signed(cookie)
                and hmac.compare_digest(cookie.encode(), field.encode()))  # type: ignore[union-attr]


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` to every HTTP response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


def _templates() -> Any:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["q"] = lambda v: quote(str(v), safe="")  # one path segment or query value
    return Jinja2Templates(env=env)


def create_app(ops: PageOps, page: ReviewPageSettings, *, extra_hosts: list[str] | None = None) -> Any:
    """The review page as an ASGI app; its graph is opened by ``ops.open_graph`` at start-up."""
    _need_extra()
    templates = _templates()
    csrf = Csrf()
    state: dict[str, Any] = {}

    def render(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        token, fresh = csrf.token(request.cookies.get(CSRF_COOKIE))
        reviewer = reviewer_of(request.headers, page)
        response = templates.TemplateResponse(request, name, {
            **context, "csrf_token": token, "csrf_field": CSRF_FIELD, "reviewer": reviewer,
            "identity_header": page.identity_header, "shortcuts": SHORTCUTS}, status_code=status)
        if fresh:
            response.set_cookie(CSRF_COOKIE, token, httponly=True, samesite="strict", path="/",
                                secure=request.url.scheme == "https")
        return response

    def error_page(request: Request, status: int, title: str, message: str) -> Response:
        return render(request, "error.html", {"title": title, "message": scrub(message)}, status)

    async def refused(request: Request, form: Any) -> tuple[Response | None, str | None]:
        """(a refusal page, or None and the reviewer): CSRF first, then the identity."""
        if not csrf.valid(request.cookies.get(CSRF_COOKIE), form.get(CSRF_FIELD)):
            return error_page(request, 403, "Refused: CSRF token missing or wrong",
                              "This write did not carry the page's token (or the server restarted since the "
                              "page was loaded). Nothing was written: reload the page and try again."), None
        who = reviewer_of(request.headers, page)
        if who is None:
            how = (f"the {page.identity_header} header, which the proxy in front of this page sets, is missing"
                   if page.identity_header else
                   "set review.page.reviewer in the config, GRAPH_TRUST_REVIEWER, or start the page with "
                   "graph-trust review serve --reviewer NAME")
            return error_page(request, 403, "Refused: no reviewer identity",
                              f"Decisions record who made them, and this page does not know who you are: {how}. "
                              "Nothing was written."), None
        return None, who

    async def queue(request: Request) -> Response:
        group = request.query_params.get("group") or None
        raw_limit = request.query_params.get("limit") or ""
        try:
            limit = int(raw_limit) if raw_limit else None
            if limit is not None and not 1 <= limit <= 100000:
                raise ValueError
        except ValueError:
            return error_page(request, 400, "Bad limit", f"limit must be a whole number from 1 to 100000, "
                                                         f"not {raw_limit!r}")
        try:
            items = await ops.queue(group=group, limit=limit, graph=state["graph"])
        except GraphTrustError as exc:
            return error_page(request, status_of(exc), "The queue could not be read", str(exc))
        return render(request, "queue.html", {"items": items, "group": group or "", "limit": raw_limit})

    async def fact_page(request: Request, target: str, *, error: str | None = None, status: int = 200,
                        form: dict[str, str] | None = None) -> Response:
        try:
            view = await ops.fact(target, graph=state["graph"], actor=reviewer_of(request.headers, page))
        except NotFoundError as exc:
            return error_page(request, 404, "No such fact", str(exc))
        except GraphTrustError as exc:
            return error_page(request, status_of(exc), "The fact could not be read", str(exc))
        done = request.query_params.get("batch")
        undone = request.query_params.get("undone")
        return render(request, "fact.html", {
            "f": view, "actions": ACTIONS, "error": scrub(error) if error else None, "form": form or {},
            "done": [r for r in view["history"] if done and r["batch_id"] == done],
            "undone": [r for r in view["history"] if undone and r["batch_id"] == undone]}, status)

    async def fact(request: Request) -> Response:
        return await fact_page(request, request.path_params["target"])

    async def decide(request: Request) -> Response:
        target = request.path_params["target"]
        form = await request.form()
        refusal, who = await refused(request, form)
        if refusal is not None:
            return refusal
        action, reason = str(form.get("action") or ""), str(form.get("reason") or "")
        if action == "skip" and ops.skip is not None:
            try:
                out = await ops.skip([target], actor=who, reason=reason, graph=state["graph"])
            except GraphTrustError as exc:
                return await fact_page(request, target, error=str(exc), status=status_of(exc),
                                       form={"reason": reason, "action": action})
            return RedirectResponse(f"/fact/{quote(target, safe='')}?batch={quote(out['batch']['batch_id'], safe='')}",
                                    status_code=303)
        if action not in ACTIONS:
            return await fact_page(request, target, status=400, form={"reason": reason},
                                   error=f"choose a decision ({', '.join(ACTIONS)}), not {action!r}; nothing was written")
        try:
            out = await ops.decide(action, [target], actor=who, reason=reason, apply_sync=form.get("sync") == "on",
                                   graph=state["graph"], expect=str(form.get("expect") or "") or None)
        except GraphTrustError as exc:
            return await fact_page(request, target, error=str(exc), status=status_of(exc),
                                   form={"reason": reason, "action": action})
        return RedirectResponse(f"/fact/{quote(target, safe='')}?batch={quote(out['batch']['batch_id'], safe='')}",
                                status_code=303)

    async def undo(request: Request) -> Response:
        form = await request.form()
        refusal, who = await refused(request, form)
        if refusal is not None:
            return refusal
        back = str(form.get("back") or "")
        batch_id = str(form.get("batch_id") or "") or None
        try:
            out = await ops.undo(actor=who, reason=str(form.get("reason") or ""), batch_id=batch_id,
                                 force=form.get("force") == "on", apply_sync=form.get("sync") == "on",
                                 graph=state["graph"])
        except GraphTrustError as exc:
            if back:
                return await fact_page(request, back, error=str(exc), status=status_of(exc))
            return error_page(request, status_of(exc), "Nothing was undone", str(exc))
        new = quote(out["batch"]["batch_id"], safe="")
        return RedirectResponse(f"/fact/{quote(back, safe='')}?undone={new}" if back else f"/history?undone={new}",
                                status_code=303)

    async def history(request: Request) -> Response:
        try:
            rows = ops.history(None, limit=200)
        except GraphTrustError as exc:
            return error_page(request, status_of(exc), "The audit trail could not be read", str(exc))
        return render(request, "history.html", {"rows": rows, "undone": request.query_params.get("undone") or ""})

    async def not_found(request: Request, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        if code == 404:
            return error_page(request, 404, "Not found", f"no page {request.url.path!r} here")
        return error_page(request, code, "Error", str(getattr(exc, "detail", exc)))

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with ops.open_graph() as graph:
            state["graph"] = graph
            yield
        state.clear()

    routes = [
        Route("/", queue, methods=["GET"]),
        Route("/fact/{target}", fact, methods=["GET"]),
        Route("/fact/{target}/decide", decide, methods=["POST"]),
        Route("/undo", undo, methods=["POST"]),
        Route("/history", history, methods=["GET"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    hosts = list(dict.fromkeys([*page.allowed_hosts, *(extra_hosts or [])]))
    hosts += [f"[{h}]" for h in hosts if ":" in h and not h.startswith("[")]  # an IPv6 Host header is bracketed
    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: not_found},
                     middleware=[Middleware(SecurityHeaders), Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``; a ConfigError naming them when it cannot be (in use, no such address)."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port} (review.page.host, --host): {exc.strerror or exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def _server(config: Any) -> Any:
    """A uvicorn server that leaves signals to the caller. uvicorn's own handlers would stop it with
    exit status 0 on a Ctrl-C that arrives once they are installed, and the CLI's with 130 on one
    that arrives before: one mechanism (the event loop's, which cancels the task) gives Ctrl-C one
    exit status whenever it comes."""

    class Server(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    return Server(config)


async def serve(app: Any, host: str, port: int) -> None:
    """Run ``app`` with uvicorn on ``host``:``port`` in the running event loop until this task is
    cancelled (the CLI cancels it on Ctrl-C and SIGTERM), then shut it down gracefully: requests in
    flight finish and the graph connection closes."""
    _need_extra()
    sock = listening_socket(host, port)
    server = _server(uvicorn.Config(app, host=host, port=port, log_level="info", lifespan="on"))
    shown = f"[{host}]" if ":" in host else host
    logging.getLogger("uvicorn.error").info("review page on http://%s:%d/ (Ctrl-C stops it)", shown, port)
    running = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        await asyncio.shield(running)
    except asyncio.CancelledError:
        server.should_exit = True
        await running
        raise


__all__ = ["CSRF_COOKIE", "CSRF_FIELD", "SHORTCUTS", "Csrf", "PageOps", "create_app", "reviewer_of", "serve",
           "status_of"]
