"""A cgroup per job: the limits (memory, processes, CPU) and the one sure way to end
every process of a job (cgroup.kill).

Two layouts are handled, and `Cgroups.mode` says which one is used:
- "v2": /sys/fs/cgroup is a unified tree with the memory and pids controllers;
- "v1": the hybrid layout of this machine: pids, memory and cpu are v1 hierarchies
  under /sys/fs/cgroup/<controller>/, and /sys/fs/cgroup/unified is a v2 tree without
  controllers whose only use here is cgroup.kill and the "populated" flag.
A job's process joins every cgroup before it execs anything (the sandbox's pre-exec
step writes its pid into each cgroup.procs), so nothing it starts can escape them.
Needs root; without it the portal runs jobs without cgroups and says so."""

import os
import time

ROOT = "/sys/fs/cgroup"
GROUP = "ferry-portal"


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _keyed(text, key):
    """The number after `key` in a 'key value' per line file (memory.events, ...)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return 0


def detect():
    """'v2', 'v1' or None (no usable cgroups, or not root)."""
    if os.geteuid() != 0:
        return None
    ctrls = _read(os.path.join(ROOT, "cgroup.controllers")).split()
    if "memory" in ctrls and "pids" in ctrls:
        return "v2"
    if all(os.path.isdir(os.path.join(ROOT, c)) for c in ("memory", "pids", "cpu")):
        return "v1"
    return None


class JobCgroup:
    """The cgroups of one job. `procs` are the cgroup.procs files a new process writes
    its pid into; `kill()` ends every process; `limits_hit()` tells which limits, if any,
    the kernel enforced."""

    def __init__(self, mode, name, memory, pids, cpu_quota):
        self.mode = mode
        self.dirs = {}          # role -> directory: 'v2' or 'memory'/'pids'/'cpu' (+ 'unified')
        if mode == "v2":
            parent = os.path.join(ROOT, GROUP)
            os.makedirs(parent, exist_ok=True)
            want = {"memory", "pids", "cpu"} & set(_read(os.path.join(ROOT, "cgroup.controllers")).split())
            for base in (ROOT, parent):
                for c in sorted(want):
                    try:
                        _write(os.path.join(base, "cgroup.subtree_control"), "+" + c)
                    except OSError:
                        pass    # already on, or refused: the limit below then fails loudly
            d = os.path.join(parent, name)
            os.makedirs(d, exist_ok=False)
            self.dirs["v2"] = d
            _write(os.path.join(d, "memory.max"), memory)
            if os.path.exists(os.path.join(d, "memory.swap.max")):
                _write(os.path.join(d, "memory.swap.max"), 0)
            _write(os.path.join(d, "pids.max"), pids)
            if os.path.exists(os.path.join(d, "cpu.max")):
                period = 100000
                _write(os.path.join(d, "cpu.max"), f"{int(cpu_quota * period)} {period}")
        else:
            for c in ("memory", "pids", "cpu"):
                d = os.path.join(ROOT, c, GROUP, name)
                os.makedirs(d, exist_ok=False)
                self.dirs[c] = d
            _write(os.path.join(self.dirs["memory"], "memory.limit_in_bytes"), memory)
            memsw = os.path.join(self.dirs["memory"], "memory.memsw.limit_in_bytes")
            if os.path.exists(memsw):
                _write(memsw, memory)
            _write(os.path.join(self.dirs["pids"], "pids.max"), pids)
            period = 100000
            _write(os.path.join(self.dirs["cpu"], "cpu.cfs_period_us"), period)
            _write(os.path.join(self.dirs["cpu"], "cpu.cfs_quota_us"), int(cpu_quota * period))
            uni = os.path.join(ROOT, "unified")
            if os.path.exists(os.path.join(uni, "cgroup.procs")):
                d = os.path.join(uni, GROUP, name)
                os.makedirs(d, exist_ok=False)
                self.dirs["unified"] = d
        self.memory = memory
        self.pids = pids

    @property
    def procs(self):
        return [os.path.join(d, "cgroup.procs") for d in self.dirs.values()]

    def _kill_file(self):
        for role in ("v2", "unified"):
            d = self.dirs.get(role)
            if d and os.path.exists(os.path.join(d, "cgroup.kill")):
                return os.path.join(d, "cgroup.kill")
        return None

    def pids_in(self):
        out = set()
        for p in self.procs:
            out.update(int(x) for x in _read(p).split())
        return out

    def kill(self):
        """Ends every process of the cgroup; False if this kernel has no cgroup.kill
        (the caller then uses kill -9 -1 as the job's uid)."""
        f = self._kill_file()
        if f is None:
            return False
        try:
            _write(f, 1)
            return True
        except OSError:
            return False

    def wait_empty(self, timeout=10.0):
        """Waits (blocking, short: after a kill) until no process is left."""
        end = time.monotonic() + timeout
        while self.pids_in():
            if time.monotonic() > end:
                return False
            time.sleep(0.01)
        return True

    def limits_hit(self):
        """The limits the kernel enforced on this job, of 'pids' and 'memory', in that order:
        a fork bomb often reaches both (each process costs kernel memory), and the process
        limit is then the one to name first."""
        if self.mode == "v2":
            d = self.dirs["v2"]
            mem = _keyed(_read(os.path.join(d, "memory.events")), "oom_kill")
            pids = _keyed(_read(os.path.join(d, "pids.events")), "max")
        else:
            mem = _keyed(_read(os.path.join(self.dirs["memory"], "memory.oom_control")), "oom_kill")
            pids = _keyed(_read(os.path.join(self.dirs["pids"], "pids.events")), "max")
        return tuple(name for name, n in (("pids", pids), ("memory", mem)) if n > 0)

    def remove(self):
        for d in self.dirs.values():
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)    # the last process is still being reaped


def sweep(mode, names):
    """Removes the cgroups `names` left by a portal that died (its jobs that were
    running): kills what is still in them first. Only these: other portals of the
    machine keep theirs."""
    if mode is None:
        return
    bases = [os.path.join(ROOT, GROUP)] if mode == "v2" else \
        [os.path.join(ROOT, c, GROUP) for c in ("unified", "memory", "pids", "cpu")]
    for base in bases:
        for name in names:
            d = os.path.join(base, name)
            if not os.path.isdir(d):
                continue
            kf = os.path.join(d, "cgroup.kill")
            if os.path.exists(kf):
                try:
                    _write(kf, 1)
                except OSError:
                    pass
            for _ in range(100):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    time.sleep(0.02)
