"""Where runs live on disk, in formats that are safe to open, written atomically.

Layout under a runs folder (``runs/`` by default)::

    runs/<slug>/<scale>/seed-<N>/cells/<cell id>.json   one record per finished (or failed) cell
    runs/<slug>/<scale>/seed-<N>/cells/<cell id>.npz    its arrays, when it has any
    runs/<slug>/<scale>/seed-<N>/summary.json           measurements, claims, verdicts, provenance
    runs/<slug>/<scale>/seed-<N>/figures/<name>.png     the summary's figures
    runs/<slug>/<scale>/seed-<N>/.lock                  held by the run writing this folder

A run of a paper against a language model lives beside its offline run, in
``seed-<N>-<model>/`` (:func:`model_tag`: ``--llm-model local`` gives ``seed-0-smollm2``), so
that the two are read side by side and neither overwrites the other.

A cell's id hashes its parameters, its seed, the config, the code and the versions of the
libraries the paper imports, so a rerun with another seed, config, code or torch never picks up
a stale record. Records are JSON for numbers and ``.npz`` (read with ``allow_pickle=False``) for
arrays: loading somebody else's ``runs/`` never runs code. A file that cannot be read is
reported with its path (:class:`Unreadable`), never loaded half-way.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import math
import os
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import filelock
import jsonschema
import numpy as np

from icml25.lab.reproduction import SCALE_NAMES, cell_key
from icml25.lab.run_summary import SCHEMA

CELL_FORMAT = 1  # of a cell record
SCHEMA_FILE = "summary.schema.json"  # the JSON Schema of summary.json, in icml25.lab


class Unreadable(Exception):
    """A file of the store that exists but cannot be read: its path and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = Path(path), reason


# ---------------------------------------------------------------- paths


MODEL_TAG = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")  # no separator, never "." or ".."


def model_tag(model: str) -> str:
    """The folder-safe tag of a model's name: ``local:smollm2`` -> ``smollm2``,
    ``meta-llama/Llama-3.1-8B`` -> ``meta-llama-llama-3.1-8b`` (lower case; every run of
    characters other than letters, digits, ``.``, ``_`` and ``-`` becomes one ``-``)."""
    name = model.removeprefix("local:").lower()
    tag = re.sub(r"[^a-z0-9._-]+", "-", name).strip("-._")[:64].rstrip("-._")
    if not MODEL_TAG.fullmatch(tag):
        raise ValueError(f"model name {model!r} has no letter or digit to name its run folder")
    return tag


def run_dir(runs: Path, slug: str, scale: str, seed: int, model: str | None = None) -> Path:
    """The folder of one run; ``model``: the :func:`model_tag` of a run against a model."""
    if model is None:
        return Path(runs) / slug / scale / f"seed-{seed}"
    if not isinstance(model, str) or not MODEL_TAG.fullmatch(model):
        raise ValueError(f"model tag {model!r} is not a folder-safe tag (see store.model_tag)")
    return Path(runs) / slug / scale / f"seed-{seed}-{model}"


def cell_path(
    runs: Path, slug: str, scale: str, seed: int, cell: dict, key: str, model: str | None = None
) -> Path:
    """The record of one cell; ``key`` holds the cell's seed and the fingerprints."""
    cell_id = hashlib.sha256(f"{cell_key(cell)}|{key}".encode()).hexdigest()[:16]
    return run_dir(runs, slug, scale, seed, model) / "cells" / f"{cell_id}.json"


# ---------------------------------------------------------------- atomic writes


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees either nothing or the whole file, with
    the permissions the user's umask gives a new file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_atomic(path, text.encode("utf-8"))


def save_figure_atomic(figure: Any, path: Path) -> None:
    """A matplotlib figure to ``path`` (PNG), atomically."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    write_atomic(path, buffer.getvalue())


# ---------------------------------------------------------------- cell records


def encode(value: Any) -> tuple[Any, dict[str, np.ndarray]]:
    """Split a cell's record into JSON-able data and named arrays.

    Arrays (numpy, or torch tensors, stored as numpy) become ``{"__array__": name}``; tuples
    ``{"__tuple__": [...]}``; dicts whose keys are not all strings ``{"__items__": [[k, v]]}``;
    non-finite floats ``{"__float__": "nan"}``. Anything else raises TypeError naming where.
    """
    arrays: dict[str, np.ndarray] = {}

    def walk(v: Any, where: str) -> Any:
        if v is None or isinstance(v, bool | str):
            return v
        if isinstance(v, int | np.integer) and not isinstance(v, bool):
            return int(v)
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, float | np.floating):
            v = float(v)
            return v if math.isfinite(v) else {"__float__": repr(v)}
        if type(v).__module__ == "torch" and type(v).__name__ == "Tensor":
            v = v.detach().cpu().numpy()
        if isinstance(v, np.ndarray):
            if v.dtype == object:
                raise TypeError(f"{where}: object arrays cannot be stored safely")
            name = f"a{len(arrays)}"
            arrays[name] = v
            return {"__array__": name}
        if isinstance(v, tuple):
            return {"__tuple__": [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, list):
            return [walk(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            if all(isinstance(k, str) for k in v) and not (_RESERVED & set(v)):
                return {k: walk(x, f"{where}[{k!r}]") for k, x in v.items()}
            return {
                "__items__": [[walk(k, where), walk(x, f"{where}[{k!r}]")] for k, x in v.items()]
            }
        raise TypeError(f"{where}: cannot store a {type(v).__name__}")

    return walk(value, "record"), arrays


_RESERVED = {"__array__", "__tuple__", "__float__", "__items__"}


def decode(data: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The inverse of :func:`encode`."""
    if isinstance(data, list):
        return [decode(x, arrays) for x in data]
    if isinstance(data, dict):
        if set(data) == {"__array__"}:
            return arrays[data["__array__"]]
        if set(data) == {"__tuple__"}:
            return tuple(decode(x, arrays) for x in data["__tuple__"])
        if set(data) == {"__float__"}:
            return float(data["__float__"])
        if set(data) == {"__items__"}:
            return {_hashable(decode(k, arrays)): decode(v, arrays) for k, v in data["__items__"]}
        return {k: decode(v, arrays) for k, v in data.items()}
    return data


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


