"""Is this run as good as the reference? (`python -m hpcbench check RESULTS
--against REFERENCE`, docs/check.md.)

The reference is an earlier results file or a hand-written reference file
of headline figures with tolerances (TOML). Every headline figure is
matched by benchmark, node and label and judged better, same or worse by
one rule (judge): a Mann-Whitney U test on the stored samples where both
sides have them (Holm-corrected over the figures, and a change of at least
min_change), the tolerance otherwise. The side-by-side report
(`report A B`) shows the same verdicts, from the same function.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:   # the eager imports, for type checkers and readers
    from ._compare import Comparison, compare_reference, compare_results
    from ._files import check_files
    from ._reference import CheckError, read_reference
    from ._verdict import Pair, Settings, Verdict, judge

__all__ = ["CheckError", "Comparison", "Pair", "Settings", "Verdict", "check_files", "compare_reference",
           "compare_results", "judge", "read_reference"]

# submodule -> the public names it defines (imported on first use: hpcbench._lazy)
_EXPORTS = {
    "._compare": ("Comparison", "compare_reference", "compare_results"),
    "._files": ("check_files",),
    "._reference": ("CheckError", "read_reference"),
    "._verdict": ("Pair", "Settings", "Verdict", "judge"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
