"""JobManager: what the web layer calls to submit, follow, cancel and list jobs
(docs/plan-portal.md, "Contracts"), and the scheduler that runs them.

A job's life: submit() validates the request against the user's limits, writes its
sources into state/jobs/<id>/src/ and queues it; the scheduler (an asyncio task woken
by each submit and each job's end) starts jobs in the fair order of fairq.py while the
user is under their concurrent limit and the portal under its global cap; a started job
holds a uid of the pool for its whole life, is compiled (or taken from the compile
cache) and run in its sandbox (sandbox.py, cgroups.py), its output streamed line by
line into its event log and to whoever follows it; at its end every process is gone,
its work directory is the portal's again, and its output files are listed."""

import asyncio
import fcntl
import hashlib
import logging
import os
import re
import secrets
import shutil
import signal
import stat
import time
from pathlib import Path

from . import backends, cgroups, diag, sandbox, unpack
from .fairq import FairQueue
from .jobspec import JobError, JobSpec
from .jobstore import FINAL_STATES, EventLog, JobStore, init_schema

__all__ = ["JobManager", "JobSpec", "JobError", "init_schema"]

log = logging.getLogger("ferry_portal.jobs")

CFLAGS = ["-O2", "-g"]
LIBS = ["-lm"]                   # the maths library: examples and exercises use it
MACHINE_DIR = "/var/cache/ferry-portal"   # Ferry's machine calibration, read-only in jobs
COMPILE_LIMIT = 120              # seconds a compile may take
_RANK_LINE = re.compile(r"^\[(\d+)\] ?(.*)$", re.S)
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)*$")
_ID = re.compile(r"^[0-9a-f]{16}$")


def _limit(cfg, section, key, default):
    return getattr(getattr(cfg, section, None), key, default)


def _prog_name(src, main):
    """The compiled program's name in the work directory: the main file's name without
    .c (as a user would call it), unless the upload has something of that name."""
    stem = os.path.basename(main)[:-2] or "prog"
    return stem if not os.path.lexists(os.path.join(src, stem)) else stem + ".out"


def _kind(path):
    low = path.name.lower()
    for ext in ("png", "svg", "csv"):
        if low.endswith("." + ext):
            return ext
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
        head.decode("utf-8")
        return "binary" if b"\0" in head else "text"
    except (UnicodeDecodeError, OSError):
        return "binary"


class _Live:
    """What the manager holds of a job it is running: its events for followers, the
    process to kill, and why it is being killed."""

    def __init__(self, log_):
        self.log = log_
        self.events = log_.read()          # replay from memory: seq n is events[n-1]
        self.cond = asyncio.Condition()
        self.ended = False
        self.proc = None
        self.stop_reason = None            # (state, message) when cancelled or a limit hit
        self.kill = None                   # the function that ends every process
        self.task = None


