"""Message-size lists as users write them: `8,64,1KiB` (each size), `1:4MiB`
(powers of two from the first to the last), and both at once
(`1,64:4MiB`). The rules are here and nowhere else."""
from __future__ import annotations

from .._format import format_size
from .._validate import parse_size

#: The largest message a list may hold: 1 GiB (MPI counts are ints, and a
#: typo must not ask for terabytes before the memory check).
MAX_SIZE = 1 << 30
#: The most sizes a list may hold.
MAX_SIZES = 64


def parse_sizes(text: str) -> tuple[int, ...]:
    """'8,64,1KiB' -> (8, 64, 1024); '1:4MiB' -> (1, 2, 4, ..., 4194304);
    sorted, without repeats. ValueError with one line for anything else:
    an empty item, an unparseable size, a negative or zero size (a 0-byte
    message times MPI's bookkeeping, not a transfer: the latency at 1 byte
    says the same), a range whose end is below its start, a size above
    1 GiB."""
    sizes: set[int] = set()
    items = [item.strip() for item in str(text).split(",")]
    if not any(items):
        raise ValueError(f"a size list is sizes or ranges separated by commas (8,64,1KiB or 1:4MiB), got {text!r}")
    for item in items:
        if not item:
            raise ValueError(f"a size list has an empty item, got {text!r}")
        sizes.update(_range(item, text) if ":" in item else [_size(item, text)])
    if len(sizes) > MAX_SIZES:
        raise ValueError(f"a size list holds at most {MAX_SIZES} sizes, got {len(sizes)} from {text!r}")
    return tuple(sorted(sizes))


def _size(item: str, text: str) -> int:
    if item.lstrip().startswith("-"):
        raise ValueError(f"message sizes must not be negative, got {item!r} in {text!r}")
    try:
        size = parse_size(item)
    except ValueError as e:
        raise ValueError(f"{e} in {text!r}") from None
    if size == 0:
        raise ValueError(f"message sizes must be at least 1 byte, got {item!r} in {text!r}")
    if size > MAX_SIZE:
        raise ValueError(f"message sizes are at most {format_size(MAX_SIZE)}, got {item!r} in {text!r}")
    return size


def _range(item: str, text: str) -> list[int]:
    """'LO:HI' -> LO, 2 LO, 4 LO, ... up to HI (and HI itself)."""
    parts = item.split(":")
    if len(parts) != 2:
        raise ValueError(f"a range is FIRST:LAST, got {item!r} in {text!r}")
    lo, hi = (_size(p.strip(), text) for p in parts)
    if hi < lo:
        raise ValueError(f"a range's last size must not be below its first, got {item!r} in {text!r}")
    out = []
    size = lo
    while size < hi:
        out.append(size)
        size *= 2
    return out + [hi]


def format_sizes(sizes: tuple[int, ...] | list[int]) -> str:
    """The list back in words, for messages and headers."""
    return ", ".join(format_size(s) for s in sizes)
