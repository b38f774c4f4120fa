"""The shared benchmark harness: best-of-k wall time, peak memory, and a markdown table."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable


def measure(fn: Callable[[], object], repeat: int = 3) -> tuple[float, float, object]:
    """Best wall time in seconds over ``repeat`` calls, peak traced memory in MB, last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        begin = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - begin)
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return best, peak, result


def table(header: list[str], rows: list[list[object]]) -> str:
    """A markdown table, numbers to 4 significant digits."""

    def fmt(x):
        return f"{x:.4g}" if isinstance(x, float) else str(x)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)
