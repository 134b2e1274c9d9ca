"""The portal's wait queue in a fair order: round-robin over the users who have jobs
waiting, oldest job first within a user.

Pure data, no processes and no clock, so it is tested on its own. The scheduler asks
`pick(eligible)` for the next job whose user may start one now (under their concurrent
limit); users it skips keep their turn."""

from collections import OrderedDict, deque


class FairQueue:
    def __init__(self):
        # user -> deque of job ids, oldest first; the dict's order is the round-robin
        # order: the user served last moves to the end.
        self._users = OrderedDict()

    def push(self, user, job):
        self._users.setdefault(user, deque()).append(job)

    def remove(self, job):
        """Drops a waiting job (cancelled); returns whether it was waiting."""
        for user, jobs in self._users.items():
            if job in jobs:
                jobs.remove(job)
                if not jobs:
                    del self._users[user]
                return True
        return False

    def pick(self, eligible=lambda user: True):
        """The next job to start: the first user in turn that `eligible(user)` accepts
        gives its oldest job and goes to the end of the turn. None if nobody may."""
        for user in list(self._users):
            if eligible(user):
                jobs = self._users[user]
                job = jobs.popleft()
                del self._users[user]
                if jobs:
                    self._users[user] = jobs
                return job
        return None

    def waiting(self, user=None):
        """How many jobs wait (of one user, or in all)."""
        if user is not None:
            return len(self._users.get(user, ()))
        return sum(len(j) for j in self._users.values())

    def order(self):
        """Every waiting job in the order they would start if all users were
        eligible: the users' first jobs in turn, then their second ones, ..."""
        out = []
        queues = [list(j) for j in self._users.values()]
        depth = max((len(q) for q in queues), default=0)
        for i in range(depth):
            out.extend(q[i] for q in queues if i < len(q))
        return out

    def positions(self):
        """job -> position (1 = next) in that order."""
        return {job: i + 1 for i, job in enumerate(self.order())}
