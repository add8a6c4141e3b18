"""What every command of the CLI shares: the one-line usage error and the
parser that raises it."""
from __future__ import annotations

import argparse


class UsageError(Exception):
    """Bad input: one line for the user, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")
