"""The reproduction protocol: scales, cells, run_cell, summarize.

A paper's reproduction is two modules. ``icml25/<slug>/claims.py`` defines

``CLAIMS``
    a tuple of :class:`~icml25.lab.claims.Claim` (claims and checks), declared before anything
    runs; the file imports nothing but the lab's ``Claim``, and the lab reads it by its path,
    without importing the paper's package (and its torch);

and may define ``TOLERANCES``, a dict ``{metric: relative tolerance}`` for the measurements
that ``icml25 run --compare`` may not expect to repeat to the default 1e-6; ``None`` marks a
wall-clock measurement (a time, a throughput), shown beside the committed one but not compared.

``icml25.<slug>.reproduce`` defines

``SCALES``
    a dict ``{"smoke": cfg, "default": cfg, "paper": cfg}`` of frozen config dataclasses;
``cells(config) -> list[dict]``
    the independent cells of the grid, each a small dict of JSON-able parameters;
``run_cell(config, cell, seed) -> dict``
    one cell's computation (a training run, a simulation, a solver call), seeded by ``seed``
    alone; it returns numbers, and arrays for the figures;
``summarize(config, results) -> Summary``
    ``results`` is a list of ``(cell, output)`` pairs in the order of ``cells(config)``; the
    runner calls it only when every cell succeeded; it returns the measurements and figures,
    never a verdict;

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
import importlib.metadata
import importlib.util
import json
import platform
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

from icml25.lab.claims import Claim

SCALE_NAMES = ("smoke", "default", "paper")


@dataclass
class Summary:
    """What ``summarize`` returns: named measurements (floats), named matplotlib figures, and
    optional captions for them (``{name: caption}``; else the figure's own title is used)."""

    measurements: dict[str, float]
    figures: dict[str, Any] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)


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


def claims_path(slug: str) -> Path:
    return Path(str(resources.files("icml25"))) / slug / "claims.py"


def claims_module(slug: str) -> ModuleType:
    """Execute ``icml25/<slug>/claims.py`` by its path, without importing ``icml25.<slug>``."""
    path = claims_path(slug)
    if not path.is_file():
        raise TypeError(f"{path} is missing: a reproduction declares its CLAIMS there")
    spec = importlib.util.spec_from_file_location(f"icml25._claims_{slug}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_claims(slug: str) -> tuple[Claim, ...]:
    """The declared claims and checks of a paper, checked; imports no paper code."""
    module = claims_module(slug)
    claims = tuple(getattr(module, "CLAIMS", ()))
    if not claims or not all(isinstance(c, Claim) for c in claims):
        raise TypeError(f"{claims_path(slug)}: CLAIMS must be a non-empty sequence of Claim")
    if len({c.id for c in claims}) != len(claims):
        raise TypeError(f"{claims_path(slug)}: CLAIMS has duplicate ids")
    return claims


def tolerances(slug: str) -> dict[str, float | None]:
    """``{metric: relative tolerance or None}`` for ``--compare``, from the paper's claims.py."""
    return dict(getattr(claims_module(slug), "TOLERANCES", {}))


def load(slug: str) -> Reproduction:
    """Import ``icml25.<slug>.reproduce`` and check that it follows the protocol."""
    module = importlib.import_module(module_path(slug))
    return from_module(slug, module, load_claims(slug))


def from_module(slug: str, module: ModuleType, claims: tuple[Claim, ...]) -> Reproduction:
    missing = [
        name for name in ("SCALES", "cells", "run_cell", "summarize") if not hasattr(module, name)
    ]
    if missing:
        raise TypeError(f"{module.__name__} does not define {', '.join(missing)}")
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
    """A short hash of the code of the paper's package and of the ``icml25.common`` modules it
    imports: editing them makes the runner recompute cells rather than reuse stale ones.
    Docstrings and comments do not count (the hash is over the syntax trees without
    docstrings), nor does the paper's ``claims.py``: claims are judged afresh from the cells at
    every run."""
    root = Path(str(resources.files("icml25")))
    digest = hashlib.sha256()
    for path in _code_files(root, slug):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(_code_without_docstrings(path.read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:12]


def _code_files(root: Path, slug: str) -> list[Path]:
    """The paper's modules but ``claims.py``, and the ``icml25.common`` modules they import,
    directly or through one another (a change to a common module another paper uses is not a
    change to this one)."""
    files = [p for p in sorted((root / slug).rglob("*.py")) if p != root / slug / "claims.py"]
    common: set[Path] = set()
    queue = list(files)
    while queue:
        for name in _common_imports(queue.pop()):
            path = root / "common" / f"{name}.py"
            if path.is_file() and path not in common:
                common.add(path)
                queue.append(path)
    return files + sorted(common)


def _common_imports(path: Path) -> set[str]:
    """Names of the ``icml25.common`` modules that the file at ``path`` imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.startswith("icml25.common."):
                names.add(node.module.split(".")[2])
            elif node.module == "icml25.common":
                names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(
                alias.name.split(".")[2]
                for alias in node.names
                if alias.name.startswith("icml25.common.")
            )
    return names


def dependency_versions(slug: str) -> dict[str, str]:
    """Versions of python and of every installed distribution that the code of the paper (and
    of the ``icml25.common`` modules it uses) imports: an upgraded torch or numpy must not reuse
    old cells."""
    root = Path(str(resources.files("icml25")))
    modules = set()
    for path in _code_files(root, slug):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                modules.add(node.module.split(".")[0])
    distributions = _distributions()
    versions = {"python": platform.python_version()}
    for module in sorted(modules - {"icml25"} - set(sys.stdlib_module_names)):
        for name in distributions.get(module, []):
            try:
                versions[name.lower()] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                pass
    return versions


@cache
def _distributions() -> dict[str, list[str]]:
    """Top-level module -> installed distributions (scanning them once per process)."""
    return importlib.metadata.packages_distributions()


def dependency_fingerprint(slug: str) -> str:
    text = json.dumps(dependency_versions(slug), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


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
