"""argparse types for the options dataclasses' flags: the value as the CLI
reads it, with the one-line message argparse prints when it cannot."""
from __future__ import annotations

import argparse

from ._validate import parse_size
from .topology._pairs import parse_pu_list


def size_arg(text: str) -> int:
    """'64MiB', '32k', '1048576' -> bytes."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def pu_list_arg(text: str) -> list:
    """'0-3,8' -> [0, 1, 2, 3, 8]."""
    try:
        return parse_pu_list(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