def write_cell(path: Path, record: dict) -> dict:
    """Arrays first (``.npz``), then the JSON record that names them: a reader that finds the
    JSON finds its arrays. Returns the record as :func:`read_cell` will give it back, so that a
    fresh cell is summarised from the same values a cached one would be."""
    data, arrays = encode(record)
    npz = path.with_suffix(".npz")
    if arrays:
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        write_atomic(npz, buffer.getvalue())
    else:
        npz.unlink(missing_ok=True)
    text = json.dumps(
        {"format": CELL_FORMAT, "arrays": npz.name if arrays else None, "record": data}
    )
    write_atomic(path, text.encode())
    return decode(json.loads(text)["record"], arrays)


MAX_JSON_BYTES = 256 * 2**20
"""The largest cell record or summary read (a larger file is refused, not read into memory)."""


def read_json_file(path: Path, limit: int | None = None) -> Any:
    """The JSON value in ``path``: a regular file (a FIFO, a device or a link to one is refused
    before it is opened, so it cannot block or stream for ever) of at most ``limit`` bytes;
    ``ValueError`` naming what is wrong, also for nesting too deep to decode. ``limit``
    defaults to :data:`MAX_JSON_BYTES`."""
    import stat

    limit = MAX_JSON_BYTES if limit is None else limit
    info = os.stat(path)  # follows a symbolic link to what it names
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("not a regular file")
    if info.st_size > limit:
        raise ValueError(f"{info.st_size} bytes, more than the {limit} this icml25 reads")
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"more than the {limit} bytes this icml25 reads")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def read_cell(path: Path) -> dict | None:
    """A cell record; None when there is none; :class:`Unreadable` when the files are
    truncated, corrupt or not a record."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        body = read_json_file(path)
        if not isinstance(body, dict) or body.get("format") != CELL_FORMAT:
            raise ValueError(f"not a cell record of format {CELL_FORMAT}")
        arrays = {}
        if body["arrays"]:
            with np.load(path.parent / body["arrays"], allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        record = decode(body["record"], arrays)
        if not isinstance(record, dict) or record.get("status") not in {"ok", "failed"}:
            raise ValueError("the record has no status")
        if record["status"] == "ok" and "output" not in record:
            raise ValueError("a finished record without output")
        return record
    except (
        OSError, ValueError, KeyError, TypeError, EOFError, RecursionError, zipfile.BadZipFile
    ) as err:  # fmt: skip
        raise Unreadable(path, f"{type(err).__name__}: {err}") from None


# ---------------------------------------------------------------- summaries


def summary_path(runs: Path, slug: str, scale: str, seed: int, model: str | None = None) -> Path:
    return run_dir(runs, slug, scale, seed, model) / "summary.json"


def write_summary(runs: Path, slug: str, scale: str, seed: int, summary: dict) -> Path:
    """Write ``summary`` to its run folder; ValueError, before anything is written, when it
    does not conform to :func:`summary_schema`."""
    if problem := summary_problem(summary):
        raise ValueError(f"the summary of {slug} does not conform to its schema: {problem}")
    path = summary_path(runs, slug, scale, seed, summary.get("model"))
    write_atomic(path, json.dumps(summary, indent=2).encode())
    return path


def summary_schema() -> dict:
    """The JSON Schema of summary.json (draft 2020-12), shipped as
    ``icml25/lab/summary.schema.json``."""
    return json.loads(resources.files("icml25.lab").joinpath(SCHEMA_FILE).read_text())


@functools.cache
def _summary_validator() -> jsonschema.protocols.Validator:
    schema = summary_schema()
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    return validator(schema)


def summary_problem(summary: Any) -> str | None:
    """What is wrong with ``summary`` against :func:`summary_schema`, naming the field
    (``seed: -1 is less than the minimum of 0``); None when it conforms."""
    error = jsonschema.exceptions.best_match(_summary_validator().iter_errors(summary))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return f"{where.lstrip('.') or 'summary'}: {error.message}"


def read_summary(path: Path) -> dict:
    """A summary.json that conforms to :func:`summary_schema`, or :class:`Unreadable` naming
    the file and the field."""
    try:
        summary = read_json_file(Path(path))
    except (OSError, ValueError) as err:
        raise Unreadable(path, f"{type(err).__name__}: {err}") from None
    if not isinstance(summary, dict):
        raise Unreadable(path, "not a JSON object")
    if summary.get("schema") != SCHEMA:
        found = summary.get("schema", 1)
        raise Unreadable(path, f"schema {found}, this icml25 reads schema {SCHEMA}: run it again")
    # the schema also keeps slug, scale, seed and model to names that cannot leave the folder
    if problem := summary_problem(summary):
        raise Unreadable(path, problem)
    return summary


def find_summaries(
    runs: Path, slug: str, on_error: Callable[[Unreadable], None] | None = None
) -> list[dict]:
    """Every summary of one paper under ``runs`` (all scales, all seeds, offline and with each
    model), smallest scale first, then by seed, the offline run before the model runs. An
    unreadable one is passed to ``on_error`` (default: skipped) and the rest are read."""
    found = []
    for scale in SCALE_NAMES:
        folder = Path(runs) / slug / scale
        paths = sorted(folder.glob("seed-*/summary.json")) if folder.is_dir() else []
        for path in sorted(paths, key=lambda p: _seed_and_model(p.parent.name)):
            try:
                found.append(read_summary(path))
            except Unreadable as err:
                if on_error is not None:
                    on_error(err)
    return found


def _seed_and_model(name: str) -> tuple[int, str]:
    seed, _, model = name.removeprefix("seed-").partition("-")
    try:
        return int(seed), model
    except ValueError:
        return -1, model


def results_dir() -> Path:
    """The committed evidence shipped with the package: each paper's last default-scale
    summary, in the same layout as a runs folder (``results/<slug>/<scale>/seed-<N>/``)."""
    return Path(str(resources.files("icml25"))) / "results"


def committed_cell_time(
    slug: str, scale: str = "default", model: str | None = None
) -> tuple[int, float] | None:
    """``(cells, seconds of cell time)`` of the committed run of ``slug`` at ``scale`` (seed 0;
    against ``model`` when given), or ``None`` when none is committed or it cannot be read."""
    try:
        summary = read_summary(summary_path(results_dir(), slug, scale, 0, model))
    except (Unreadable, OSError):
        return None
    return summary["cells"]["total"], cell_seconds(summary)


def cell_seconds(summary: dict) -> float:
    """A summary's seconds of cell time: its computed cells' and its cached cells'."""
    timing = summary["timing"]
    return timing["computed_cell_seconds"] + timing["cached_cell_seconds"]


