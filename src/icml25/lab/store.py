"""Where runs live on disk, and writes that are atomic.

Layout under the runs folder (``runs/`` by default)::

    runs/<slug>/<scale>/cells/<cell id>.pkl   one record per finished (or failed) cell
    runs/<slug>/<scale>/summary.json          measurements, claims and verdicts, run time
    runs/<slug>/<scale>/figures/<name>.png    the summary's figures

A cell's id hashes its parameters, the master seed and the config, so a rerun with another seed
or another config never picks up a stale record.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from icml25.lab.reproduction import SCALE_NAMES, cell_key


def scale_dir(runs: Path, slug: str, scale: str) -> Path:
    return Path(runs) / slug / scale


def cell_path(runs: Path, slug: str, scale: str, cell: dict, seed: int, fingerprint: str) -> Path:
    text = f"{cell_key(cell)}|{seed}|{fingerprint}"
    cell_id = hashlib.sha256(text.encode()).hexdigest()[:16]
    return scale_dir(runs, slug, scale) / "cells" / f"{cell_id}.pkl"


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees either nothing or the whole file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_record(path: Path, record: dict) -> None:
    write_atomic(path, pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))


def read_record(path: Path) -> dict | None:
    """A cell record, or None when there is none (or it cannot be read)."""
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError):
        return None


def write_summary(runs: Path, slug: str, scale: str, summary: dict) -> Path:
    path = scale_dir(runs, slug, scale) / "summary.json"
    write_atomic(path, json.dumps(summary, indent=2, sort_keys=False).encode())
    return path


def read_summary(runs: Path, slug: str, scale: str) -> dict | None:
    path = scale_dir(runs, slug, scale) / "summary.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text())


def summaries(runs: Path, slug: str) -> dict[str, dict]:
    """Every scale's summary of one paper found under ``runs``, keyed by scale."""
    found = {}
    for scale in SCALE_NAMES:
        summary = read_summary(runs, slug, scale)
        if summary is not None:
            found[scale] = summary
    return found


def latest(runs: Path, slug: str) -> dict[str, Any] | None:
    """The summary of the largest scale run so far (paper, then default, then smoke)."""
    found = summaries(runs, slug)
    for scale in reversed(SCALE_NAMES):
        if scale in found:
            return found[scale]
    return None
