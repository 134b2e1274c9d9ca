"""The HTTP API of a signed-in user: sign-in and out, who am I, examples, and jobs.

Each handler checks who asks (session), that a POST carries the session's CSRF token, and its
parameters (validate.py), then calls the runner's JobManager. A job of another user answers 404,
the same as a job that does not exist, so ids cannot be probed.
"""
import asyncio
import json
import math
import os
import stat

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, StreamingResponse

from . import auth, db, validate
from .errors import ApiError

KEEP_ALIVE = 15          # seconds between SSE comments on a quiet stream
INLINE_TYPES = {"png": "image/png", "svg": "image/svg+xml", "csv": "text/csv; charset=utf-8",
                "text": "text/plain; charset=utf-8"}


def portal(request):
    return request.app.state.portal


def signed_in(request):
    """(session, user) of the request's session, or 401."""
    found = portal(request).sessions.lookup(request.cookies.get(auth.COOKIE))
    if found is None:
        raise ApiError(401, "not signed in")
    return found


def writer(request):
    """signed_in() for a state-changing request: also checks the CSRF token and Origin."""
    session, user = signed_in(request)
    auth.check_csrf(request, session)
    return session, user


def client_addr(request):
    return request.client.host if request.client else "?"


async def json_body(request):
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(415, "the body must be JSON (Content-Type: application/json)")
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "the body is not valid JSON") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


def public_user(user):
    return {"name": user["name"], "role": user["role"]}


async def login(request):
    # No session yet, hence no CSRF token: a JSON body (which another site's form cannot send
    # without a CORS preflight we never answer) and the Origin check stand in for it.
    auth.check_origin(request)
    p = portal(request)
    body = await json_body(request)
    name = validate.text(body.get("name"), "name", 32)
    password = validate.text(body.get("password"), "password", validate.MAX_PASSWORD)
    addr = client_addr(request)
    wait = p.throttle.retry_after(name, addr)
    if wait:
        raise ApiError(429, f"too many failed sign-ins; try again in {wait} s",
                       headers={"Retry-After": str(wait)})
    user = db.user_by_name(p.conn, name)
    ok = await auth.verify_password(user["pw_hash"] if user else None, password)
    if not ok or user is None:
        p.throttle.failed(name, addr)
        raise ApiError(401, "wrong name or password")
    # Rotation: whatever session the browser came with is ended, and a new id is issued.
    p.sessions.drop(request.cookies.get(auth.COOKIE))
    sid, csrf = p.sessions.create(user["id"])
    resp = JSONResponse({"user": public_user(user), "csrf": csrf})
    resp.set_cookie(value=sid, max_age=auth.ABSOLUTE, **auth.cookie_args(p.cfg))
    return resp


async def logout(request):
    writer(request)
    p = portal(request)
    p.sessions.drop(request.cookies.get(auth.COOKIE))
    resp = JSONResponse({"ok": True})
    resp.delete_cookie(**{k: v for k, v in auth.cookie_args(p.cfg).items()})
    return resp


async def me(request):
    session, user = signed_in(request)
    p = portal(request)
    lim = p.cfg.limits
    return JSONResponse({
        "user": public_user(user), "csrf": session["csrf"],
        "limits": {k: getattr(lim, k) for k in ("concurrent_jobs", "max_ranks", "max_time",
                                                 "default_time", "max_output", "max_upload",
                                                 "max_queued")},
        "backends": p.backends, "hosts": list(p.cfg.hosts.names)})


async def examples(request):
    signed_in(request)
    from . import examples as ex
    return JSONResponse(ex.gallery())


def own_job(request):
    """The job id of the URL when the job is the asker's (or the asker is an admin); else 404."""
    session, user = signed_in(request)
    job_id = validate.job_id(request.path_params["id"])
    owner = portal(request).jobs.owner(job_id)
    if owner is None or (owner != user["id"] and user["role"] != "admin"):
        raise ApiError(404, "no such job")
    return job_id, session, user


async def submit(request):
    _, user = writer(request)
    p = portal(request)
    async with request.form(max_files=1, max_fields=20,
                            max_part_size=p.cfg.limits.max_upload) as form:
        fields = validate.job_form(form, p.cfg, p.backends)
        upload = None
        if fields["upload"] is not None:
            data = await fields["upload"].read()
            upload = (fields["upload"].filename.rsplit("/", 1)[-1], data)
    from .jobs import JobError, JobSpec
    spec = JobSpec(backend=fields["backend"], ranks=fields["ranks"], hosts=fields["hosts"],
                   args=fields["args"], time_limit=fields["time_limit"], main=fields["main"],
                   trace=fields["trace"], profile=fields["profile"])
    try:
        job_id = p.jobs.submit(user["id"], spec, source_text=fields["source"], upload=upload)
    except JobError as e:
        field = e.field
        message = f"{field}: {e.message}" if field else e.message
        raise ApiError(400, message, field) from None
    return JSONResponse({"id": job_id}, status_code=201)


async def list_jobs(request):
    _, user = signed_in(request)
    q = request.query_params
    limit = validate.integer(q.get("limit"), "limit", 1, 500, default=50)
    before = q.get("before")
    if before not in (None, ""):
        try:
            before = float(before)
        except ValueError:
            before = math.nan
        if not math.isfinite(before) or before < 0:
            raise validate.bad("before", f"{q.get('before')[:40]!r} is not a time (unix seconds)")
    else:
        before = None
    everyone = validate.flag(q.get("all"), "all")
    if everyone and user["role"] != "admin":
        raise ApiError(403, "all: only an admin sees everyone's jobs", "all")
    jobs = portal(request).jobs.list(None if everyone else user["id"], limit, before)
    return JSONResponse({"jobs": jobs})


