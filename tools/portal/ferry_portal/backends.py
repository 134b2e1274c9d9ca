"""Where a job runs once it is compiled.

- local: Ferry's mpiexec on this machine, in the job's sandbox (no network but loopback).
- hosts: the same mpiexec with `-hosts` (the administrator's list) and
  `-launcher-exec` (their ssh-like agent); the sandbox then shares the host's network
  namespace, because the ranks on other hosts connect back over TCP.
- slurm: see Slurm below."""

import os

from .jobspec import JobError


def mpiexec_argv(cfg, prefix, spec, prog):
    argv = [os.path.join(prefix, "bin", "mpiexec"), "-l", "-n", str(spec.ranks)]
    if spec.backend == "hosts":
        argv += ["-hosts", ",".join(spec.hosts)]
        le = getattr(cfg.hosts, "launcher_exec", "")
        if le:
            argv += ["-launcher-exec", le]
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
