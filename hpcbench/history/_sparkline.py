"""A trend in one line of text: one character per run, its height the
run's value.

Heights are drawn from zero when every value is positive (most headline
figures are rates, times and sizes), so a line looks as flat as the figure
is steady: a 2 % wobble stays on one level, a 30 % drop is three levels
down. A series with a value at or below zero is drawn from its minimum to
its maximum instead. A run without a value is a blank."""
from __future__ import annotations

from collections.abc import Sequence

#: Eight heights, lowest first.
BLOCKS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
#: The same where the terminal cannot show the blocks.
ASCII = "_.,:-=+#"
#: The most runs one line shows (the latest ones).
WIDTH = 60


def can_show_blocks(encoding: str | None) -> bool:
    """True when text in `encoding` can carry the block characters."""
    try:
        BLOCKS.encode(encoding or "ascii")
    except (LookupError, UnicodeEncodeError):
        return False
    return True


def sparkline(values: Sequence[float | None], blocks: str = BLOCKS, width: int = WIDTH) -> str:
    """The values as a line of `blocks` (the last `width` of them, after
    '<' when some are left out)."""
    shown = list(values)[-width:]
    finite = [v for v in shown if v is not None]
    if not finite:
        return " " * len(shown)
    low = 0.0 if min(finite) > 0 else min(finite)
    high = max(finite)
    top = len(blocks) - 1

    def height(v: float) -> str:
        if high == low:
            return blocks[top // 2]
        return blocks[round(top * (v - low) / (high - low))]
    line = "".join(" " if v is None else height(v) for v in shown)
    return ("<" if len(values) > width else "") + line
