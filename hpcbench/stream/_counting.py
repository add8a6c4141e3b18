"""How STREAM counts the bytes of its kernels, and the write-allocate
traffic beside them.

STREAM counts what the source code names: Copy (c = a) and Scale (b = s*c)
read one array and write one, 16 bytes per element of doubles; Add
(c = a + b) and Triad (a = b + s*c) read two and write one, 24 bytes. With
ordinary stores the hardware first reads every line it will write (the
write-allocate, or read-for-ownership), one more 8-byte read per element
written, which STREAM does not count: a Copy then moves 24 bytes per
element, not 16. Non-temporal stores write around the caches and skip that
read. Rates are STREAM's count; the write-allocate bytes are said beside.
"""
from __future__ import annotations

#: STREAM's four kernels, in the order they run.
KERNELS = ("copy", "scale", "add", "triad")
#: What each kernel computes, for tables and the record.
FORMULAS = {"copy": "c = a", "scale": "b = s*c", "add": "c = a + b", "triad": "a = b + s*c"}
#: Arrays each kernel reads; each writes one.
ARRAYS_READ = {"copy": 1, "scale": 1, "add": 2, "triad": 2}
#: Bytes of one double.
ELEMENT_BYTES = 8


def stream_bytes(kernel: str, array_bytes: int) -> int:
    """Bytes STREAM counts for one run of `kernel` over arrays of
    `array_bytes`: every array read plus the one written (16 or 24 bytes per
    element)."""
    return (ARRAYS_READ[kernel] + 1) * array_bytes


def write_allocate_bytes(kernel: str, array_bytes: int, stores: str) -> int:
    """Bytes the hardware reads besides, to allocate the lines written: the
    written array once more with ordinary stores, none with non-temporal ones."""
    if kernel not in ARRAYS_READ:
        raise KeyError(kernel)
    return array_bytes if stores == "ordinary" else 0


def bytes_per_element(kernel: str, stores: str) -> tuple[int, int]:
    """(STREAM's count, the write-allocate bytes) per element of `kernel`."""
    return stream_bytes(kernel, ELEMENT_BYTES), write_allocate_bytes(kernel, ELEMENT_BYTES, stores)
