"""How far a long cell has come, for the runner's progress bar: ``report_progress(done, total)``.

A paper's long loop (a training run) calls ``report_progress`` once per step. Under
``icml25 run`` the runner gives each cell a small file beside its record
(:func:`reporting_to`); ``report_progress`` writes ``done``, ``total`` and ``what`` there at
most once every ``INTERVAL_S`` seconds, and the client shows the latest in its bar. Anywhere
else (a user calling the method) it writes nothing and costs a lookup.

A call of ``report_progress`` as a statement, and this module's import, are left out of a
paper's code fingerprint (:func:`icml25.lab.reproduction.code_fingerprint`): they change no
number, so adding one does not make the runner recompute a paper's cells.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from contextvars import ContextVar
from numbers import Integral
from pathlib import Path

INTERVAL_S = 2.0  # seconds between two writes of one cell's progress

_SINK: ContextVar[tuple[Path, list[float]] | None] = ContextVar("icml25_progress", default=None)


def report_progress(done: int, total: int, what: str = "steps") -> None:
    """Tell the runner that ``done`` of ``total`` ``what`` of this cell are finished.

    Parameters
    ----------
    done : int
        Units finished, in ``[0, total]``.
    total : int
        Units in all, ``>= 1``.
    what : str, default "steps"
        The unit, as the bar shows it ("steps", "epochs", "graphs").

    Returns
    -------
    None
        Outside a cell run by ``icml25 run`` nothing is written; inside one, at most one write
        every ``INTERVAL_S`` seconds, and an error writing it is ignored (progress never fails
        a cell).
    """
    if not (isinstance(total, Integral) and isinstance(done, Integral) and 0 <= done <= total >= 1):
        raise ValueError(
            "report_progress needs integers with 0 <= done <= total and total >= 1, got "
            f"done={done!r}, total={total!r}"
        )
    sink = _SINK.get()
    if sink is None:
        return
    path, last = sink
    now = time.monotonic()
    if now - last[0] < INTERVAL_S:
        return
    last[0] = now
    text = json.dumps({"done": int(done), "total": int(total), "what": str(what)[:40]})
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)


@contextlib.contextmanager
def reporting_to(path: str | os.PathLike | None) -> Iterator[None]:
    """Within the block, ``report_progress`` writes to ``path`` (``None``: nowhere); the file
    is removed at the end. The runner wraps each cell in it."""
    if path is None:
        yield
        return
    path = Path(path)
    token = _SINK.set((path, [-float("inf")]))
    try:
        yield
    finally:
        _SINK.reset(token)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def read_progress(path: str | os.PathLike) -> tuple[int, int, str] | None:
    """``(done, total, what)`` from a progress file, or ``None`` when there is none yet or it
    cannot be read (a cell writing it on another machine, a partial write)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return int(data["done"]), int(data["total"]), str(data["what"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
