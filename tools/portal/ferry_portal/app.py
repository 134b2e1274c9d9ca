"""The Starlette application: routes, the walls every request passes (body size, security
headers, JSON errors), and the runner's JobManager started and stopped with the app.

Layers, outermost first: SecurityHeaders (adds headers to every answer) → BodyLimit (413 as soon
as a body is too large) → Starlette's error handling (errors.py) → routes (api.py, admin.py).
"""
import asyncio
import contextlib
import dataclasses
import os
import pathlib
import sys

from starlette.applications import Starlette
from starlette.responses import FileResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import admin, api, auth, errors
from .errors import ApiError

STATIC = pathlib.Path(__file__).resolve().parent / "static"
# install-portal.sh builds the editor bundle into the venv that runs us.
EDITOR_BUNDLE = pathlib.Path(sys.prefix) / "share" / "ferry-portal" / "editor.js"
SMALL_BODY = 64 * 1024           # any request but a job submission
FORM_SLACK = 64 * 1024           # a submission's other fields, beside its upload
PURGE_EVERY = 600                # seconds between sweeps of expired sessions

PAGE_CSP = ("default-src 'self'; img-src 'self' data: blob:; object-src 'none'; "
            "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


@dataclasses.dataclass
class Portal:
    """What every handler reaches through request.app.state.portal."""
    cfg: object
    conn: object
    sessions: auth.Sessions
    throttle: auth.Throttle
    backends: list
    jobs: object = None


class SecurityHeaders:
    """Adds the security headers to every response; a route's own CSP (an inline SVG, the trace
    view) is kept."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {k.lower() for k, _ in headers}
                extra = [(b"content-security-policy", PAGE_CSP.encode()),
                         (b"x-content-type-options", b"nosniff"),
                         (b"x-frame-options", b"DENY"),
                         (b"referrer-policy", b"no-referrer"),
                         (b"cross-origin-opener-policy", b"same-origin"),
                         (b"cross-origin-resource-policy", b"same-origin")]
                if scope["path"].startswith("/api/"):
                    extra.append((b"cache-control", b"no-store"))
                headers += [(k, v) for k, v in extra if k not in have]
                message = dict(message, headers=headers)
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """413 for a request body above its limit: at once when Content-Length says so, else as
    soon as the bytes read pass it (the rest is never read)."""

    def __init__(self, app, max_upload):
        self.app = app
        self.max_upload = max_upload

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        big = scope["method"] == "POST" and scope["path"] == "/api/jobs"
        limit = self.max_upload + FORM_SLACK if big else SMALL_BODY
        what = (f"the upload is larger than the limit of {self.max_upload} bytes" if big
                else f"the request body is larger than {SMALL_BODY} bytes")
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            resp = errors.error_response(413, what, "upload" if big else None,
                                         headers={"Connection": "close"})
            return await resp(scope, receive, send)
        seen = 0

        async def counting_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    # Connection: close makes the server drop the connection once the answer
                    # is sent, rather than read (and discard) the rest of the body.
                    raise ApiError(413, what, "upload" if big else None,
                                   headers={"Connection": "close"})
            return message

        await self.app(scope, counting_receive, send)


async def page(request):
    index = STATIC / "index.html"
    if not index.is_file():
        raise ApiError(404, f"the portal's page is not installed ({index} is missing)")
    return FileResponse(index, headers={"Cache-Control": "no-cache"})


async def editor_bundle(request):
    if not EDITOR_BUNDLE.is_file():
        raise ApiError(404, "the editor bundle is not built: run scripts/install-portal.sh "
                            "(it needs npm)")
    return FileResponse(EDITOR_BUNDLE, media_type="text/javascript",
                        headers={"Cache-Control": "no-cache"})


async def fault(request):
    raise RuntimeError("a fault asked for by FERRY_PORTAL_FAULT_ROUTE (tests only)")


def routes():
    r = [
        Route("/", page),
        Route("/api/login", api.login, methods=["POST"]),
        Route("/api/logout", api.logout, methods=["POST"]),
        Route("/api/me", api.me),
        Route("/api/examples", api.examples),
        Route("/api/jobs", api.list_jobs, methods=["GET"]),
        Route("/api/jobs", api.submit, methods=["POST"]),
        Route("/api/jobs/{id}", api.job),
        Route("/api/jobs/{id}/events", api.events),
        Route("/api/jobs/{id}/cancel", api.cancel, methods=["POST"]),
        Route("/api/jobs/{id}/files/{path:path}", api.download),
        Route("/api/jobs/{id}/view", api.view),
        Route("/api/jobs/{id}/profile", api.profile),
        Route("/api/admin/users", admin.users, methods=["GET"]),
        Route("/api/admin/users", admin.add_user, methods=["POST"]),
        Route("/api/admin/queue", admin.queue),
        Route("/static/editor.js", editor_bundle),
    ]
    # The tests' way to see what a client gets when a route fails (a generic message only).
    if os.environ.get("FERRY_PORTAL_FAULT_ROUTE") == "1":
        r.append(Route("/api/fault", fault))
    if STATIC.is_dir():
        r.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    return r


def build(cfg, conn, job_manager_factory=None):
    """The ASGI app. job_manager_factory(cfg, conn) makes the JobManager (default: jobs.py's)."""
    state = Portal(cfg=cfg, conn=conn, sessions=auth.Sessions(conn), throttle=auth.Throttle(),
                   backends=[])

    if job_manager_factory is None:
        from .jobs import JobManager as job_manager_factory
    # Made here, before the server starts, so a bad setup (no Ferry prefix) stops the start
    # with the runner's message rather than a failed lifespan.
    state.jobs = job_manager_factory(cfg, conn)
    state.backends = state.jobs.backends()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await state.jobs.start()
        purge = asyncio.create_task(_purge_sessions(state.sessions))
        try:
            yield
        finally:
            purge.cancel()
            await state.jobs.stop()

    app = Starlette(routes=routes(), exception_handlers=errors.HANDLERS, lifespan=lifespan)
    app.state.portal = state
    return SecurityHeaders(BodyLimit(app, cfg.limits.max_upload))


async def _purge_sessions(sessions):
    while True:
        sessions.purge()
        await asyncio.sleep(PURGE_EVERY)
