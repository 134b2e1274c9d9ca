#!/usr/bin/env python3
"""Ferry's test runner: unit tests, MPI program tests and script tests.

    python3 tests/run.py --build build [--build-asan build-asan] [--filter REGEX] [-j N]
                         [--mpicc CMD --mpiexec CMD] [--placements tcp,2x2,4x1,slurm|none]
                         [--log FILE]

See tests/README.md for the list format and how to add a test. Python 3 standard library only.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_DIR = os.path.join(SRC, "tests", "mpi")
TESTLIST = os.path.join(MPI_DIR, "testlist")

DEFAULT_TIMEOUT = 60.0
BIG_NPROCS = 4          # MPI tests with this many ranks or more run alone (2-core machines)
TAIL_LINES = 30         # lines of output shown under a failing test
LOG_LIMIT = 256 * 1024  # bytes of one test's output kept in the log
OUTPUT_LIMIT = 4 << 20  # bytes of one test's output read back at all
COMPILE_FLAGS = ["-O1", "-g", "-Wall", "-Wextra", "-pthread"]
ASAN_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
ASAN_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:halt_on_error=1:exitcode=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}


# Every MPI program that runs at 4 ranks runs again in these placements (issue 12): over TCP on
# this machine, and on the test hosts (tests/hosts/fy_hosts) as 2 hosts x 2 ranks and 4 x 1.
# `slurm` (asked for by name, issue 13) runs them under srun on a Slurm of 2 test hosts
# (tests/hosts/fy_slurm), 2 ranks per node, with their PMI served by Slurm's slurmstepd; a rank
# that fails ends the step at once (--kill-on-bad-exit) rather than at the timeout. `slurm-pmix`
# is the same with Slurm's PMIx plugin serving them (the library's PMIx client, libpmix).
PLACEMENTS = {
    "tcp": {"env": {"FERRY_NETMOD": "tcp"}},
    "2x2": {"hosts": "fyh1:2,fyh2:2"},
    "4x1": {"hosts": "fyh1,fyh2,fyh3,fyh4"},
    "slurm": {"srun": ["srun", "--mpi=pmi2", "-N2", "--ntasks-per-node=2", "--kill-on-bad-exit=1"]},
    "slurm-pmix": {"srun": ["srun", "--mpi=pmix", "-N2", "--ntasks-per-node=2",
                            "--kill-on-bad-exit=1"]},
}
DEFAULT_PLACEMENTS = "tcp,2x2,4x1"
PLACED_NPROCS = 4
SLURM_NODES = 2


class Cluster:
    """The test hosts the placements on hosts run on (tool fy_hosts), or a Slurm on test hosts
    (fy_slurm): up before the tests, down after."""

    def __init__(self, tool="fy_hosts"):
        self.tool = os.path.join(SRC, "tests", "hosts", tool)
        self.dir = None

    def up(self, n):
        self.dir = tempfile.mkdtemp(prefix="fy-run-hosts-")
        os.rmdir(self.dir)  # the tool makes it
        r = subprocess.run([self.tool, "up", str(n), self.dir], capture_output=True, text=True)
        if r.returncode != 0:
            self.dir = None
            return r.stderr.strip() or f"{os.path.basename(self.tool)} up failed"
        return None

    def down(self):
        if self.dir:
            subprocess.run([self.tool, "down", self.dir])
            self.dir = None


def hosts_unavailable():
    """Why the test hosts cannot be made here, or None."""
    if os.geteuid() != 0:
        return "the test hosts need root (network namespaces)"
    for t in ("ip", "unshare", "nsenter"):
        if not shutil.which(t):
            return f"{t} is missing"
    return None


def slurm_unavailable():
    """Why a Slurm on test hosts cannot be made here, or None."""
    why = hosts_unavailable()
    if why:
        return why
    for t in ("munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo"):
        if not shutil.which(t, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin"):
            return f"{t} is missing (scripts/install-deps.sh test installs Slurm)"
    return None


class Test:
    """One thing to run. kind is 'unit', 'mpi' or 'script'."""

    def __init__(self, name, kind, argv, timeout, env=None, nprocs=0, prog=None, cwd_temp=False):
        self.name = name
        self.kind = kind
        self.argv = argv
        self.timeout = timeout
        self.env = env or {}
        self.nprocs = nprocs
        self.prog = prog            # Program to compile first (MPI tests)
        self.cwd_temp = cwd_temp
        self.passed = False
        self.skipped = ""   # a script test that exited 77: its SKIP line
        self.reason = ""
        self.output = ""
        self.elapsed = 0.0

    @property
    def exclusive(self):
        return self.kind == "mpi" and self.nprocs >= BIG_NPROCS

    @property
    def uses_cores(self):
        return self.kind in ("mpi", "script")


class Program:
    """One tests/mpi/<name>.c compiled for one build."""

    def __init__(self, name, src, exe, cc_argv, deps, libs=()):
        self.name = name
        self.libs = list(libs)      # -lNAME for each link=NAME of its testlist lines
        self.src = src
        self.exe = exe
        self.cc_argv = cc_argv
        self.deps = deps
        self.ok = None
        self.output = ""
        self.rebuilt = False

    def command(self):
        return self.cc_argv + ["-o", self.exe, self.src] + self.libs

    def up_to_date(self):
        stamp = self.exe + ".cmd"
        try:
            exe_time = os.stat(self.exe).st_mtime
            with open(stamp) as f:
                if f.read() != shlex.join(self.command()):
                    return False
        except OSError:
            return False
        for dep in self.deps:
            try:
                if os.stat(dep).st_mtime > exe_time:
                    return False
            except OSError:
                pass
        return True

    def build(self):
        if self.up_to_date():
            self.ok = True
            return
        os.makedirs(os.path.dirname(self.exe), exist_ok=True)
        cmd = self.command()
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, timeout=120)
            out = r.stdout.decode(errors="replace")
            self.ok = r.returncode == 0
        except (OSError, subprocess.TimeoutExpired) as e:
            out = str(e)
            self.ok = False
        self.output = "$ " + shlex.join(cmd) + "\n" + out
        self.rebuilt = True
        if self.ok:
            with open(self.exe + ".cmd", "w") as f:
                f.write(shlex.join(cmd))


def parse_testlist(path):
    """Yield (lineno, name, nprocs, env dict, timeout, libs) for each line of the list."""
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) < 2 or not words[1].isdigit():
                raise SystemExit(f"{path}:{lineno}: expected 'name nprocs [env=K=V]... [timeout=S]'")
            env, timeout, libs = {}, DEFAULT_TIMEOUT, []
            for w in words[2:]:
                if w.startswith("env=") and "=" in w[4:]:
                    k, v = w[4:].split("=", 1)
                    env[k] = v
                elif w.startswith("timeout="):
                    timeout = float(w[8:])
                elif w.startswith("link=") and len(w) > 5:
                    libs.append("-l" + w[5:])   # a library of the build (e.g. ferry_farm)
                else:
                    raise SystemExit(f"{path}:{lineno}: unknown word '{w}'")
            yield lineno, words[0], int(words[1]), env, timeout, libs


def library_deps(build):
    """Files whose change means every MPI test program must be relinked."""
    deps = []
    for sub in ("lib", "include"):
        d = os.path.join(build, sub)
        if os.path.isdir(d):
            for root, _, files in os.walk(d):
                deps += [os.path.join(root, f) for f in files]
    deps.append(os.path.join(build, "bin", "mpicc"))
    return deps


def script_timeout(path):
    try:
        with open(path, errors="replace") as f:
            for _, line in zip(range(10), f):
                m = re.match(r"\s*#\s*timeout:\s*([0-9.]+)", line)
                if m:
                    return float(m.group(1))
    except OSError:
        pass
    return DEFAULT_TIMEOUT


def collect(args):
    """Build the list of tests and the programs they need."""
    tests, programs = [], {}
    override = bool(args.mpicc or args.mpiexec)
    builds = [("", args.build, False)]
    if args.build_asan and not override:
        builds.append(("asan:", args.build_asan, True))

    for prefix, build, asan in builds:
        env = dict(ASAN_ENV) if asan else {}
        env = {k: os.environ.get(k, v) for k, v in env.items()}
        scale = args.timeout_scale * (2.0 if asan else 1.0)

        if not override:
            unit_dir = os.path.join(build, "tests", "unit")
            if os.path.isdir(unit_dir):
                for f in sorted(os.listdir(unit_dir)):
                    p = os.path.join(unit_dir, f)
                    if f.startswith("test_") and os.path.isfile(p) and os.access(p, os.X_OK):
                        tests.append(Test(f"{prefix}unit/{f}", "unit", [p], 60.0 * scale, env))

        mpicc = shlex.split(args.mpicc) if args.mpicc else [os.path.join(build, "bin", "mpicc")]
        mpiexec = shlex.split(args.mpiexec) if args.mpiexec else [os.path.join(build, "bin", "mpiexec")]
        cc_argv = mpicc + COMPILE_FLAGS + (ASAN_FLAGS if asan else [])
        deps = [] if override else library_deps(build)
        deps += [os.path.join(MPI_DIR, f) for f in os.listdir(MPI_DIR) if f.endswith(".h")]
        for _, name, nprocs, tenv, timeout, libs in parse_testlist(TESTLIST):
            if libs and override:
                continue    # a Ferry library: not there for another MPI
            key = (build, name)
            if key not in programs:
                src = os.path.join(MPI_DIR, name + ".c")
                exe = os.path.join(build, "tests", "mpi", name)
                programs[key] = Program(name, src, exe, cc_argv, [src] + deps, libs)
            suffix = "".join(f",{k}={v}" for k, v in tenv.items())
            display = f"{prefix}mpi/{name}@{nprocs}{suffix}"
            argv = mpiexec + ["-n", str(nprocs), programs[key].exe]
            tests.append(Test(display, "mpi", argv, timeout * scale, {**env, **tenv},
                              nprocs=nprocs, prog=programs[key]))
            if nprocs != PLACED_NPROCS or tenv or override:
                continue
            for pl in args.placement_list:
                spec = PLACEMENTS[pl]
                pargv = list(mpiexec)
                penv = {**env, **spec.get("env", {})}
                if "hosts" in spec:
                    pargv += ["-launcher-exec", os.path.join(SRC, "tests", "hosts", "fy_hosts_agent"),
                              "-hosts", spec["hosts"]]
                    penv["FY_HOSTS_DIR"] = CLUSTER_DIR
                if "srun" in spec:
                    pargv = list(spec["srun"])
                    penv["SLURM_CONF"] = ""     # set once the cluster is up
                tests.append(Test(f"{display},{pl}", "mpi", pargv + ["-n", str(nprocs), programs[key].exe],
                                  timeout * scale * 2, penv, nprocs=nprocs, prog=programs[key]))

    if not override:
        build_abs = os.path.abspath(args.build)
        tests_dir = os.path.join(SRC, "tests")
        for sub in sorted(os.listdir(tests_dir)):
            d = os.path.join(tests_dir, sub)
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                if f.endswith(".sh") and os.path.isfile(p) and os.access(p, os.X_OK):
                    env = {"FY_BUILD": build_abs, "FY_SRC": SRC}
                    tests.append(Test(f"{sub}/{f}", "script", [p],
                                      script_timeout(p) * args.timeout_scale, env, cwd_temp=True))

    if args.filter:
        rx = re.compile(args.filter)
        tests = [t for t in tests if rx.search(t.name)]
    needed = {id(t.prog) for t in tests if t.prog}
    return tests, [p for p in programs.values() if id(p) in needed]


def descendants(pid):
    """Process ids below pid (read from /proc), so that children which left the process group
    (setsid, a launcher's daemons) are killed too."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def group_alive(pgid):
    """Whether a process of group pgid still runs (zombies, unreaped by us, do not count)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
        except (OSError, ValueError, IndexError):
            continue
    return False


TERM_GRACE = 5.0  # seconds a timed-out test has to clean up after SIGTERM (its test hosts)


def kill_group(pid):
    """SIGTERM the test's process group, so that a script can take down what it made (test
    hosts are namespaces: SIGKILL alone left them behind), then after TERM_GRACE seconds, or
    at once when the group is gone, SIGKILL it and every process below it."""
    procs = descendants(pid) if os.path.isdir("/proc") else []
    try:
        os.killpg(pid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE
        while time.monotonic() < deadline and group_alive(pid):
            time.sleep(0.05)
    except (ProcessLookupError, PermissionError):
        pass
    procs += [p for p in (descendants(pid) if os.path.isdir("/proc") else []) if p not in procs]
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for p in procs:
        try:
            os.kill(p, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


RUNNING = set()                 # process ids of the tests running now (for Ctrl-C)
RUNNING_LOCK = threading.Lock()


def run_one(test):
    """Run a test in its own session; kill the whole process group on timeout."""
    if test.prog is not None and not test.prog.ok:
        test.passed, test.reason = False, "compile failed"
        test.output = test.prog.output
        return
    env = dict(os.environ)
    env.update(test.env)
    tmpdir = tempfile.mkdtemp(prefix="fy-test-")
    cwd = tmpdir if test.cwd_temp else None
    out_path = os.path.join(tmpdir, ".output") if not test.cwd_temp else \
        tempfile.mkstemp(prefix="fy-test-out-")[1]
    timed_out = False
    start = time.monotonic()
    try:
        with open(out_path, "w+b") as out:
            try:
                proc = subprocess.Popen(test.argv, stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                                        start_new_session=True)
            except OSError as e:
                test.passed, test.reason, test.output = False, f"cannot start: {e}", ""
                return
            with RUNNING_LOCK:
                RUNNING.add(proc.pid)
            try:
                rc = proc.wait(timeout=test.timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                kill_group(proc.pid)
                rc = proc.wait()
            try:                    # stragglers left in the group by a test that exited
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            with RUNNING_LOCK:
                RUNNING.discard(proc.pid)
            test.elapsed = time.monotonic() - start
            size = out.seek(0, os.SEEK_END)
            out.seek(0)
            if size <= OUTPUT_LIMIT:
                data = out.read()
            else:   # a test that printed without end: its head and its tail
                head = out.read(OUTPUT_LIMIT // 8)
                out.seek(size - OUTPUT_LIMIT // 2)
                data = head + b"\n[... output cut ...]\n" + out.read()
    finally:
        if test.cwd_temp:
            try:
                os.unlink(out_path)
            except OSError:
                pass
        shutil.rmtree(tmpdir, ignore_errors=True)
    test.output = data.decode(errors="replace")
    if timed_out:
        test.reason = f"timeout after {test.timeout:.0f}s"
    elif rc < 0:
        test.reason = f"killed by signal {-rc}"
    elif rc == 77 and test.kind == "script":  # skipped: it said why on its SKIP line
        test.skipped = next((l.strip() for l in test.output.splitlines()
                             if l.strip().startswith("SKIP")), "SKIP (no reason given)")
    elif rc != 0:
        test.reason = f"exit status {rc}"
    elif test.kind == "mpi" and not any(l.strip() == "No Errors" for l in test.output.splitlines()):
        test.reason = "no 'No Errors' line in output"
    test.passed = not test.reason


class Scheduler:
    """Runs tests on up to `jobs` threads; an MPI test with many ranks runs with no other MPI
    or script test beside it, so oversubscribed jobs don't time out for lack of cores."""

    def __init__(self, tests, jobs, report):
        self.pending = list(tests)
        self.jobs = max(1, jobs)
        self.report = report
        self.cv = threading.Condition()
        self.running = 0
        self.running_cores = 0
        self.exclusive_running = False

    def _can_start(self, t):
        if self.exclusive_running:
            return not t.uses_cores
        if t.exclusive:
            return self.running_cores == 0
        return True

    def _worker(self, t):
        try:
            run_one(t)
        except Exception as e:   # a runner bug must not hang the run
            t.passed, t.reason = False, f"runner error: {e!r}"
        with self.cv:
            self.report(t)
            self.running -= 1
            if t.uses_cores:
                self.running_cores -= 1
            if t.exclusive:
                self.exclusive_running = False
            self.cv.notify_all()

    def run(self):
        with self.cv:
            while self.pending or self.running:
                started = False
                if self.running < self.jobs:
                    for i, t in enumerate(self.pending):
                        if self._can_start(t):
                            del self.pending[i]
                            self.running += 1
                            if t.uses_cores:
                                self.running_cores += 1
                            if t.exclusive:
                                self.exclusive_running = True
                            threading.Thread(target=self._worker, args=(t,), daemon=True).start()
                            started = True
                            break
                if not started:
                    self.cv.wait()


