"""The jobs table and each job's event log.

A job's record lives in sqlite (`jobs`, one row; lists and dicts as JSON text) so the
web layer can list and page through history; its events (state changes, output lines,
diagnostics) are appended to `jobs/<id>/events.jsonl`, one JSON object a line, which
is what a browser replays when it (re)connects."""

import json
import time

# Columns holding JSON text, decoded in records.
_JSON = ("hosts", "args", "diagnostics", "files")

SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    state TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    backend TEXT NOT NULL,
    ranks INTEGER NOT NULL,
    hosts TEXT NOT NULL DEFAULT '[]',
    args TEXT NOT NULL DEFAULT '[]',
    time_limit INTEGER NOT NULL,
    main TEXT,
    trace INTEGER NOT NULL DEFAULT 0,
    profile INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    diagnostics TEXT NOT NULL DEFAULT '[]',
    files TEXT NOT NULL DEFAULT '[]',
    output_bytes INTEGER NOT NULL DEFAULT 0,
    truncated INTEGER NOT NULL DEFAULT 0,
    has_trace INTEGER NOT NULL DEFAULT 0,
    has_profile INTEGER NOT NULL DEFAULT 0,
    cached INTEGER NOT NULL DEFAULT 0,
    external_id TEXT
);
CREATE INDEX IF NOT EXISTS jobs_user_created ON jobs(user_id, created);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state);
"""

FINAL_STATES = ("done", "failed", "compile_error", "timeout", "killed", "cancelled", "error")


def init_schema(conn):
    conn.executescript(SCHEMA)
    conn.commit()


def _record(row):
    if row is None:
        return None
    r = dict(row)
    for k in _JSON:
        r[k] = json.loads(r[k]) if r[k] else []
    for k in ("trace", "profile", "truncated", "has_trace", "has_profile", "cached"):
        r[k] = bool(r[k])
    return r


class JobStore:
    def __init__(self, conn):
        self.conn = conn

    def insert(self, job_id, user_id, spec):
        self.conn.execute(
            "INSERT INTO jobs (id, user_id, state, message, created, backend, ranks, hosts, args,"
            " time_limit, main, trace, profile) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (job_id, user_id, "queued", "waiting", time.time(), spec.backend, spec.ranks,
             json.dumps(list(spec.hosts)), json.dumps(list(spec.args)), spec.time_limit,
             spec.main, int(spec.trace), int(spec.profile)))
        self.conn.commit()

    def update(self, job_id, **fields):
        if not fields:
            return
        cols, vals = [], []
        for k, v in fields.items():
            if k in _JSON:
                v = json.dumps(v)
            elif isinstance(v, bool):
                v = int(v)
            cols.append(f"{k} = ?")
            vals.append(v)
        vals.append(job_id)
        self.conn.execute(f"UPDATE jobs SET {', '.join(cols)} WHERE id = ?", vals)
        self.conn.commit()

    def get(self, job_id):
        return _record(self.conn.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone())

    def list(self, user_id=None, limit=50, before=None):
        q, a = "SELECT * FROM jobs WHERE 1=1", []
        if user_id is not None:
            q += " AND user_id = ?"
            a.append(user_id)
        if before is not None:
            q += " AND created < ?"
            a.append(float(before))
        q += " ORDER BY created DESC LIMIT ?"
        a.append(int(limit))
        return [_record(r) for r in self.conn.execute(q, a).fetchall()]

    def in_states(self, states):
        marks = ",".join("?" * len(states))
        rows = self.conn.execute(f"SELECT * FROM jobs WHERE state IN ({marks}) ORDER BY created",
                                 tuple(states)).fetchall()
        return [_record(r) for r in rows]


class EventLog:
    """A job's events.jsonl: appended line by line, read back from a sequence number."""

    def __init__(self, path):
        self.path = path
        self.seq = 0
        if path.exists():
            for ev in self.read():
                self.seq = ev["seq"]
        self._f = None

    def append(self, ev):
        self.seq += 1
        ev = {"seq": self.seq, "t": time.time(), **ev}
        if self._f is None:
            self._f = open(self.path, "a", encoding="utf-8")
        self._f.write(json.dumps(ev) + "\n")
        self._f.flush()
        return ev

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None

    def read(self, after=0):
        out = []
        try:
            with open(self.path, encoding="utf-8") as f:
                for line in f:
                    try:
                        ev = json.loads(line)
                    except ValueError:
                        continue        # a line cut by a crash
                    if ev["seq"] > after:
                        out.append(ev)
        except FileNotFoundError:
            pass
        return out
