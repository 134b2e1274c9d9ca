"""The portal's one sqlite file (state/portal.db), in WAL mode, and the tables the web layer owns.

users and sessions live here; the jobs tables belong to jobstore.py (the runner). Writers take
WRITE_LOCK: one connection is shared by the event loop's threads (check_same_thread=False), and
sqlite's own locking would otherwise answer "database is locked" under load.
"""
import sqlite3
import threading
import time

WRITE_LOCK = threading.RLock()

# Each entry upgrades the schema by one version; applied in order, recorded in schema_version.
_MIGRATIONS = [
    """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        pw_hash TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('user', 'admin')),
        created REAL NOT NULL
    );
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY,            -- sha256 of the cookie's value, never the value itself
        user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
        csrf TEXT NOT NULL,
        created REAL NOT NULL,
        last_seen REAL NOT NULL
    );
    CREATE INDEX sessions_user ON sessions(user_id);
    """,
]


def connect(path):
    """An open connection with the web layer's tables made or upgraded."""
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA synchronous=NORMAL")
    with WRITE_LOCK:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (part TEXT PRIMARY KEY, "
                     "version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM schema_version WHERE part='web'").fetchone()
        have = row["version"] if row else 0
        for version in range(have, len(_MIGRATIONS)):
            conn.execute("BEGIN IMMEDIATE")
            # Statement by statement: executescript() would commit the open transaction.
            for stmt in _MIGRATIONS[version].split(";"):
                if stmt.strip():
                    conn.execute(stmt)
            conn.execute("INSERT OR REPLACE INTO schema_version VALUES ('web', ?)", (version + 1,))
            conn.execute("COMMIT")
    return conn


def write(conn, sql, args=()):
    """One write statement under WRITE_LOCK; returns the cursor."""
    with WRITE_LOCK:
        return conn.execute(sql, args)


def add_user(conn, name, pw_hash, role):
    """The new user's id; sqlite3.IntegrityError when the name is taken."""
    return write(conn, "INSERT INTO users (name, pw_hash, role, created) VALUES (?, ?, ?, ?)",
                 (name, pw_hash, role, time.time())).lastrowid


def set_password(conn, user_id, pw_hash):
    write(conn, "UPDATE users SET pw_hash=? WHERE id=?", (pw_hash, user_id))
    # A new password ends every session of the old one.
    write(conn, "DELETE FROM sessions WHERE user_id=?", (user_id,))


def user_by_name(conn, name):
    return conn.execute("SELECT * FROM users WHERE name=?", (name,)).fetchone()


def user_by_id(conn, user_id):
    return conn.execute("SELECT * FROM users WHERE id=?", (user_id,)).fetchone()


def users(conn):
    return conn.execute("SELECT id, name, role, created FROM users ORDER BY name").fetchall()
