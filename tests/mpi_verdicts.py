"""What the check scripts run under mpiexec share: this rank's problems, the
checks that add to them, and the end of a script, where every rank's
verdict is combined (allgather) so that a failure on one rank fails the
job instead of leaving the others waiting."""
import sys


class Verdicts:
    def __init__(self, comm):
        self.comm, self.rank, self.problems = comm, comm.Get_rank(), []

    def check(self, condition, what):
        if not condition:
            self.problems.append(f"rank {self.rank}: {what}")

    def expect_error(self, kind, call, what):
        """`call()` must raise `kind`."""
        try:
            call()
        except kind:
            return
        except Exception as e:  # the wrong kind of error
            self.problems.append(f"rank {self.rank}: {what}: {type(e).__name__}: {e}")
            return
        self.problems.append(f"rank {self.rank}: {what}: no error")

    def crashed(self, error):
        """An exception that ended the checks early: reported, never left to hang the other ranks."""
        self.problems.append(f"rank {self.rank}: {type(error).__name__}: {error}")

    def finish(self):
        """Rank 0 prints every rank's problems, or OK; every rank exits 1 if any rank found one."""
        everyone = self.comm.allgather(self.problems)
        if self.rank == 0:
            flat = [p for ps in everyone for p in ps]
            print("\n".join(flat) if flat else "OK")
        sys.exit(1 if any(everyone) else 0)
