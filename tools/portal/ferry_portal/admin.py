"""The admin's API: the accounts (list, create) and the queue. Every handler answers 403 to a
signed-in user who is not an admin (401 to no one signed in)."""
import sqlite3

from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse

from . import auth, db, validate
from .api import portal, signed_in, writer
from .errors import ApiError


def _admin(user):
    if user["role"] != "admin":
        raise ApiError(403, "only an admin may do this")


async def users(request):
    _, user = signed_in(request)
    _admin(user)
    return JSONResponse({"users": [dict(r) for r in db.users(portal(request).conn)]})


def create_user(conn, name, password, role, pw_hash=None):
    """The new user's id; ApiError(400) naming the field when the name is taken."""
    try:
        return db.add_user(conn, name, pw_hash or auth.hash_password(password), role)
    except sqlite3.IntegrityError:
        raise ApiError(400, f"name: {name!r} is taken", "name") from None


async def add_user(request):
    from .api import json_body
    _, user = writer(request)
    _admin(user)
    body = await json_body(request)
    name = validate.user_name(body.get("name"))
    password = validate.password(body.get("password"))
    role = validate.role(body.get("role"))
    # Hashing takes a CPU for tens of milliseconds: not on the event loop.
    pw_hash = await run_in_threadpool(auth.hash_password, password)
    user_id = create_user(portal(request).conn, name, password, role, pw_hash)
    return JSONResponse({"id": user_id, "name": name, "role": role}, status_code=201)


async def queue(request):
    _, user = signed_in(request)
    _admin(user)
    return JSONResponse({"queue": portal(request).jobs.queue_snapshot()})
