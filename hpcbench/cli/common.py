"""What every command of the CLI shares: the one-line usage error, the
parser that raises it, and argument types."""
from __future__ import annotations

import argparse

from .._validate import parse_size


class UsageError(Exception):
    """Bad input: one line for the user, exit status 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


def size_arg(text):
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pu_list_arg(text):
    from ..pairs import parse_pu_list
    try:
        return parse_pu_list(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
