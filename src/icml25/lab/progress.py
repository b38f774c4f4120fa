"""What a run shows while its cells compute: a bar on a terminal, a line now and then in a log.

On a terminal, one tqdm bar over the run's cells: the papers in progress with their cells done,
the time elapsed and an estimate of what is left, and the latest progress a long cell reported
(:mod:`icml25.common.progress`). Off a terminal, one line when a cell finishes or a long cell
moves on, at most one every ``LINE_EVERY_S`` seconds.

The estimate of what is left: each paper's pending cells times its expected seconds a cell
(from its committed summary at the run's scale; else the mean of its cells finished in this
run; else of all cells finished), scaled by how this run's finished cells compare with their
expected times, and divided among the workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from icml25.common.progress import read_progress

LINE_EVERY_S = 30.0  # at most one log line this often
POLL_S = 1.0  # how often the bar reads the running cells' progress files


def duration(seconds: float) -> str:
    """``seconds`` as a person reads a wait: "40 s", "12 min", "1.5 h"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimate_left(
    pending: Mapping[str, int],
    expected: Mapping[str, float | None],
    finished: Mapping[str, list[float]],
    workers: int,
) -> float | None:
    """Seconds of wall time left: see the module's docstring. ``pending``: cells left per
    paper; ``expected``: committed seconds a cell per paper (``None``: unknown);
    ``finished``: this run's cell seconds per paper; ``None`` when nothing gives an estimate."""
    done = [s for seconds in finished.values() for s in seconds]
    known = {slug: e for slug, e in expected.items() if e}
    matched = [
        (sum(finished[slug]), len(finished[slug]) * known[slug])
        for slug in finished
        if finished[slug] and slug in known
    ]
    ratio = sum(a for a, _ in matched) / sum(b for _, b in matched) if matched else 1.0
    total = 0.0
    for slug, left in pending.items():
        if left == 0:
            continue
        if slug in known:
            total += left * known[slug] * ratio
        elif finished.get(slug):
            total += left * sum(finished[slug]) / len(finished[slug])
        elif done:
            total += left * sum(done) / len(done)
        else:
            return None
    return total / max(1, workers)


class RunProgress:
    """The display of one run. ``pending``: cells to compute per paper; ``expected``: committed
    seconds a cell per paper; ``files``: each pending cell's progress file, ``(slug, index)``
    -> path; ``bar``: a tqdm bar (on a terminal) or ``None`` for log lines through ``write``."""

    def __init__(
        self,
        pending: Mapping[str, int],
        expected: Mapping[str, float | None],
        workers: int,
        *,
        files: Mapping[tuple[str, int], Path],
        bar: bool,
        write: Callable[[str], None],
        desc: str = "icml25",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = dict(pending)
        self.pending = dict(pending)
        self.expected = dict(expected)
        self.finished: dict[str, list[float]] = {slug: [] for slug in pending}
        self.workers = workers
        self.files = dict(files)
        self.write = write
        self.clock = clock
        self.start = clock()
        self.last_line = self.start  # a run shorter than LINE_EVERY_S prints no line
        self.last_inner: tuple[tuple[str, int], str] | None = None  # (cell, what it said)
        self.lock = threading.Lock()
        self.seen: dict[Path, tuple[int, int, str]] = {}
        cells = sum(pending.values())
        if bar:
            from tqdm.auto import tqdm  # here: the CLI's other commands import this module

        self.bar = (
            tqdm(
                total=cells,
                desc=desc,
                unit="cell",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} cells "
                "[{elapsed}{postfix}]",
                dynamic_ncols=True,
            )
            if bar
            else None
        )
        self.stop = threading.Event()
        self.poller = threading.Thread(target=self._poll, daemon=True)
        self.poller.start()

    def cell_done(self, slug: str, index: int, seconds: float) -> None:
        """Count one finished cell of ``slug`` that took ``seconds`` on its worker."""
        with self.lock:
            self.pending[slug] -= 1
            self.finished[slug].append(seconds)
            self.files.pop((slug, index), None)
            if self.last_inner is not None and self.last_inner[0] == (slug, index):
                self.last_inner = None
            if self.bar is not None:
                self.bar.update(1)
                self._refresh()
            else:
                self._line()

    def close(self) -> None:
        self.stop.set()
        self.poller.join()
        if self.bar is not None:
            self.bar.close()

    def status(self) -> str:
        """The papers in progress with their cells, what is left, the latest inner progress."""
        running = [s for s in self.pending if 0 < self.pending[s] and self.finished[s]]
        if not running:
            running = [s for s in self.pending if self.pending[s]][:1]
        parts = [f"{s} {len(self.finished[s])}/{self.total[s]}" for s in running[:3]]
        left = estimate_left(self.pending, self.expected, self.finished, self.workers)
        if left:
            parts.append(f"about {duration(left)} left")
        if self.last_inner is not None:
            parts.append(self.last_inner[1])
        return ", ".join(parts)

    def _refresh(self) -> None:
        self.bar.set_postfix_str(self.status(), refresh=True)

    def _line(self) -> None:
        now = self.clock()
        if now - self.last_line < LINE_EVERY_S:
            return
        self.last_line = now
        done = sum(len(v) for v in self.finished.values())
        cells = sum(self.total.values())
        self.write(
            f"{done} of {cells} cells done, {duration(now - self.start)} elapsed: {self.status()}"
        )

    def _poll(self) -> None:
        while not self.stop.wait(POLL_S):
            self._poll_once()

    def _poll_once(self) -> None:
        """Read the running cells' progress files; show the one that moved last."""
        with self.lock:
            files = list(self.files.items())
        for (slug, index), path in files:
            found = read_progress(path)
            if found is None or self.seen.get(path) == found:
                continue
            self.seen[path] = found
            done, total, what = found
            with self.lock:
                if (slug, index) not in self.files:
                    continue  # it finished while the file was read
                self.last_inner = ((slug, index), f"{slug} cell {index}: {done}/{total} {what}")
                if self.bar is not None:
                    self._refresh()
                else:
                    self._line()
