"""How a job's commands (compiler, mpiexec, ferry view) are run: as a uid of the pool,
inside bubblewrap, in the job's cgroups, with rlimits.

The command line, as root:
    setpriv --reuid U --regid U --clear-groups  bwrap --unshare-all ...  CMD
setpriv drops to the job's uid first, so bwrap runs unprivileged and builds its own
user, mount, pid, ipc, uts, cgroup and network namespaces: the job has no capability,
loopback only, and sees /usr, the library symlinks, a few files of /etc, Ferry's prefix
(read-only) and its work directory at /job (the one writable path); /tmp is a private
tmpfs. Before exec, the child joins the job's cgroups and sets its rlimits, so every
process the job makes is counted and limited.

Without root there is no uid switch and no cgroup: the job still runs in bwrap with
rlimits, and the portal reports `sandbox: reduced (not root)`."""

import os
import pwd
import resource

JOB_DIR = "/job"            # where the job's work directory appears inside the sandbox
REDUCED = "sandbox: reduced (not root)"


def is_root():
    return os.geteuid() == 0


class UidPool:
    """The numeric uids jobs run as. A uid is handed out only when it has no passwd
    entry (so no login or service owns it) and no process, and a job keeps it from
    compile to the end of its run, so every process of that uid is that job's."""

    def __init__(self, base, count):
        self.free = []
        self.bad = []
        for uid in range(base, base + count):
            try:
                pwd.getpwuid(uid)
                self.bad.append(uid)    # owned by an account: never used
            except KeyError:
                self.free.append(uid)
        self.busy = set()

    @staticmethod
    def has_processes(uid):
        """Whether a live process of `uid` exists. Zombies do not count: they run
        nothing, and the sandbox's own dead bwrap processes wait as zombies until the
        machine's init reaps them, which can take a second or two."""
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/status") as f:
                    zombie = False
                    for line in f:
                        if line.startswith("State:"):
                            zombie = line.split()[1] in ("Z", "X")
                        elif line.startswith("Uid:"):
                            if int(line.split()[1]) == uid and not zombie:
                                return True
                            break
            except (OSError, ValueError, IndexError):
                continue
        return False

    def take(self):
        """A free uid, or None if all are in use."""
        for uid in list(self.free):
            if not self.has_processes(uid):
                self.free.remove(uid)
                self.busy.add(uid)
                return uid
        return None

    def give_back(self, uid):
        if uid in self.busy:
            self.busy.discard(uid)
            self.free.append(uid)


def _ro_binds(prefix, extra_ro=()):
    args = ["--ro-bind", "/usr", "/usr"]
    for link in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        p = "/" + link
        if os.path.islink(p):
            args += ["--symlink", os.readlink(p), p]
        elif os.path.isdir(p):
            args += ["--ro-bind", p, p]
    for p in ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"):
        if os.path.exists(p):
            args += ["--ro-bind", p, p]
    for p in [prefix, *extra_ro]:
        src, dst = p if isinstance(p, tuple) else (p, p)
        args += ["--ro-bind", src, dst]
    return args


class Sandbox:
    """One job's sandbox: `command(argv)` is the full command line, `preexec` the step
    the child runs before exec, `env` its environment."""

    def __init__(self, prefix, work, uid=None, cgroup=None, limits=None, share_net=False,
                 extra_ro=(), extra_env=None):
        self.prefix = prefix
        self.work = work
        self.uid = uid
        self.cgroup = cgroup
        self.limits = limits or {}
        self.share_net = share_net
        self.extra_ro = list(extra_ro)
        self.env = {
            "PATH": f"{prefix}/bin:/usr/bin:/bin",
            "HOME": "/tmp",              # not /job: tools keep caches in $HOME
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "USER": "job",
        }
        if extra_env:
            self.env.update(extra_env)

    def command(self, argv, cwd=JOB_DIR):
        bw = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session"]
        if self.share_net:
            bw.append("--share-net")    # multi-host jobs need the host's network
        # The fresh /tmp first: a bind made before it would be hidden under it (Ferry built in
        # /tmp/something would vanish from the job's view).
        bw += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/dev/shm"]
        bw += _ro_binds(self.prefix, self.extra_ro)
        bw += ["--bind", str(self.work), JOB_DIR, "--chdir", cwd, "--clearenv"]
        for k, v in self.env.items():
            bw += ["--setenv", k, v]
        bw += ["--", *argv]
        if self.uid is not None:
            return ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups",
                    "--inh-caps=-all", *bw]
        return bw

    def rank_command(self, argv):
        """The command one rank runs on its host, for jobs across hosts: mpiexec and its
        proxies (Ferry's own, trusted) run outside, and each rank enters its own sandbox.
        It shares the host's network (ranks on other hosts connect to it) and IPC and
        /dev/shm (ranks on one host share memory); the environment is what the proxy
        gives (PMI variables, the job's secret fd), nothing of the portal's. Limits are
        rlimits set by prlimit: the job's cgroup exists only on the portal's host."""
        lim = self.limits
        pl = ["prlimit", "--core=0", "--nofile=4096"]
        if lim.get("file_size"):
            pl.append(f"--fsize={lim['file_size']}")
        if self.uid is not None and lim.get("nproc"):
            pl.append(f"--nproc={lim['nproc']}")
        bw = ["bwrap", "--unshare-user", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
              "--die-with-parent", "--new-session"]
        bw += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
               "--bind", "/dev/shm", "/dev/shm"]  # before the binds, as in command()
        bw += _ro_binds(self.prefix, self.extra_ro)
        bw += ["--bind", str(self.work), JOB_DIR, "--chdir", JOB_DIR]
        for k, v in self.env.items():
            bw += ["--setenv", k, v]
        bw += ["--", *argv]
        if self.uid is not None:
            return [*pl, "--", "setpriv", f"--reuid={self.uid}", f"--regid={self.uid}",
                    "--clear-groups", "--inh-caps=-all", *bw]
        return [*pl, "--", *bw]

    def preexec(self):
        """The child's step between fork and exec: join the cgroups, set the rlimits.
        Only async-signal-safe-ish work: writes and setrlimit, no locks."""
        procs = self.cgroup.procs if self.cgroup else []
        lim = self.limits
        uid = self.uid

        def step():
            pid = str(os.getpid())
            for p in procs:
                fd = os.open(p, os.O_WRONLY)
                os.write(fd, pid.encode())
                os.close(fd)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if lim.get("file_size"):
                resource.setrlimit(resource.RLIMIT_FSIZE, (lim["file_size"], lim["file_size"]))
            resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
            if uid is not None and lim.get("nproc"):
                # Counted per real uid, so only meaningful once the uid is the job's own.
                resource.setrlimit(resource.RLIMIT_NPROC, (lim["nproc"], lim["nproc"]))
        return step


def kill_uid(uid):
    """Ends every process of `uid` (a pool uid: they are all one job's), from a
    process of that uid itself (kill -9 -1 reaches exactly them)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, 9)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def chown_tree(path, uid, gid, mode=None):
    """chown -R without following links (the job may have planted some)."""
    os.lchown(path, uid, gid)
    if mode is not None:
        os.chmod(path, mode)
    for root, dirs, files in os.walk(path):
        for n in dirs + files:
            try:
                os.lchown(os.path.join(root, n), uid, gid)
            except OSError:
                pass
