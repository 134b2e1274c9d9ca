"""Where a job runs once it is compiled.

- local: Ferry's mpiexec on this machine, in the job's sandbox (no network but loopback).
- hosts: the same mpiexec with `-hosts` (the administrator's list) and
  `-launcher-exec` (their ssh-like agent); the sandbox then shares the host's network
  namespace, because the ranks on other hosts connect back over TCP.
- slurm: see Slurm below."""

import os

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
    """Jobs submitted to Slurm. Not built yet: a portal configured with [slurm]
    enabled = true refuses to start rather than pretend."""

    def __init__(self, cfg):
        raise JobError("slurm", "the slurm backend of the portal is not implemented yet "
                       "(backends.Slurm); set [slurm] enabled = false")

    async def run(self, manager, job_id, spec, lv):
        raise JobError("slurm", "the slurm backend of the portal is not implemented yet")