def main():
    ap = argparse.ArgumentParser(description="Run Ferry's tests.")
    ap.add_argument("--build", required=True, help="build directory (holds bin/, lib/, tests/unit/)")
    ap.add_argument("--build-asan", help="also run unit and MPI tests against this sanitizer build")
    ap.add_argument("--filter", help="run only tests whose name matches this regular expression")
    ap.add_argument("-j", type=int, default=2, dest="jobs", help="tests run at once (default 2)")
    ap.add_argument("--mpicc", help="compiler wrapper to use instead of <build>/bin/mpicc")
    ap.add_argument("--mpiexec", help="launcher to use instead of <build>/bin/mpiexec")
    ap.add_argument("--timeout-scale", type=float, default=1.0, help="multiply every timeout")
    ap.add_argument("--repeat", type=int, default=1, help="run every test this many times")
    ap.add_argument("--list", action="store_true", help="list the selected tests and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="show the output of passing tests too")
    ap.add_argument("--placements", default=DEFAULT_PLACEMENTS,
                    help="extra runs of the 4-rank MPI tests: tcp (FERRY_NETMOD=tcp), 2x2 and 4x1 "
                         "(test hosts, root only), slurm (srun on a Slurm of 2 test hosts, root "
                         f"and Slurm only); 'none' for none (default {DEFAULT_PLACEMENTS})")
    ap.add_argument("--log", help="the log file (default <build>/test-log.txt)")
    args = ap.parse_args()
    # One spelling of the build directory, so that the compile commands (their stamps decide
    # whether a program is rebuilt) are the same for `--build build` and for a nested run given
    # FY_BUILD (tests/slurm/srun_suite.sh), which would otherwise rebuild, under the feet of the
    # outer run's tests, programs it is running.
    args.build = os.path.abspath(args.build)
    args.placement_list = [p for p in args.placements.split(",") if p and p != "none"]
    for p in args.placement_list:
        if p not in PLACEMENTS:
            ap.error(f"--placements: unknown placement '{p}' ({', '.join(PLACEMENTS)} or none)")
    on_hosts = [p for p in args.placement_list if "hosts" in PLACEMENTS[p]]
    why = hosts_unavailable() if on_hosts else None
    if why:
        print(f"SKIP placements {','.join(on_hosts)} of the MPI tests: {why}", flush=True)
        args.placement_list = [p for p in args.placement_list if p not in on_hosts]
        on_hosts = []
    on_slurm = [p for p in args.placement_list if "srun" in PLACEMENTS[p]]
    why = slurm_unavailable() if on_slurm else None
    if why:
        print(f"SKIP placement slurm of the MPI tests: {why}", flush=True)
        args.placement_list = [p for p in args.placement_list if p not in on_slurm]
        on_slurm = []

    os.makedirs(args.build, exist_ok=True)
    tests, programs = collect(args)
    # The hosts are made only when a selected test runs on them (collect applied --filter).
    on_hosts = [p for p in on_hosts if any(t.name.endswith("," + p) for t in tests)]
    on_slurm = [p for p in on_slurm if any(t.name.endswith("," + p) for t in tests)]
    if args.list:
        for t in tests:
            print(t.name)
        return 0
    cluster = Cluster()
    slurm = Cluster("fy_slurm")
    # A runner told to stop (the CI's limit, kill) still takes its hosts down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if on_hosts:
        err = cluster.up(4)
        if err:
            print(f"FAIL test hosts: {err}", flush=True)
            return 1
        global CLUSTER_DIR
        CLUSTER_DIR = cluster.dir
        for t in tests:
            if "FY_HOSTS_DIR" in t.env:
                t.env["FY_HOSTS_DIR"] = cluster.dir
    try:
        if on_slurm:
            err = slurm.up(SLURM_NODES)
            if err:
                print(f"FAIL Slurm on test hosts: {err}", flush=True)
                return 1
            for t in tests:
                if "SLURM_CONF" in t.env:
                    t.env["SLURM_CONF"] = os.path.join(slurm.dir, "slurm.conf")
                    t.env["FY_HOSTS_DIR"] = os.path.join(slurm.dir, "hosts")
        return run_tests(args, tests, programs)
    finally:
        slurm.down()
        cluster.down()


CLUSTER_DIR = ""


def run_tests(args, tests, programs):
    if args.repeat > 1:
        tests = [Test(t.name + (f"#{i}" if i else ""), t.kind, t.argv, t.timeout, t.env,
                      t.nprocs, t.prog, t.cwd_temp)
                 for i in range(args.repeat) for t in tests]

    log_path = args.log or os.path.join(args.build, "test-log.txt")
    log = open(log_path, "w", errors="replace")
    lock = threading.Lock()

    def emit(line, to_log_only=""):
        with lock:
            print(line, flush=True)
            log.write(line + "\n" + to_log_only)
            log.flush()

    log.write(f"# ferry tests, {time.strftime('%Y-%m-%d %H:%M:%S')}, args: {' '.join(sys.argv[1:])}\n")

    # Compile every MPI program once, in parallel.
    if programs:
        sem = threading.Semaphore(max(1, args.jobs))

        def build(p):
            with sem:
                p.build()

        threads = [threading.Thread(target=build, args=(p,)) for p in programs]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        rebuilt = [p for p in programs if p.rebuilt]
        for p in rebuilt:
            log.write(p.output + ("" if p.output.endswith("\n") else "\n"))
        bad = [p.name for p in programs if not p.ok]
        emit(f"compiled {len(rebuilt)} of {len(programs)} MPI test programs"
             + (f"; failed: {' '.join(bad)}" if bad else ""))

    def report(t):
        body = "\n".join("    " + l for l in t.output.splitlines())
        logged = f"$ {shlex.join(t.argv)}\n" + body[-LOG_LIMIT:] + "\n"
        if t.passed:
            word = "SKIP" if t.skipped else "PASS"
            why = f": {t.skipped}" if t.skipped else ""
            emit(f"{word} {t.name} ({t.elapsed:.1f}s){why}", logged)
            if args.verbose and body:
                print(body, flush=True)
        else:
            tail = "\n".join(body.splitlines()[-TAIL_LINES:])
            with lock:
                print(f"FAIL {t.name} ({t.reason})", flush=True)
                if tail:
                    print(tail, flush=True)
                log.write(f"FAIL {t.name} ({t.reason})\n" + logged)
                log.flush()

    start = time.monotonic()
    try:
        Scheduler(tests, args.jobs, report).run()
    except KeyboardInterrupt:
        with RUNNING_LOCK:
            pids = list(RUNNING)
        for pid in pids:
            kill_group(pid)
        emit("interrupted")
        log.close()
        return 130

    failed = [t for t in tests if not t.passed]
    skipped = [t for t in tests if t.passed and t.skipped]
    passed = len(tests) - len(failed) - len(skipped)
    if failed:
        emit("failed tests:\n" + "\n".join(f"  {t.name} ({t.reason})" for t in failed))
    emit(f"# {time.monotonic() - start:.1f}s; log in {log_path}")
    emit(f"{passed} passed, {len(skipped)} skipped, {len(failed)} failed")
    log.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
