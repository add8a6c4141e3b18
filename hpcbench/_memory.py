"""How much memory a benchmark may take, and the page kinds of its buffers
(shared by the cache, memory and network benchmarks)."""
from __future__ import annotations

import os

from . import _core
from ._errors import OptionError

#: Buffers above this share of the memory available now are refused.
SAFE_MEMORY_SHARE = 0.25
#: Page kinds of benchmark buffers, by name -> the C core's page mode.
PAGE_MODES = {"normal": _core.PAGES_NORMAL, "huge": _core.PAGES_HUGE, "system": _core.PAGES_SYSTEM}


def safe_memory_limit() -> int:
    """Bytes a benchmark may allocate now: SAFE_MEMORY_SHARE of the available memory."""
    try:
        available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        available = 1 << 30
    return int(available * SAFE_MEMORY_SHARE)


def page_mode(pages: str, parameter: str = "pages") -> int:
    """The C page mode of a page kind name."""
    if pages not in PAGE_MODES:
        raise OptionError(parameter, f"must be one of {', '.join(PAGE_MODES)}, got {pages!r}")
    return PAGE_MODES[pages]
