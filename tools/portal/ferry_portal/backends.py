"""Where a job runs once it is compiled.

- local: Ferry's mpiexec on this machine, in the job's sandbox (no network but loopback).
- hosts: the same mpiexec with `-hosts` (the administrator's list) and
  `-launcher-exec` (their ssh-like agent); the sandbox then shares the host's network
  namespace, because the ranks on other hosts connect back over TCP.
- slurm: see Slurm below."""

import asyncio
import os
import shlex
import shutil
import subprocess
import time

from .jobspec import JobError


def hosts_argv(cfg, prefix, spec, box, prog):
    """mpiexec across the administrator's hosts, run by the portal outside the sandbox
    (it is Ferry's launcher, and the agent it calls, ssh or the like, needs the portal's
    credentials), in the job's work directory, which every host must see at the same path
    (a shared file system). Each rank is wrapped in its own sandbox (Sandbox.rank_command);
    -genvnone keeps the portal's environment from the ranks."""
    argv = [os.path.join(prefix, "bin", "mpiexec"), "-l", "-n", str(spec.ranks),
            "-hosts", ",".join(spec.hosts), "-genvnone"]
    le = getattr(cfg.hosts, "launcher_exec", "")
    if le:
        argv += ["-launcher-exec", le]
    if spec.profile:
        argv.append("--profile")
    return argv + ["--", *box.rank_command([prog, *spec.args])]


def mpiexec_argv(cfg, prefix, spec, prog):
    """mpiexec on this machine, run inside the job's sandbox."""
    argv = [os.path.join(prefix, "bin", "mpiexec"), "-l", "-n", str(spec.ranks)]
    if spec.trace:
        argv += ["--trace", "trace"]
    if spec.profile:
        argv.append("--profile")
    return argv + ["--", prog, *spec.args]


class Slurm:
    """Jobs submitted to Slurm, so that a cluster's scheduler stays in charge. The job is
    compiled on the portal's host as any other; then `sbatch --parsable` submits a batch
    script (in the job's directory, the portal's, not the job's work directory) that runs
    mpiexec in the allocation with each rank in its sandbox (Sandbox.rank_command), as for
    the hosts backend. Its output goes to files the portal reads as they grow; the state
    comes from squeue while the job is known there, then from scontrol or sacct; cancel
    and the portal's own time limit use scancel. The job's directory must be on a file
    system every node sees at the same path."""

    def __init__(self, cfg):
        self.partition = getattr(cfg.slurm, "partition", "") or ""
        for tool in ("sbatch", "squeue", "scancel"):
            if shutil.which(tool) is None:
                raise JobError("slurm", f"[slurm] enabled, but {tool} is not on PATH")

    @staticmethod
    def _run(argv):
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout.strip(), r.stderr.strip()

    def _state(self, ident):
        """(state, exit code or None): Slurm's words, COMPLETED, FAILED, RUNNING, ..."""
        rc, out, _ = self._run(["squeue", "-h", "-j", ident, "-o", "%T"])
        if rc == 0 and out:
            return out.split()[0], None
        rc, out, _ = self._run(["scontrol", "show", "job", ident])
        if rc == 0 and "JobState=" in out:
            st = out.split("JobState=")[1].split()[0]
            code = out.split("ExitCode=")[1].split()[0] if "ExitCode=" in out else "0:0"
            return st, code
        rc, out, _ = self._run(["sacct", "-n", "-X", "-P", "-j", ident, "-o", "State,ExitCode"])
        if rc == 0 and out:
            st, code = out.splitlines()[0].split("|")[:2]
            return st.split()[0], code
        return "UNKNOWN", None

    async def run(self, lv, box, spec, prog, jdir, deadline, on_out, on_err):
        """Submits, follows and ends the job; returns (exit code, deadline passed)."""
        mpiexec = [os.path.join(box.prefix, "bin", "mpiexec"), "-l", "-n", str(spec.ranks),
                   "-genvnone"] + (["--profile"] if spec.profile else [])
        cmd = mpiexec + ["--", *box.rank_command([prog, *spec.args])]
        script = jdir / "slurm.sh"
        script.write_text("#!/bin/sh\n# the portal's job " + jdir.name + "\n"
                          f"cd {shlex.quote(str(box.work))} || exit 1\n"
                          "exec " + " ".join(shlex.quote(a) for a in cmd) + "\n")
        os.chmod(script, 0o700)
        out, err = jdir / "slurm.out", jdir / "slurm.err"
        minutes = max(1, -(-spec.time_limit // 60))
        argv = ["sbatch", "--parsable", "-n", str(spec.ranks), "-J", f"ferry-portal-{jdir.name}",
                "-o", str(out), "-e", str(err), f"--time={minutes}"]
        if self.partition:
            argv += ["-p", self.partition]
        rc, ident, why = await asyncio.to_thread(self._run, argv + [str(script)])
        if rc != 0 or not ident:
            raise JobError("slurm", f"sbatch failed: {why or ident}")
        ident = ident.split(";")[0]
        local_kill = lv.kill

        def kill():
            subprocess.run(["scancel", ident], capture_output=True, timeout=30)
            if local_kill:
                local_kill()
        lv.kill = kill
        tails = [(out, on_out, [0, b""]), (err, on_err, [0, b""])]

        def drain(final=False):
            for path, sink, st in tails:
                try:
                    with open(path, "rb") as f:
                        f.seek(st[0])
                        data = f.read(1 << 20)
                except FileNotFoundError:
                    continue
                st[0] += len(data)
                buf = st[1] + data
                *lines, st[1] = buf.split(b"\n")
                if final and st[1]:
                    lines.append(st[1])
                    st[1] = b""
                for line in lines:
                    sink(line.decode("utf-8", "replace"))
        late = False
        final = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                 "PREEMPTED", "BOOT_FAIL", "DEADLINE"}
        polls = 0
        while True:
            drain()
            polls += 1
            if polls % 5 == 1:      # squeue every 0.5 s; the output every 0.1 s
                state, code = await asyncio.to_thread(self._state, ident)
                if state.rstrip("+") in final or state == "UNKNOWN":
                    break
            if not late and time.monotonic() > deadline:
                late = True
                kill()
            await asyncio.sleep(0.1)
        drain(final=True)
        if code is None:
            state, code = await asyncio.to_thread(self._state, ident)
        try:
            status, sig = (int(x) for x in (code or "0:0").split(":")[:2])
        except ValueError:
            status, sig = 1, 0
        return (status if not sig else 128 + sig), late
