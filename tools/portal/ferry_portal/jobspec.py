"""What a user asks for (JobSpec) and the error a bad request gets (JobError).

Kept apart from jobs.py so that unpack.py and backends.py can raise JobError without
importing the manager."""

from dataclasses import dataclass, field


class JobError(Exception):
    """A request the runner refuses: `field` names the form field at fault (or None),
    `message` says why in words a user understands."""

    def __init__(self, field, message):
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass
class JobSpec:
    backend: str = "local"          # 'local' | 'hosts' | 'slurm'
    ranks: int = 1
    hosts: list = field(default_factory=list)
    args: list = field(default_factory=list)
    time_limit: int = 60            # seconds, wall
    main: str = None                # the C file with main(); None: guessed
    trace: bool = False
    profile: bool = False
