"""What `predict wavefront` says of a code's own inputs (_code_inputs.py):
the split of an uneven grid, groups, the order of the octants and its
fills, the eager limit, and the whole run's time. Plain text and plain
data, for _text.py."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._octants import CHIMAERA, octant_names

if TYPE_CHECKING:
    from ._model import WavefrontPrediction
    from ._params import WavefrontParams


def _seconds(t: float) -> str:
    return f"{t:.4g} s" if t >= 1 else f"{t * 1e3:.4g} ms"


def code_lines(p: WavefrontParams) -> list[str]:
    """The header lines of the code's own inputs (none for Chimaera's
    defaults on an even grid)."""
    lines = []
    if not p.even:
        lines.append(f"  blocks: {p.split_words()} (uneven: the first columns and rows hold one more)")
    if p.groups > 1:
        how = ("each its own pass through the tiles, its own faces" if p.group_faces == "each"
               else "all in one face")
        lines.append(f"  energy groups: {p.groups}, {how}")
    order = p.sweeps
    if order is not None and tuple(order) != CHIMAERA:
        lines.append(f"  octants: {octant_names(tuple(order))}: {p.n_sweeps} sweeps, {p.n_full} full, "
                     f"{p.n_diag} diagonal and {p.n_col} column fills")
    if p.eager_limits:
        limits = sorted({int(b) for _, b in p.eager_limits})
        lines.append("  eager limit: " + ", ".join(f"{b} B" for b in limits)
                     + " (larger faces are coupled to their receive)")
    return lines


def run_lines(r: WavefrontPrediction, p: WavefrontParams) -> list[str]:
    """The model's lines the code's inputs add: the column fills, coupled
    faces and the run's time."""
    lines = []
    if p.n_col:
        lines.append(f"  T_colfill {_seconds(r.t_colfill)} (x {p.n_col}: fills across the columns)")
    if r.coupled:
        lines.append(f"  {r.coupled} neighbour pairs send faces above the eager limit: coupled to their receive")
    if p.t_nonwavefront > 0:
        lines.append(f"  outside the sweeps: {_seconds(p.t_nonwavefront)} per iteration")
    if r.iterations > 1:
        lines.append(f"  predicted run: {_seconds(r.run_time)} ({p.outers} outer x {p.inners} inner iterations)")
    return lines


def code_dict(p: WavefrontParams, r: WavefrontPrediction) -> dict[str, Any]:
    """The same as plain data, for -o FILE.json."""
    order = p.sweeps
    return {"groups": p.groups, "group_faces": p.group_faces,
            "octants": octant_names(tuple(order)) if order is not None else None,
            "n_sweeps": p.n_sweeps, "n_full": p.n_full, "n_diag": p.n_diag, "n_col": p.n_col,
            "blocks_x": p.blocks_x.tolist() if p.n <= 4096 else None,
            "blocks_y": p.blocks_y.tolist() if p.m <= 4096 else None,
            "split": p.split_words(), "inners": p.inners, "outers": p.outers,
            "t_nonwavefront_s": p.t_nonwavefront, "eager_limits_bytes": dict(p.eager_limits),
            "coupled_pairs": r.coupled, "t_colfill_s": r.t_colfill, "run_time_s": r.run_time}
