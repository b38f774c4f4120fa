"""The reproduction protocol: scales, cells, run_cell, summarize.

A paper's reproduction is the module ``icml25.<slug>.reproduce``. It defines

``CLAIMS``
    a tuple of :class:`~icml25.lab.claims.Claim`, declared before anything runs;
``SCALES``
    a dict ``{"smoke": cfg, "default": cfg, "paper": cfg}`` of frozen config dataclasses;
``cells(config) -> list[dict]``
    the independent cells of the grid, each a small dict of JSON-able parameters;
``run_cell(config, cell, seed) -> dict``
    one cell's computation (a training run, a simulation, a solver call), seeded by ``seed``
    alone; it returns numbers, and arrays for the figures;
``summarize(config, results) -> Summary``
    ``results`` is a list of ``(cell, output)`` pairs in the order of ``cells(config)``, for the
    cells that finished; it returns the measurements and figures, never a verdict;

and may define

``CELL_THREADS``
    an int: the most threads (torch, BLAS, OpenMP) one cell should use, for cells whose small
    products run slower on more threads; the runner applies it, in workers and in-process.

Because a reproduction is map(run_cell) then reduce(summarize), the runner can place its cells
on any worker, and a test can run a single cell.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from icml25.lab.claims import Claim

SCALE_NAMES = ("smoke", "default", "paper")


@dataclass
class Summary:
    """What ``summarize`` returns: named measurements (floats) and named matplotlib figures."""

    measurements: dict[str, float]
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reproduction:
    """A loaded and checked reproduction module."""

    slug: str
    claims: tuple[Claim, ...]
    scales: Mapping[str, Any]
    cells: Callable[[Any], list[dict]]
    run_cell: Callable[[Any, dict, int], dict]
    summarize: Callable[[Any, list[tuple[dict, dict]]], Summary]

    def config(self, scale: str) -> Any:
        if scale not in self.scales:
            raise ValueError(f"scale must be one of {list(self.scales)}, got {scale!r}")
        return self.scales[scale]


def module_path(slug: str) -> str:
    """Where the reproduction of a paper lives; the lab imports it by this path only."""
    return f"icml25.{slug}.reproduce"


def load(slug: str) -> Reproduction:
    """Import ``icml25.<slug>.reproduce`` and check that it follows the protocol."""
    module = importlib.import_module(module_path(slug))
    return from_module(slug, module)


def from_module(slug: str, module: ModuleType) -> Reproduction:
    missing = [
        name
        for name in ("CLAIMS", "SCALES", "cells", "run_cell", "summarize")
        if not hasattr(module, name)
    ]
    if missing:
        raise TypeError(f"{module.__name__} does not define {', '.join(missing)}")
    claims = tuple(module.CLAIMS)
    if not claims or not all(isinstance(c, Claim) for c in claims):
        raise TypeError(f"{module.__name__}.CLAIMS must be a non-empty sequence of Claim")
    if len({c.id for c in claims}) != len(claims):
        raise TypeError(f"{module.__name__}.CLAIMS has duplicate ids")
    if set(module.SCALES) != set(SCALE_NAMES):
        raise TypeError(f"{module.__name__}.SCALES must have exactly the keys {SCALE_NAMES}")
    for name, config in module.SCALES.items():
        if not dataclasses.is_dataclass(config) or not config.__dataclass_params__.frozen:
            raise TypeError(f"{module.__name__}.SCALES[{name!r}] must be a frozen dataclass")
    return Reproduction(
        slug=slug,
        claims=claims,
        scales=dict(module.SCALES),
        cells=module.cells,
        run_cell=module.run_cell,
        summarize=module.summarize,
    )


def cell_key(cell: Mapping[str, Any]) -> str:
    """A canonical text for a cell, independent of the order of its keys."""
    return json.dumps(cell, sort_keys=True, separators=(",", ":"), default=str)


def config_fingerprint(config: Any) -> str:
    """A short hash of a config's values: cached cells of another config are never reused."""
    text = json.dumps(dataclasses.asdict(config), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def code_fingerprint(slug: str) -> str:
    """A short hash of the code of the paper's package and of ``icml25.common``: editing it makes
    the runner recompute cells rather than reuse stale ones. Docstrings and comments do not
    count (the hash is over the syntax trees without docstrings)."""
    root = Path(str(resources.files("icml25")))
    digest = hashlib.sha256()
    for folder in (slug, "common"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(_code_without_docstrings(path.read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:12]


def _code_without_docstrings(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def cell_seed(master_seed: int, slug: str, cell: Mapping[str, Any]) -> int:
    """The seed of one cell, derived from (master seed, paper, cell) by hashing.

    It does not depend on the order of the cells nor on which worker runs them.
    """
    text = f"{master_seed}|{slug}|{cell_key(cell)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1
