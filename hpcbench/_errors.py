"""The exceptions of hpcbench: one hierarchy, rooted at HpcbenchError.

    HpcbenchError                 anything hpcbench raises on purpose
    +-- InputError (ValueError)   bad input: an option, a parameter, a file given to read or write
    |   +-- OptionError           one parameter breaks its rule (names the parameter)
    |   +-- ResultsError          a results file (or another input file) is missing, damaged or too large
    |   +-- OutputError           an output path cannot (or must not) be written
    +-- Unavailable               cannot run on this machine (alias Skipped: the record says "skipped")
    +-- MeasurementError (RuntimeError)
                                  a measurement failed: a kernel, a payload check, a rank of a collective

Users catch these four (and the root); each domain may subclass them for
its own words (predict.ProfileError is an InputError, report.ReportError an
InputError), never add a root beside them. The command line maps them to
its exit status in one place (hpcbench.cli.main: input 2, unavailable 3,
measurement 1). RunStopped is no error: a signal stopped a run.

InputError and MeasurementError keep ValueError and RuntimeError as bases,
so code written against the built-in exceptions goes on working.

This module imports nothing of hpcbench, so any module may raise them
without an import cycle.
"""
from __future__ import annotations


class HpcbenchError(Exception):
    """The root: every error hpcbench raises on purpose; one line of text."""


class InputError(HpcbenchError, ValueError):
    """Bad input: an option, a parameter, or a file given to read or write."""


class OptionError(InputError):
    """A parameter breaks a rule; one line that names the parameter.

    `parameter` is the name the caller used (a keyword of a public function,
    or a field of a benchmark's options dataclass); the CLI maps it to the
    flag. str(error) is "<parameter> <rule>", e.g. "stride must be a positive
    multiple of 4 bytes, got 3"."""

    def __init__(self, parameter: str, rule: str):
        super().__init__(f"{parameter} {rule}")
        self.parameter = parameter
        self.rule = rule


class ResultsError(InputError):
    """A results file (or another input file) cannot be used: missing, not
    a regular file, too large, damaged, of another format version; one line
    naming the path (and, inside the file, where)."""


class OutputError(InputError):
    """An output path cannot be used: a folder that is not there or not
    writable, a link, a device, or a file of another kind (hpcbench._files)."""


class Unavailable(HpcbenchError):
    """What was asked cannot run on this machine (one line saying why). A
    benchmark raises it as Skipped: the run goes on and the record says
    'skipped'."""


#: The name benchmarks raise: the record of the run says "skipped".
Skipped = Unavailable


class MeasurementError(HpcbenchError, RuntimeError):
    """A measurement failed: a C kernel returned an error, a payload did not
    verify, or a rank of a collective call failed (its message names it)."""


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
