"""Accounts, sessions, CSRF and the sign-in throttle.

- Passwords: argon2id with OWASP's recommended profile (19 MiB, 2 passes, 1 lane): about a
  quarter of argon2-cffi's default cost (64 MiB, 3 passes, 4 lanes), so 20 people signing in at
  once on 2 cores wait a second, not ten (bench/portal_load.py). Verified off the event loop, at
  most one per core at a time, so a burst of sign-ins queues instead of thrashing memory.
- Sessions live server-side. The cookie holds a random id; the table holds only its sha256, so a
  copy of the database signs no one in. A session is made only by signing in, and signing in or
  out deletes the session the request came with: an id planted in a browser before sign-in never
  becomes a signed-in one. Sessions end after IDLE seconds without a request, and ABSOLUTE
  seconds after sign-in whatever happens.
- CSRF: each session has its own token, sent back by the page in X-CSRF-Token on every POST and
  DELETE and compared with hmac.compare_digest; and when the browser sends Origin, it must be the
  portal's own. SameSite=Strict cookies already keep other sites' requests unsigned; the token
  and the Origin check are the second and third walls.
- Throttle: failed sign-ins are counted per name and per client address over WINDOW seconds;
  past the limit, sign-in answers 429 (even with the right password) until the window moves on.
"""
import asyncio
import collections
import hashlib
import hmac
import os
import secrets
import threading
import time

import argon2

from . import db
from .errors import ApiError

COOKIE = "ferry_session"
IDLE = 2 * 3600
ABSOLUTE = 24 * 3600
SEEN_EVERY = 60          # last_seen is written at most this often per session
WINDOW = 300
FAILS_PER_NAME = 5
FAILS_PER_ADDR = 20
ROLES = ("user", "admin")

_hasher = argon2.PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1,
                                 type=argon2.Type.ID)
# A hash to verify against when the name is unknown, so both answers take as long.
_DUMMY = _hasher.hash(secrets.token_urlsafe(16))


def hash_password(password):
    return _hasher.hash(password)


def check_password(pw_hash, password):
    try:
        return _hasher.verify(pw_hash, password)
    except argon2.exceptions.VerificationError:
        return False
    except argon2.exceptions.InvalidHashError:
        return False


_VERIFY_SLOTS = None


async def verify_password(pw_hash, password):
    """check_password in a worker thread, at most one per CPU at once."""
    from starlette.concurrency import run_in_threadpool
    global _VERIFY_SLOTS
    if _VERIFY_SLOTS is None:
        _VERIFY_SLOTS = asyncio.Semaphore(os.cpu_count() or 2)
    async with _VERIFY_SLOTS:
        return await run_in_threadpool(check_password, pw_hash or _DUMMY, password)


def new_password():
    """A generated password: 16 URL-safe characters, 96 bits."""
    return secrets.token_urlsafe(12)


def _digest(sid):
    return hashlib.sha256(sid.encode()).hexdigest()


class Throttle:
    """Failed sign-ins per key (name or address) within the last WINDOW seconds."""

    def __init__(self):
        self._fails = collections.defaultdict(collections.deque)
        self._lock = threading.Lock()

    def _recent(self, key, now):
        q = self._fails[key]
        while q and q[0] <= now - WINDOW:
            q.popleft()
        return q

    def retry_after(self, name, addr):
        """Seconds until sign-in is allowed again for this name and address; 0: now."""
        now = time.time()
        wait = 0
        with self._lock:
            for key, limit in ((("n", name), FAILS_PER_NAME), (("a", addr), FAILS_PER_ADDR)):
                q = self._recent(key, now)
                if len(q) >= limit:
                    wait = max(wait, q[len(q) - limit] + WINDOW - now)
        return int(wait) + 1 if wait > 0 else 0

    def failed(self, name, addr):
        now = time.time()
        with self._lock:
            for key in (("n", name), ("a", addr)):
                self._recent(key, now).append(now)
            # Forget keys whose window is empty, so the table stays bounded by recent failures.
            if len(self._fails) > 10000:
                for key in [k for k, q in self._fails.items() if not self._recent(k, now)]:
                    del self._fails[key]


class Sessions:
    def __init__(self, conn):
        self.conn = conn

    def create(self, user_id):
        """(cookie value, csrf token) of a new signed-in session."""
        sid = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = time.time()
        db.write(self.conn, "INSERT INTO sessions (id, user_id, csrf, created, last_seen) "
                 "VALUES (?, ?, ?, ?, ?)", (_digest(sid), user_id, csrf, now, now))
        return sid, csrf

    def drop(self, sid):
        if sid:
            db.write(self.conn, "DELETE FROM sessions WHERE id=?", (_digest(sid),))

    def lookup(self, sid):
        """(session row, user row) of a live session, or None; touches last_seen."""
        if not sid or len(sid) > 128:
            return None
        key = _digest(sid)
        row = self.conn.execute("SELECT * FROM sessions WHERE id=?", (key,)).fetchone()
        if row is None:
            return None
        now = time.time()
        if now - row["last_seen"] > IDLE or now - row["created"] > ABSOLUTE:
            db.write(self.conn, "DELETE FROM sessions WHERE id=?", (key,))
            return None
        user = db.user_by_id(self.conn, row["user_id"])
        if user is None:
            return None
        if now - row["last_seen"] > SEEN_EVERY:
            db.write(self.conn, "UPDATE sessions SET last_seen=? WHERE id=?", (now, key))
        return row, user

    def purge(self):
        """Deletes expired sessions (called now and then)."""
        now = time.time()
        db.write(self.conn, "DELETE FROM sessions WHERE last_seen < ? OR created < ?",
                 (now - IDLE, now - ABSOLUTE))


def own_origin(request):
    return f"{request.url.scheme}://{request.headers.get('host', '')}"


def check_origin(request):
    """403 when the browser says the request comes from another origin."""
    origin = request.headers.get("origin")
    if origin is not None and origin != own_origin(request):
        raise ApiError(403, f"request refused: Origin {origin!r} is not this portal's")


def check_csrf(request, session):
    check_origin(request)
    token = request.headers.get("x-csrf-token", "")
    if not token:
        raise ApiError(403, "request refused: the X-CSRF-Token header is missing")
    if not hmac.compare_digest(token.encode(), session["csrf"].encode()):
        raise ApiError(403, "request refused: the X-CSRF-Token does not match this session")


def cookie_args(cfg):
    return dict(key=COOKIE, httponly=True, samesite="strict", secure=cfg.secure_cookies,
                path="/")