class JobManager:
    def __init__(self, cfg, conn):
        self.cfg = cfg
        self.conn = conn
        init_schema(conn)
        self.store = JobStore(conn)
        self.state_dir = Path(os.path.expanduser(str(getattr(cfg, "state", "") or
                                                      "~/.local/state/ferry-portal")))
        self.jobs_dir = self.state_dir / "jobs"
        self.cache_dir = self.state_dir / "cache"
        prefix = getattr(cfg, "ferry_prefix", "") or os.environ.get("FERRY_PREFIX", "")
        if not prefix:
            raise JobError(None, "no Ferry prefix: set ferry_prefix in the configuration or "
                           "FERRY_PREFIX (where bin/mpicc and bin/mpiexec are)")
        self.prefix = os.path.realpath(prefix)
        for tool in ("mpicc", "mpiexec"):
            if not os.access(os.path.join(self.prefix, "bin", tool), os.X_OK):
                raise JobError(None, f"{self.prefix}/bin/{tool} is missing: ferry_prefix "
                               "must hold Ferry's bin/")
        self.root = sandbox.is_root()
        self.cg_mode = cgroups.detect() if self.root else None
        self.pool = sandbox.UidPool(_limit(cfg, "sandbox", "uid_base", 61000),
                                    _limit(cfg, "sandbox", "uid_count", 32)) if self.root else None
        running = _limit(cfg, "limits", "running_jobs", 0) or max(2, os.cpu_count() or 2)
        if self.pool is not None:
            if not self.pool.free:
                raise JobError(None, "the uid pool has no usable uid: every uid of [sandbox] "
                               "uid_base .. uid_base+uid_count-1 has a passwd entry")
            running = min(running, len(self.pool.free))
        self.max_running = running
        self.queue = FairQueue()
        self.live = {}                  # job id -> _Live, for jobs started by this process
        self.running = {}               # job id -> user id
        self.owners = {}                # job id -> user id, of queued jobs
        self.wake = asyncio.Event()
        self.started = asyncio.Condition()  # notified when a queued job starts or ends
        self.task = None
        self.slurm = backends.Slurm(cfg) if _limit(cfg, "slurm", "enabled", False) else None
        if not self.root:
            log.warning("%s: jobs run in bubblewrap with rlimits, without a uid of their own "
                        "and without cgroups", sandbox.REDUCED)
        elif self.cg_mode is None:
            log.warning("no usable cgroups: jobs run without memory/pids/cpu limits")
        else:
            log.info("sandbox: uid pool of %d, cgroups %s", len(self.pool.free), self.cg_mode)

    # -- the interface of the contract ------------------------------------------------

    async def start(self):
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.cache_dir, 0o700)
        if self.root:
            # Jobs' uids must pass through to bind their own work directory; they may
            # not list anything on the way (0711), and their sandbox shows none of it.
            for d in (self.state_dir, self.jobs_dir):
                os.chmod(d, 0o711)
            # bwrap runs as the job's uid: it must be able to pass through every
            # directory above the state dir and the prefix to bind them.
            for top in (self.state_dir.resolve(), Path(self.prefix)):
                for d in top.parents:
                    if not os.stat(d).st_mode & 0o001:
                        raise JobError(None, f"{d} is not searchable by others (o+x): the "
                                       f"jobs' uids cannot reach {top} through it")
        self._recover()
        await self._calibrate()
        self.task = asyncio.create_task(self._scheduler())
        self.wake.set()                 # jobs queued before a restart

    async def stop(self):
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
            self.task = None
        lives = [lv for lv in self.live.values() if lv.task]
        for lv in lives:
            lv.stop_reason = ("error", "the portal stopped")
            if lv.kill:
                lv.kill()
        for lv in lives:
            try:
                await lv.task
            except (asyncio.CancelledError, Exception):
                pass

    def submit(self, user_id, spec, source_text=None, upload=None):
        spec = self._validate(user_id, spec)
        if (source_text is None) == (upload is None):
            raise JobError("source", "give either the program's text or an upload")
        job_id = secrets.token_hex(8)
        jdir = self.jobs_dir / job_id
        src = jdir / "src"
        src.mkdir(parents=True)
        os.chmod(jdir, 0o711 if self.root else 0o700)
        os.chmod(src, 0o700)
        lim = self.cfg.limits
        try:
            if upload is not None:
                filename, data = upload
                if len(data) > _limit(self.cfg, "limits", "max_upload", 16 << 20):
                    raise JobError("upload", "the upload is larger than the limit of "
                                   f"{self.cfg.limits.max_upload} bytes")
                files = unpack.unpack(filename, data, str(src),
                                      _limit(self.cfg, "limits", "max_unpacked", 64 << 20),
                                      _limit(self.cfg, "limits", "max_members", 2000))
            else:
                if not isinstance(source_text, str) or not source_text.strip():
                    raise JobError("source", "the program is empty")
                data = source_text.encode("utf-8")
                if len(data) > getattr(lim, "max_upload", 16 << 20):
                    raise JobError("source", "the program is larger than the upload limit")
                name = spec.main or "main.c"
                unpack.unpack(name, data, str(src), len(data) + 1, 1)
                files = [name]
            spec.main = self._main_file(spec.main, files)
        except BaseException:
            shutil.rmtree(jdir, ignore_errors=True)
            raise
        self.store.insert(job_id, user_id, spec)
        EventLog(jdir / "events.jsonl").append(
            {"type": "state", "state": "queued", "message": "waiting"})
        self.queue.push(user_id, job_id)
        self.owners[job_id] = user_id
        self.wake.set()
        return job_id

    def get(self, job_id):
        if not isinstance(job_id, str) or not _ID.match(job_id):
            return None
        rec = self.store.get(job_id)
        if rec is None:
            return None
        return self._public(rec, self.queue.positions())

    def list(self, user_id=None, limit=50, before=None):
        limit = max(1, min(int(limit or 50), 500))
        pos = self.queue.positions()
        return [self._public(r, pos) for r in self.store.list(user_id, limit, before)]

    def owner(self, job_id):
        if not isinstance(job_id, str) or not _ID.match(job_id):
            return None
        rec = self.store.get(job_id)
        return rec["user_id"] if rec else None

    def cancel(self, job_id):
        if self.queue.remove(job_id):
            self.owners.pop(job_id, None)
            self._finish_unstarted(job_id, "cancelled", "cancelled before it started")
            self._notify(self.started)
            self.wake.set()
            return True
        lv = self.live.get(job_id)
        if lv is None or lv.ended:
            return False
        if lv.stop_reason is None:
            lv.stop_reason = ("cancelled", "cancelled by the user")
        if lv.kill:
            lv.kill()
        return True

    async def events(self, job_id, after=0):
        last = int(after or 0)
        if not isinstance(job_id, str) or not _ID.match(job_id):
            return
        jdir = self.jobs_dir / job_id
        if not jdir.is_dir():
            return
        while True:
            lv = self.live.get(job_id)
            if lv is None:
                rec = self.store.get(job_id)
                for ev in EventLog(jdir / "events.jsonl").read(last):
                    last = ev["seq"]
                    yield ev
                if rec is None or rec["state"] in FINAL_STATES:
                    return
                # Queued, not started yet: wait until the scheduler starts a job (or
                # one is cancelled); the timeout only guards against a missed wake-up.
                async with self.started:
                    try:
                        await asyncio.wait_for(self.started.wait(), 5)
                    except asyncio.TimeoutError:
                        pass
                continue
            for ev in lv.events[last:]:
                last = ev["seq"]
                yield ev
            if lv.ended:
                return
            async with lv.cond:
                await lv.cond.wait_for(lambda: len(lv.events) > last or lv.ended)

    def file_path(self, job_id, relpath):
        if not isinstance(job_id, str) or not _ID.match(job_id) or not isinstance(relpath, str):
            return None
        if job_id in self.live and not self.live[job_id].ended:
            return None       # still the job's: its uid could swap a file for a link
        work = (self.jobs_dir / job_id / "work")
        parts = [p for p in relpath.split("/") if p not in ("", ".")]
        if not parts or any(p == ".." or "\0" in p for p in parts):
            return None
        p = work
        for part in parts:
            p = p / part
            try:
                st = os.lstat(p)
            except OSError:
                return None
            if stat.S_ISLNK(st.st_mode):
                return None
        if not p.is_file():
            return None
        real = Path(os.path.realpath(p))
        if os.path.commonpath([real, os.path.realpath(work)]) != os.path.realpath(work):
            return None
        return real

    def queue_snapshot(self):
        pos = self.queue.positions()
        out = []
        for jid, uid in self.running.items():
            rec = self.store.get(jid)
            out.append({"id": jid, "user_id": uid, "state": rec["state"] if rec else "running",
                        "position": None, "ranks": rec["ranks"] if rec else None,
                        "created": rec["created"] if rec else None,
                        "started": rec["started"] if rec else None})
        for jid in self.queue.order():
            rec = self.store.get(jid)
            out.append({"id": jid, "user_id": self.owners.get(jid), "state": "queued",
                        "position": pos.get(jid), "ranks": rec["ranks"] if rec else None,
                        "created": rec["created"] if rec else None, "started": None})
        return out

    def backends(self):
        """The backends a job may ask for here (GET /api/me): local, then hosts when
        the administrator named hosts, then slurm when enabled."""
        return ["local"] + (["hosts"] if _limit(self.cfg, "hosts", "names", []) else []) + \
            (["slurm"] if self.slurm else [])

    # -- validation ---------------------------------------------------------------------

    def _validate(self, user_id, spec):
        lim = self.cfg.limits
        if not isinstance(spec, JobSpec):
            raise JobError(None, "bad job request")
        backs = self.backends()
        if spec.backend not in backs:
            raise JobError("backend", f"backend must be one of: {', '.join(backs)}")
        if not isinstance(spec.ranks, int) or isinstance(spec.ranks, bool) or \
                not 1 <= spec.ranks <= lim.max_ranks:
            raise JobError("ranks", f"ranks must be from 1 to {lim.max_ranks}")
        tl = spec.time_limit or lim.default_time
        if not isinstance(tl, int) or isinstance(tl, bool) or not 1 <= tl <= lim.max_time:
            raise JobError("time_limit", f"time_limit must be from 1 to {lim.max_time} seconds")
        spec.time_limit = tl
        hosts = list(spec.hosts or [])
        known = list(_limit(self.cfg, "hosts", "names", []))
        for h in hosts:
            if h not in known:
                raise JobError("hosts", f"unknown host '{h}'" +
                               (f" (configured: {', '.join(known)})" if known else
                                " (no hosts are configured)"))
        if spec.backend == "hosts" and not hosts:
            hosts = known
        if spec.backend != "hosts" and hosts:
            raise JobError("hosts", "hosts are chosen only with the 'hosts' backend")
        spec.hosts = hosts
        args = list(spec.args or [])
        if len(args) > 256 or any(not isinstance(a, str) or "\0" in a or len(a) > 4096
                                  for a in args):
            raise JobError("args", "at most 256 arguments of at most 4096 characters each")
        spec.args = args
        if spec.main is not None and (not isinstance(spec.main, str) or not spec.main or
                                      not _NAME.match(spec.main) or not spec.main.endswith(".c")
                                      or ".." in spec.main.split("/")):
            raise JobError("main", "main must be the relative name of a .c file")
        if self.queue.waiting(user_id) >= lim.max_queued:
            raise JobError(None, f"you have {lim.max_queued} jobs waiting already (the limit)")
        spec.trace = bool(spec.trace)
        if spec.trace and spec.backend != "local":
            # mpiexec names the trace directory by its path on the portal's host, which
            # the ranks' sandboxes on other hosts do not show.
            raise JobError("trace", "tracing is available for local jobs only")
        spec.profile = bool(spec.profile)
        return spec

    @staticmethod
    def _main_file(main, files):
        cfiles = [f for f in files if f.endswith(".c")]
        if main:
            if main not in files:
                raise JobError("main", f"'{main}' is not among the uploaded files")
            return main
        if len(cfiles) == 1:
            return cfiles[0]
        if "main.c" in files:
            return "main.c"
        if not cfiles:
            raise JobError("upload", "the upload holds no .c file")
        raise JobError("main", "several .c files and none is main.c: name the main file")

    # -- records ------------------------------------------------------------------------

    def _public(self, rec, positions):
        out = {k: rec[k] for k in (
            "id", "user_id", "state", "message", "created", "started", "finished", "backend",
            "ranks", "hosts", "args", "time_limit", "main", "exit_code", "diagnostics", "files",
            "output_bytes", "truncated", "has_trace", "has_profile", "cached")}
        out["position"] = positions.get(rec["id"]) if rec["state"] == "queued" else None
        out["trace"] = rec["trace"]
        out["profile"] = rec["profile"]
        return out

    def _emit(self, job_id, ev, lv=None):
        lv = lv or self.live.get(job_id)
        if lv is None:
            return EventLog(self.jobs_dir / job_id / "events.jsonl").append(ev)
        ev = lv.log.append(ev)
        lv.events.append(ev)
        self._notify(lv)
        return ev

    @staticmethod
    def _notify(lv_or_cond):
        cond = getattr(lv_or_cond, "cond", lv_or_cond)

        async def note():
            async with cond:
                cond.notify_all()
        asyncio.get_running_loop().create_task(note())

    def _set_state(self, job_id, state, message="", **fields):
        self.store.update(job_id, state=state, message=message, **fields)
        self._emit(job_id, {"type": "state", "state": state, "message": message})

    def _finish_unstarted(self, job_id, state, message):
        now = time.time()
        self.store.update(job_id, state=state, message=message, finished=now)
        lg = EventLog(self.jobs_dir / job_id / "events.jsonl")
        lg.append({"type": "state", "state": state, "message": message})
        lg.append({"type": "end", "state": state, "message": message, "exit_code": None})
        lg.close()

    def _recover(self):
        """After a restart: jobs that were being compiled or run are lost (their
        processes died with the portal, or are killed now); queued ones queue again."""
        lost = self.store.in_states(["running", "compiling"])
        if self.cg_mode:
            cgroups.sweep(self.cg_mode, [f"job-{r['id']}" for r in lost])
        for r in lost:
            self._finish_unstarted(r["id"], "error", "the portal restarted")
        for r in self.store.in_states(["queued"]):
            if r["id"] not in self.owners:
                self.queue.push(r["user_id"], r["id"])
                self.owners[r["id"]] = r["user_id"]

    # -- the scheduler ------------------------------------------------------------------

    async def _scheduler(self):
        while True:
            await self.wake.wait()
            self.wake.clear()
            while len(self.running) < self.max_running:
                per_user = {}
                for u in self.running.values():
                    per_user[u] = per_user.get(u, 0) + 1
                cap = self.cfg.limits.concurrent_jobs
                jid = self.queue.pick(lambda u: per_user.get(u, 0) < cap)
                if jid is None:
                    break
                uid = self.owners.pop(jid)
                self.running[jid] = uid
                lv = _Live(EventLog(self.jobs_dir / jid / "events.jsonl"))
                self.live[jid] = lv
                lv.task = asyncio.create_task(self._job(jid, lv))
                self._notify(self.started)

    async def _job(self, job_id, lv):
        rec = self.store.get(job_id)
        try:
            await self._run(job_id, rec, lv)
        except Exception as e:   # the portal's fault: say what, keep serving
            log.exception("job %s", job_id)
            self._end(job_id, lv, "error", f"internal error: {e}", None)
        finally:
            lv.ended = True
            lv.log.close()
            self._notify(lv)
            self.running.pop(job_id, None)
            self.live.pop(job_id, None)
            self.wake.set()

    def _end(self, job_id, lv, state, message, exit_code, **fields):
        if not self.root:
            message = f"{message}; {sandbox.REDUCED}" if message else sandbox.REDUCED
        now = time.time()
        self.store.update(job_id, state=state, message=message, exit_code=exit_code,
                          finished=now, **fields)
        self._emit(job_id, {"type": "state", "state": state, "message": message}, lv)
        self._emit(job_id, {"type": "end", "state": state, "message": message,
                            "exit_code": exit_code}, lv)

    # -- one job ------------------------------------------------------------------------

    async def _run(self, job_id, rec, lv):
        jdir = self.jobs_dir / job_id
        work = jdir / "work"
        uid = lock = cg = None
        spec = JobSpec(backend=rec["backend"], ranks=rec["ranks"], hosts=rec["hosts"],
                       args=rec["args"], time_limit=rec["time_limit"], main=rec["main"],
                       trace=rec["trace"], profile=rec["profile"])
        outcome = None
        try:
            if self.root:
                uid, lock = await self._take_uid()
                if self.cg_mode:
                    sb = self.cfg.sandbox
                    cg = cgroups.JobCgroup(self.cg_mode, f"job-{job_id}", sb.memory, sb.pids,
                                           sb.cpu_quota)
            if work.exists():
                shutil.rmtree(work)
            shutil.copytree(jdir / "src", work, symlinks=True)
            if uid is not None:
                sandbox.chown_tree(work, uid, uid, 0o700)
            box = self._sandbox(work, uid, cg, spec)
            lv.kill = lambda: self._kill(lv, uid, cg)
            deadline = None
            self._set_state(job_id, "compiling", "compiling")
            outcome = await self._compile(job_id, lv, box, jdir, work, spec)
            if outcome is None:
                self.store.update(job_id, started=time.time())
                self._set_state(job_id, "running", f"running on {spec.ranks} ranks")
                deadline = time.monotonic() + spec.time_limit
                outcome = await self._execute(job_id, lv, box, spec, deadline, cg)
                if spec.trace and outcome[0] in ("done", "failed") and (work / "trace").is_dir():
                    await self._view(job_id, lv, box)
        finally:
            await asyncio.to_thread(self._cleanup, uid, cg)
            if uid is not None and work.is_dir():
                sandbox.chown_tree(work, os.getuid(), os.getgid(), 0o700)
            if cg is not None:
                cg.remove()
            if uid is not None:
                self.pool.give_back(uid)
                os.close(lock)
        if outcome is None:
            return
        state, message, code, extra = outcome
        fields = dict(extra)
        if state != "compile_error" and work.is_dir():
            fields.update(self._results(work, spec, jdir))
            self._emit(job_id, {"type": "files", "files": fields["files"]}, lv)
        self._end(job_id, lv, state, message, code, **fields)

    async def _calibrate(self):
        """Ferry measures the machine on a job's first MPI_Init (0.3-0.5 s) and keeps it
        in $XDG_CACHE_HOME/ferry; a job's $HOME is fresh each time, so every job would pay
        it. The portal measures once, in the same sandbox view (the file's key depends on
        what /sys shows), and jobs get it read-only: they cannot alter what others read."""
        mdir = self.state_dir / "machine"
        mdir.mkdir(exist_ok=True)
        os.chmod(mdir, 0o755)
        # Run each start: quick when the file is there and still this machine's (Ferry
        # checks its key: another kernel or CPU count means a new measurement).
        box = sandbox.Sandbox(self.prefix, mdir, extra_env={"XDG_CACHE_HOME": sandbox.JOB_DIR})
        lv = _Live(EventLog(mdir / "calibrate.log"))
        proc = await self._spawn(lv, box, [os.path.join(self.prefix, "bin", "ferry"), "info"])
        await self._wait(lv, proc, [proc.stdout.read(), proc.stderr.read()],
                         time.monotonic() + 60)
        for root, dirs, files in os.walk(mdir):
            for n in dirs:
                os.chmod(os.path.join(root, n), 0o755)
            for n in files:
                os.chmod(os.path.join(root, n), 0o644)
        if not any(mdir.glob("ferry/machine-*")):
            log.warning("ferry info wrote no machine file: each job measures the machine")

    async def _take_uid(self):
        """A uid of the pool, locked against other portals of this machine (their own
        pool may overlap); waits if all are taken, which the global cap makes rare."""
        os.makedirs("/run/ferry-portal", exist_ok=True)
        while True:
            for _ in range(len(self.pool.free)):
                uid = self.pool.take()
                if uid is None:
                    break
                fd = os.open(f"/run/ferry-portal/uid-{uid}.lock", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    if not sandbox.UidPool.has_processes(uid):
                        return uid, fd
                except OSError:
                    pass
                os.close(fd)
                self.pool.give_back(uid)
            await asyncio.sleep(0.2)

    def _sandbox(self, work, uid, cg, spec):
        sb = getattr(self.cfg, "sandbox", None)
        limits = {"file_size": getattr(sb, "file_size", 256 << 20),
                  "nproc": getattr(sb, "pids", 256) + 16}
        extra_ro = [(str(self.state_dir / "machine"), MACHINE_DIR)]
        share = False
        return sandbox.Sandbox(self.prefix, work, uid, cg, limits, share_net=share,
                               extra_ro=extra_ro, extra_env={"XDG_CACHE_HOME": MACHINE_DIR})

    def _kill(self, lv, uid, cg):
        """Ends every process of the job, now."""
        if cg is not None and cg.kill():
            pass
        elif uid is not None:
            sandbox.kill_uid(uid)
        if lv.proc is not None and lv.proc.returncode is None:
            try:
                os.killpg(lv.proc.pid, 9)
            except ProcessLookupError:
                pass

    def _cleanup(self, uid, cg):
        """After the job's last command: nothing of it may survive (a daemonised child
        included) before its uid goes back to the pool."""
        if cg is not None:
            if cg.pids_in():
                if not cg.kill() and uid is not None:
                    sandbox.kill_uid(uid)
            cg.wait_empty()
        if uid is not None:
            for _ in range(200):
                if not sandbox.UidPool.has_processes(uid):
                    break
                sandbox.kill_uid(uid)
                time.sleep(0.01)

    async def _spawn(self, lv, box, argv):
        proc = await asyncio.create_subprocess_exec(
            *box.command(argv), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin"}, preexec_fn=box.preexec(), start_new_session=True,
            limit=1 << 20)
        lv.proc = proc
        return proc

    async def _spawn_outside(self, lv, box, argv):
        """mpiexec for a job across hosts: in the job's cgroup (so cgroup.kill ends it and
        its local proxy), in the work directory, with the portal's environment (the
        launcher's agent may need it; -genvnone keeps it from the ranks)."""
        procs = box.cgroup.procs if box.cgroup else []

        def join():
            pid = str(os.getpid()).encode()
            for p in procs:
                fd = os.open(p, os.O_WRONLY)
                os.write(fd, pid)
                os.close(fd)
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, cwd=str(box.work), preexec_fn=join,
            start_new_session=True, limit=1 << 20)
        lv.proc = proc
        return proc

    async def _lines(self, stream, on_line):
        while True:
            try:
                line = await stream.readline()
            except ValueError:            # longer than the limit: take it in pieces
                line = await stream.read(1 << 20)
            if not line:
                return
            on_line(line.decode("utf-8", "replace").rstrip("\n"))

    async def _wait(self, lv, proc, readers, deadline, cg=None):
        """Waits for the command and its output; kills it at the deadline, or when the
        job reaches its process limit (checked while it runs: a fork bomb does not end
        by itself). Returns True if the deadline passed."""
        tasks = [asyncio.ensure_future(proc.wait())] + [asyncio.ensure_future(r) for r in readers]
        watch = asyncio.ensure_future(self._watch_pids(lv, cg)) if cg is not None else None
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            done, pending = await asyncio.wait(tasks, timeout=timeout)
            late = bool(pending)
            if late:
                if lv.kill:
                    lv.kill()
                # The output the job wrote before it died is still read, briefly.
                done, pending = await asyncio.wait(tasks, timeout=5)
                for t in pending:
                    t.cancel()
                await proc.wait()
            return late
        finally:
            if watch is not None:
                watch.cancel()

    async def _watch_pids(self, lv, cg):
        while True:
            await asyncio.sleep(0.25)
            if "pids" in cg.limits_hit():
                if lv.stop_reason is None:
                    lv.stop_reason = ("killed", "killed: the process limit of "
                                      f"{self.cfg.sandbox.pids} was reached")
                if lv.kill:
                    lv.kill()
                return

    async def _compile(self, job_id, lv, box, jdir, work, spec):
        main_dir = os.path.dirname(spec.main)
        sources = sorted(str(p.relative_to(work)) for p in (work / main_dir).glob("*.c"))
        mpicc = os.path.join(self.prefix, "bin", "mpicc")
        prog = _prog_name(jdir / "src", spec.main)
        key = self._cache_key(jdir / "src", mpicc)
        cached = self.cache_dir / key
        if cached.is_file():
            dst = work / prog
            shutil.copyfile(cached, dst)
            os.chmod(dst, 0o755)
            if box.uid is not None:
                os.chown(dst, box.uid, box.uid)
            self.store.update(job_id, cached=True)
            self._emit(job_id, {"type": "compile", "text": "cached: the compiler was skipped"}, lv)
            return None
        text = []

        def on_line(line):
            text.append(line)
            self._emit(job_id, {"type": "compile", "text": line}, lv)
        argv = [mpicc, *CFLAGS, "-o", prog, *sources, *LIBS]
        self._emit(job_id, {"type": "compile",
                            "text": "mpicc " + " ".join(CFLAGS + sources + LIBS)}, lv)
        proc = await self._spawn(lv, box, argv)
        late = await self._wait(lv, proc, [self._lines(proc.stdout, on_line),
                                           self._lines(proc.stderr, on_line)],
                                time.monotonic() + COMPILE_LIMIT)
        lv.proc = None
        if lv.stop_reason:
            state, msg = lv.stop_reason
            return state, msg, None, {}
        if late:
            return "killed", f"the compiler took longer than {COMPILE_LIMIT} s", None, {}
        diags = diag.parse("\n".join(text))
        if proc.returncode != 0:
            sandbox_fault = [t for t in text if t.startswith("bwrap: ")]
            if not diags and sandbox_fault:
                # The sandbox could not start the compiler: the portal's fault (its prefix or
                # binds), not the program's; say so instead of blaming line 0 of main.c.
                log.error("job %s: %s", job_id, sandbox_fault[0])
                return "error", "the portal could not start the compiler in the sandbox: " \
                    + sandbox_fault[0], None, {}
            if not diags:
                diags = [{"file": spec.main, "line": 0, "col": 0, "severity": "error",
                          "message": (text[-1] if text else f"the compiler failed "
                                      f"(status {proc.returncode})")}]
            self.store.update(job_id, diagnostics=diags)
            self._emit(job_id, {"type": "diag", "diagnostics": diags}, lv)
            n = sum(d["severity"] == "error" for d in diags)
            return "compile_error", f"{n} compile error{'s' if n != 1 else ''}", None, \
                {"diagnostics": diags}
        if diags:
            self.store.update(job_id, diagnostics=diags)
            self._emit(job_id, {"type": "diag", "diagnostics": diags}, lv)
        tmp = self.cache_dir / f".{key}.{job_id}"
        shutil.copyfile(work / prog, tmp)
        os.chmod(tmp, 0o755)
        os.replace(tmp, cached)
        return None

    def _cache_key(self, src, mpicc):
        h = hashlib.sha256()
        for p in sorted(src.rglob("*")):
            if p.is_file() and p.suffix in (".c", ".h"):
                rel = str(p.relative_to(src)).encode()
                h.update(len(rel).to_bytes(8, "little") + rel)
                data = p.read_bytes()
                h.update(len(data).to_bytes(8, "little") + data)
        st = os.stat(mpicc)
        h.update(f"\0{mpicc}\0{st.st_mtime_ns}\0{' '.join(CFLAGS + LIBS)}".encode())
        return h.hexdigest()

    async def _execute(self, job_id, lv, box, spec, deadline, cg):
        max_out = self.cfg.limits.max_output
        acc = {"bytes": 0, "truncated": False, "tail": []}

        def sink(stream):
            def on_line(line):
                m = _RANK_LINE.match(line)
                rank, text = (int(m.group(1)), m.group(2)) if m else (-1, line)
                if stream == "stderr":
                    acc["tail"] = (acc["tail"] + [(rank, text)])[-20:]
                if acc["truncated"]:
                    return
                n = len(text.encode("utf-8", "replace")) + 1
                if acc["bytes"] + n > max_out:
                    acc["truncated"] = True
                    if lv.stop_reason is None:
                        lv.stop_reason = ("killed", f"the output passed the limit of {max_out} "
                                          "bytes: the job was stopped")
                    if lv.kill:
                        lv.kill()
                    return
                acc["bytes"] += n
                self._emit(job_id, {"type": "out", "rank": rank, "stream": stream,
                                    "text": text}, lv)
            return on_line
        prog = _prog_name(self.jobs_dir / job_id / "src", spec.main)
        if spec.backend == "slurm":
            code, late = await self.slurm.run(lv, box, spec, f"{sandbox.JOB_DIR}/{prog}",
                                              self.jobs_dir / job_id, deadline, sink("stdout"),
                                              sink("stderr"))
        else:
            if spec.backend == "hosts":
                argv = backends.hosts_argv(self.cfg, self.prefix, spec, box,
                                           f"{sandbox.JOB_DIR}/{prog}")
                proc = await self._spawn_outside(lv, box, argv)
            else:
                argv = backends.mpiexec_argv(self.cfg, self.prefix, spec, "./" + prog)
                proc = await self._spawn(lv, box, argv)
            late = await self._wait(lv, proc, [self._lines(proc.stdout, sink("stdout")),
                                               self._lines(proc.stderr, sink("stderr"))],
                                    deadline, cg)
            code = proc.returncode
        lv.proc = None
        extra = {"output_bytes": acc["bytes"], "truncated": acc["truncated"]}
        hit = cg.limits_hit() if cg is not None else ()
        if lv.stop_reason:
            state, msg = lv.stop_reason
            return state, msg, code, extra
        sb = self.cfg.sandbox
        if hit and (code != 0 or late):
            names = {"pids": f"the process limit of {sb.pids}",
                     "memory": f"the memory limit of {sb.memory // (1 << 20)} MiB"}
            reached = " and ".join(names[h] for h in hit)
            msg = f"killed: {reached} {'were' if len(hit) > 1 else 'was'} reached"
            return "killed", msg, code, extra
        if late:
            return "timeout", f"killed at its time limit of {spec.time_limit} s", code, extra
        if code == 128 + signal.SIGXFSZ or any(f"signal {int(signal.SIGXFSZ)}" in t
                                               for _, t in acc["tail"]):
            return "killed", f"killed: the file size limit of {sb.file_size} bytes was " \
                "reached", code, extra
        if code == 0:
            msg = "done"
            if "pids" in hit:
                msg = f"done (the process limit of {sb.pids} was reached)"
            return "done", msg, code, extra
        own = [t for r, t in acc["tail"] if r == -1] or [t for _, t in acc["tail"]]
        why = "; ".join(own[-3:])
        msg = f"exit status {code}" if code is not None and code >= 0 else \
            f"killed by signal {-code}"
        return "failed", f"{msg}: {why}" if why else msg, code, extra

    async def _view(self, job_id, lv, box):
        ferry = os.path.join(self.prefix, "bin", "ferry")
        proc = await self._spawn(lv, box, [ferry, "view", "trace", "-o", "trace.html"])
        out = []
        await self._wait(lv, proc, [self._lines(proc.stdout, out.append),
                                    self._lines(proc.stderr, out.append)],
                         time.monotonic() + 60)
        lv.proc = None
        if proc.returncode != 0:
            self._emit(job_id, {"type": "compile",
                                "text": "ferry view failed: " + "; ".join(out[-3:])}, lv)

    def _results(self, work, spec, jdir):
        """The job's output files (not its sources, binary or trace directory), its
        profile text as profile.txt, and whether it has a trace page."""
        src = jdir / "src"
        prog = _prog_name(src, spec.main)
        srcs = {str(p.relative_to(src)) for p in src.rglob("*") if p.is_file()}
        # mpiexec --profile writes <prog>.<n>.<job>.profile.txt; with --trace it is
        # trace/profile.txt. Kept as profile.txt at the top (what /profile serves).
        profiles = [] if not (spec.profile or spec.trace) else \
            [p for p in [work / "trace" / "profile.txt", *sorted(work.glob("*.profile.txt"))]
             if p.is_file() and not p.is_symlink()]
        has_profile = False
        if profiles and not os.path.lexists(work / "profile.txt"):
            shutil.copyfile(profiles[0], work / "profile.txt")
            has_profile = True
        files = []
        for p in sorted(work.rglob("*")):
            rel = str(p.relative_to(work))
            if rel == prog or rel in srcs or rel == "trace" or rel.startswith("trace/") \
                    or p.is_symlink() or not p.is_file():
                continue
            files.append({"path": rel, "size": p.stat().st_size, "kind": _kind(p)})
            if len(files) >= 1000:
                break
        return {"files": files, "has_profile": has_profile,
                "has_trace": (work / "trace.html").is_file()}
