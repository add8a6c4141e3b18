"""The exceptions every part of hpcbench shares. This module imports nothing
of hpcbench, so any module may raise them without an import cycle."""
from __future__ import annotations


class OptionError(ValueError):
    """A parameter breaks a rule; one line that names the parameter.

    `parameter` is the name the caller used (a keyword of a public function,
    or a field of a benchmark's options dataclass); the CLI maps it to the
    flag. str(error) is "<parameter> <rule>", e.g. "stride must be a positive
    multiple of 4 bytes, got 3"."""

    def __init__(self, parameter: str, rule: str):
        super().__init__(f"{parameter} {rule}")
        self.parameter = parameter
        self.rule = rule


class Skipped(Exception):
    """Raised by a benchmark that cannot run here (one line saying why); the
    run goes on and the record says 'skipped'."""


class RunStopped(BaseException):
    """A signal (SIGTERM from scancel, a batch system's time limit, or
    mpiexec passing one on) stopped a run. A BaseException, as
    KeyboardInterrupt is, so that no benchmark's `except Exception` turns
    it into a failed record and the run goes on. `where` says, once the
    runner has added it, what the results file holds."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal_name = signal_name
        self.where = ""