async def job(request):
    job_id, _, _ = own_job(request)
    record = portal(request).jobs.get(job_id)
    if record is None:
        raise ApiError(404, "no such job")
    return JSONResponse(record)


async def cancel(request):
    job_id, session, _ = own_job(request)
    auth.check_csrf(request, session)
    return JSONResponse({"cancelled": bool(portal(request).jobs.cancel(job_id))})


def _sse(event):
    data = json.dumps(event, separators=(",", ":"))
    return f"id: {event.get('seq', 0)}\nevent: {event.get('type', 'message')}\ndata: {data}\n\n"


async def events(request):
    job_id, _, _ = own_job(request)
    after = validate.integer(request.query_params.get("after"), "after", 0, 2**62, default=0)
    last = request.headers.get("last-event-id")
    if last:
        after = max(after, validate.integer(last, "Last-Event-ID", 0, 2**62))
    source = portal(request).jobs.events(job_id, after=after)

    async def stream():
        # One task drains the runner's iterator into a queue (an async generator is meant to
        # be driven by one task; stepping it from a new task per event lost the end of some
        # streams under load), and the response waits on the queue with a timeout, which is
        # safe to cancel, to send a keep-alive comment on a quiet stream.
        queue = asyncio.Queue()
        done = object()

        async def drain():
            try:
                async for event in source:
                    await queue.put(event)
            finally:
                await queue.put(done)

        producer = asyncio.create_task(drain())
        try:
            yield ": stream of job events\n\n"
            while True:
                try:
                    event = await asyncio.wait_for(queue.get(), KEEP_ALIVE)
                except asyncio.TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if event is done:
                    break
                yield _sse(event)
            await producer        # re-raises the runner's error, if it had one
        finally:
            # The client went away (or the stream ended): stop the runner's iterator.
            if not producer.done():
                producer.cancel()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _open_regular(path):
    """An fd of the regular file at path, refusing a symlink at its last component (and the
    runner resolved the rest); None when it is not a regular file."""
    if os.path.realpath(path) != str(path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


async def _file_chunks(fd):
    try:
        while True:
            chunk = await run_in_threadpool(os.read, fd, 65536)
            if not chunk:
                return
            yield chunk
    finally:
        os.close(fd)


async def download(request):
    job_id, _, _ = own_job(request)
    relpath = validate.relpath(request.path_params["path"])
    p = portal(request)
    fd = _job_file_fd(request, job_id, relpath, f"no such file in the job's output: {relpath}")
    size = os.fstat(fd).st_size
    name = relpath.rsplit("/", 1)[-1]
    headers = {"Content-Length": str(size), "X-Content-Type-Options": "nosniff",
               "Cache-Control": "private, no-store"}
    inline = validate.flag(request.query_params.get("inline"), "inline")
    kind = None
    if inline:
        record = p.jobs.get(job_id) or {}
        kind = next((f.get("kind") for f in record.get("files", []) if f.get("path") == relpath),
                    None)
        if kind not in INLINE_TYPES:
            os.close(fd)
            raise ApiError(400, f"inline: {relpath} is not an image, CSV or text file", "inline")
        headers["Content-Disposition"] = "inline"
        # An SVG can hold scripts: shown only inside a sandbox with no script or origin.
        headers["Content-Security-Policy"] = ("sandbox; default-src 'none'; "
                                              "style-src 'unsafe-inline'")
        media = INLINE_TYPES[kind]
    else:
        ascii_name = "".join(c if c.isalnum() or c in "._-+" else "_" for c in name)
        headers["Content-Disposition"] = f'attachment; filename="{ascii_name}"'
        media = "application/octet-stream"
    return StreamingResponse(_file_chunks(fd), media_type=media, headers=headers)


# The runner leaves these in the job's work directory (jobs.py: _results and _view).
PROFILE_FILE = "profile.txt"
VIEW_FILE = "trace.html"


def _job_file_fd(request, job_id, relpath, missing):
    path = portal(request).jobs.file_path(job_id, relpath)
    fd = _open_regular(path) if path is not None else None
    if fd is None:
        raise ApiError(404, missing)
    return fd


async def profile(request):
    job_id, _, _ = own_job(request)
    record = portal(request).jobs.get(job_id) or {}
    if not record.get("has_profile"):
        raise ApiError(404, "this job has no profile (run it with the profile box ticked)")
    fd = _job_file_fd(request, job_id, PROFILE_FILE, "this job's profile file is missing")
    return StreamingResponse(_file_chunks(fd), media_type="text/plain; charset=utf-8")


async def view(request):
    job_id, _, _ = own_job(request)
    record = portal(request).jobs.get(job_id) or {}
    if not record.get("has_trace"):
        raise ApiError(404, "this job has no trace (run it with the trace box ticked)")
    fd = _job_file_fd(request, job_id, VIEW_FILE, "this job's trace page is missing")
    # ferry view's page is self-contained (inline script and data): it runs in a sandbox with
    # no origin, so its scripts cannot reach the portal's API with the user's cookie.
    return StreamingResponse(
        _file_chunks(fd), media_type="text/html; charset=utf-8",
        headers={"Content-Security-Policy": "sandbox allow-scripts; default-src 'none'; "
                 "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:"})
