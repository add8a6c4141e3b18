"""Where a sweep's buffer really sits in physical memory, as far as this
process can tell, and what the cache analysis may assume from it.

The C sweep touches its buffer in address order, then reads back the
physical frame of every base page (/proc/self/pagemap; frame numbers are
hidden without CAP_SYS_ADMIN) and how much of it transparent huge pages
back (smaps). From those:

* "contiguous": huge pages back (nearly) all of the buffer, or the frames
  are (nearly) all consecutive. A physically indexed cache whose way size is
  at most the contiguous span is then evenly coloured: every set gets its
  share of lines, no set overflows before the cache is full, and the edge of
  the rise is the cache's size.
* "random": the frames are known and scattered: pages fall into page sets
  at random and the page-set model (Servet's probabilistic algorithm) applies.
* "unknown": neither huge pages nor frame numbers tell; or a virtual
  machine, where both are the guest's and the host may place the guest's
  memory anywhere. Treated as random: the page-set model, which needs no
  knowledge of the placement but its randomness.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: Share of the buffer (huge pages) or of successive pages (frames) above
#: which the placement counts as contiguous.
CONTIGUOUS_SHARE = 0.9
KINDS = ("contiguous", "random", "unknown")

#: DMI vendor or product names of hypervisors (sysfs), lower case.
_HYPERVISOR_NAMES = ("kvm", "qemu", "vmware", "virtualbox", "xen", "bochs", "parallels", "bhyve",
                     "amazon ec2", "google compute engine", "virtual machine", "openstack", "cloud hypervisor")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(65536)
    except OSError:
        return ""


def virtual_machine() -> str | None:
    """Why this looks like a virtual machine (one phrase), or None: the x86
    'hypervisor' CPU flag, a hypervisor node in sysfs or the device tree, or
    a hypervisor's name in the DMI data."""
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("flags") and " hypervisor" in f" {line.split(':', 1)[-1]} ":
            return "the CPU reports a hypervisor"
    kind = _read("/sys/hypervisor/type").strip()
    if kind:
        return f"sysfs names the hypervisor {kind}"
    if os.path.exists("/proc/device-tree/hypervisor"):
        return "the device tree has a hypervisor node"
    for field in ("sys_vendor", "product_name"):
        value = _read(f"/sys/class/dmi/id/{field}").strip()
        if any(name in value.lower() for name in _HYPERVISOR_NAMES):
            return f"DMI {field.replace('_', ' ')} is {value!r}"
    return None


@dataclass(frozen=True)
class Placement:
    """What one buffer's placement told (see the module docstring)."""

    kind: str                        #: "contiguous", "random" or "unknown"
    why: str                         #: the evidence, in words
    pages: int                       #: base pages of the buffer
    page_size: int                   #: bytes of a base page
    frames_known: int                #: pages whose frame pagemap told
    consecutive_share: float | None  #: successive pages on consecutive frames (known frames only)
    huge_share: float | None         #: share of the buffer huge pages back (None: smaps did not tell)
    virtual_machine: str | None      #: why this looks like a guest, or None


def consecutive_share(frames: npt.ArrayLike) -> float | None:
    """Share of successive pages whose frames are consecutive, among pairs
    where both frames are known (frames < 0 are unknown); None if none are."""
    f = np.asarray(frames, dtype=float)
    both = (f[:-1] >= 0) & (f[1:] >= 0)
    if not np.any(both):
        return None
    return float(np.mean(np.diff(f)[both] == 1))


def classify(frames: npt.ArrayLike, huge_bytes: float, buffer_bytes: int, page_size: int,
             vm: str | None) -> Placement:
    """The placement of one buffer from what the C sweep read back."""
    frames = np.asarray(frames, dtype=float)
    known = int(np.count_nonzero(frames >= 0))
    share = consecutive_share(frames) if known >= 2 else None
    huge = None if huge_bytes < 0 else min(float(huge_bytes) / buffer_bytes, 1.0)

    def placement(kind: str, why: str) -> Placement:
        return Placement(kind=kind, why=why, pages=int(frames.size), page_size=int(page_size), frames_known=known,
                         consecutive_share=share, huge_share=huge, virtual_machine=vm)

    seen = []
    if huge is not None:
        seen.append(f"huge pages back {100 * huge:.0f}% of the buffer")
    seen.append("frame numbers hidden (pagemap needs CAP_SYS_ADMIN)" if known == 0 else
                f"{100 * share:.0f}% of successive pages on consecutive frames" if share is not None else
                "too few frames known")
    evidence = "; ".join(seen)
    if vm:
        return placement("unknown", f"virtual machine ({vm}): {evidence}, but these are the guest's "
                                    "pages, placed by the host where this guest cannot see")
    if huge is not None and huge >= CONTIGUOUS_SHARE:
        return placement("contiguous", evidence)
    if share is not None:
        kind = "contiguous" if share >= CONTIGUOUS_SHARE else "random"
        return placement(kind, evidence)
    return placement("unknown", evidence)


def combined(placements: list[Placement]) -> Placement:
    """The placement of a whole sweep (one buffer per pass): contiguous only
    if every pass was; otherwise that of the first pass that was not."""
    for p in placements:
        if p.kind != "contiguous":
            return p
    return placements[0]
