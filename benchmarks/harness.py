"""The shared benchmark harness: best-of-k wall time, peak memory, interleaved timing of ours
against an anchor, and a markdown table."""

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


def interleaved(fns: dict, repeat: int, clock=time.process_time) -> tuple[dict, dict]:
    """Each function called ``repeat`` times with the repeat's index (a seed), the functions
    alternating so that a shared machine's load falls on all alike: the best time of each by
    ``clock`` (by default this process's CPU time, less inflated by the load than wall time)
    and every call's result, ``({name: seconds}, {name: [result, ...]})``."""
    best = dict.fromkeys(fns, float("inf"))
    results = {name: [] for name in fns}
    for i in range(repeat):
        for name, fn in fns.items():
            begin = clock()
            results[name].append(fn(i))
            best[name] = min(best[name], clock() - begin)
    return best, results


def interleaved_pair(ours: Callable[[], object], theirs: Callable[[], object], repeat: int):
    """``interleaved`` on wall time for two functions without arguments: best seconds of
    ours, of theirs, and the last result of each."""
    fns = {"ours": lambda _: ours(), "theirs": lambda _: theirs()}
    best, results = interleaved(fns, repeat, time.perf_counter)
    return best["ours"], best["theirs"], results["ours"][-1], results["theirs"][-1]


def anchor_row(setting, anchor, t_ours, t_anchor, ours, theirs, *rest) -> list:
    """One row of the comparison with an anchor: setting, anchor, both times, the time ratio
    (anchor / ours), both results, the result ratio (ours / anchor), then ``rest``."""
    times = [t_ours, t_anchor, t_anchor / t_ours]
    return [setting, anchor, *times, ours, theirs, ours / theirs, *rest]


def table(header: list[str], rows: list[list[object]]) -> str:
    """A markdown table, numbers to 4 significant digits."""

    def fmt(x):
        return f"{x:.4g}" if isinstance(x, float) else str(x)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)