def evidence(
    runs: Path | None, slug: str, on_error: Callable[[Unreadable], None] | None = None
) -> list[dict]:
    """The committed summaries of a paper, then those of ``runs``; each gains an ``origin``
    (``"committed"`` or ``"runs"``) so that a reader knows which it is."""
    found = [{**s, "origin": "committed"} for s in find_summaries(results_dir(), slug, on_error)]
    if runs is not None and Path(runs).resolve() != results_dir().resolve():
        found += [{**s, "origin": "runs"} for s in find_summaries(runs, slug, on_error)]
    return found


def latest(found: list[dict]) -> dict | None:
    """The summary to show first: the largest scale, then an offline run before a run
    against a model (the paper's reproduction is the offline one), then the most recently
    finished."""
    if not found:
        return None
    rank = {scale: i for i, scale in enumerate(SCALE_NAMES)}
    return max(
        found,
        key=lambda s: (
            rank.get(s["scale"], -1),
            s.get("model") is None,
            s.get("provenance", {}).get("finished", ""),
        ),
    )


def offline_beside(found: list[dict], run: dict) -> dict | None:
    """The offline run of the same origin, scale and seed as ``run`` (a run against a model)
    among ``found``, to read beside it; None for an offline ``run`` or where there is none."""
    if run.get("model") is None:
        return None
    same = ("origin", "scale", "seed")
    return next(
        (s for s in found if s.get("model") is None and all(s.get(k) == run.get(k) for k in same)),
        None,
    )


# ---------------------------------------------------------------- one writer per run folder


@contextlib.contextmanager
def locked(folder: Path, on_wait: Callable[[Path], None] | None = None) -> Iterator[None]:
    """Hold ``folder/.lock`` while writing it: a second run on the same folder waits here, then
    finds the cells the first one finished instead of computing them again. The lock is
    ``filelock``'s (``flock`` on POSIX, ``msvcrt`` on Windows), released when the process
    dies."""
    folder.mkdir(parents=True, exist_ok=True)
    lock = filelock.FileLock(folder / ".lock", mode=_file_mode())
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        if on_wait is not None:
            on_wait(folder)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()
