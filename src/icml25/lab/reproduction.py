"""The reproduction protocol: scales, cells, run_cell, summarize.

A paper's reproduction is three modules. ``icml25/<slug>/claims.py`` defines

``CLAIMS``
    a tuple of :class:`~icml25.lab.claims.Claim` (claims and checks), declared before anything
    runs; the file imports nothing but the lab's ``Claim``, and the lab reads it by its path,
    without importing the paper's package (and its torch);

and may define ``TOLERANCES``, a dict ``{metric: relative tolerance}`` for the measurements
that ``icml25 run --compare`` may not expect to repeat to the default 1e-6; ``None`` marks a
wall-clock measurement (a time, a throughput), shown beside the committed one but not compared.

``icml25.<slug>.reproduce``, the map side, defines

``SCALES``
    a dict ``{"smoke": cfg, "default": cfg, "paper": cfg}`` of frozen config dataclasses;
``cells(config) -> list[dict]``
    the independent cells of the grid, each a small dict of JSON-able parameters (a cell
    that names another under ``seed_as`` gets that cell's seed: a model cell that works on
    what an offline cell draws and trains); a config with a field ``llm`` takes a model
    endpoint, and its model budget is its ``llm_*`` fields (``--llm-budget``);
``run_cell(config, cell, seed) -> dict``
    one cell's computation (a training run, a simulation, a solver call), seeded by ``seed``
    alone; it returns numbers, and arrays for the figures;

and may define

``CELL_THREADS``
    an int: the most threads (torch, BLAS, OpenMP) one cell should use, for cells whose small
    products run slower on more threads; the runner applies it, in workers and in-process;
``cell_cores(config, cell) -> int``
    the cores one cell keeps busy at once, for a cell that starts processes of its own (the
    ranks of a distributed job; default 1): on a local pool such a cell takes that many of the
    ``--jobs`` places, and one that asks for them all runs with no cell beside it;
``MODEL_NEEDS_IMAGES``
    ``True`` for a paper whose model cells send images: given a model whose server says it
    reads text only, the runner runs the paper without the model and says so in one line;
``TEXT_ONLY_VARIANT``
    for such a paper, a sentence saying what its model cells do instead with a model that
    reads text only (``config.llm.reads_images is False``; the paper's own text-only
    ablation where it has one): the runner then runs that variant, and says so in one line.

``icml25.<slug>.summary``, the reduce side, may import ``reproduce`` (never the reverse) and
defines

``summarize(config, results) -> Summary``
    ``results`` is a list of ``(cell, output)`` pairs in the order of ``cells(config)``; the
    runner calls it only when every cell succeeded, or every cell but some of the model cells
    (those that ``cells`` gives only with an endpoint), which are then left out; it returns
    the measurements and figures, never a verdict. Figures are functions, drawn by the runner
    after the measurements are taken: one that raises is a warning, and the verdicts stand.

The cells are cached under :func:`code_fingerprint` (the map side) and the summary records
:func:`summary_fingerprint` (the reduce side): editing ``summary.py`` reduces the cached cells
again without recomputing any.

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
    """What ``summarize`` returns: named measurements (floats), named figures, and optional
    captions for them (``{name: caption}``; else the figure's own title is used).

    A figure is a matplotlib ``Figure`` or, better, a function of no arguments that returns
    one: the runner calls it after the measurements are safe, and a figure that raises is a
    warning that leaves every verdict as it is."""

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
    cell_cores: Callable[[Any, dict], int] = lambda config, cell: 1
    model_needs_images: bool = False
    text_only_variant: str | None = None

    def config(self, scale: str) -> Any:
        if scale not in self.scales:
            raise ValueError(f"scale must be one of {list(self.scales)}, got {scale!r}")
        return self.scales[scale]


def module_path(slug: str) -> str:
    """Where the map side of a paper's reproduction lives; the lab imports it by this path."""
    return f"icml25.{slug}.reproduce"


def summary_module_path(slug: str) -> str:
    """Where the reduce side of a paper's reproduction lives."""
    return f"icml25.{slug}.summary"


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


def smoke_unmeasured(slug: str) -> dict[str, str]:
    """``{claim id: why}`` for the claims that the smoke scale cannot measure (a quantity
    undefined in so short a run), from the paper's claims.py: at smoke these must be "not
    measured" and every other claim measured."""
    declared = dict(getattr(claims_module(slug), "SMOKE_UNMEASURED", {}))
    ids = {c.id for c in load_claims(slug)}
    unknown = sorted(set(declared) - ids)
    if unknown:
        raise TypeError(
            f"{claims_path(slug)}: SMOKE_UNMEASURED must map claim ids to reasons, got ids "
            f"{unknown} that no claim declares"
        )
    unexplained = sorted(k for k, why in declared.items() if not (isinstance(why, str) and why))
    if unexplained:
        raise TypeError(
            f"{claims_path(slug)}: SMOKE_UNMEASURED must give each claim id a non-empty reason "
            f"(a string), got none for {unexplained}"
        )
    return declared


def load(slug: str) -> Reproduction:
    """Import ``icml25.<slug>.reproduce`` and ``icml25.<slug>.summary`` and check that they
    follow the protocol."""
    module = importlib.import_module(module_path(slug))
    reduce = importlib.import_module(summary_module_path(slug))
    return from_module(slug, module, load_claims(slug), reduce)


def from_module(
    slug: str,
    module: ModuleType,
    claims: tuple[Claim, ...],
    reduce: ModuleType | None = None,
) -> Reproduction:
    """The reproduction of the map module ``module`` and the reduce module ``reduce``
    (default: ``module`` itself, for a test's one-file reproduction)."""
    reduce = module if reduce is None else reduce
    missing = [name for name in ("SCALES", "cells", "run_cell") if not hasattr(module, name)]
    if missing:
        raise TypeError(f"{module.__name__} does not define {', '.join(missing)}")
    if not hasattr(reduce, "summarize"):
        raise TypeError(f"{reduce.__name__} does not define summarize")
    if reduce is not module and hasattr(module, "summarize"):
        raise TypeError(f"{module.__name__} defines summarize: it belongs in {reduce.__name__}")
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
        summarize=reduce.summarize,
        cell_cores=getattr(module, "cell_cores", Reproduction.cell_cores),
        model_needs_images=bool(getattr(module, "MODEL_NEEDS_IMAGES", False)),
        text_only_variant=_text_only_variant(module),
    )


def _text_only_variant(module: Any) -> str | None:
    variant = getattr(module, "TEXT_ONLY_VARIANT", None)
    if variant is not None and not (isinstance(variant, str) and variant.strip()):
        raise TypeError(f"{module.__name__}.TEXT_ONLY_VARIANT must be a sentence, got {variant!r}")
    return variant


def cell_key(cell: Mapping[str, Any]) -> str:
    """A canonical text for a cell, independent of the order of its keys."""
    return json.dumps(cell, sort_keys=True, separators=(",", ":"), default=str)


def config_fingerprint(config: Any) -> str:
    """A short hash of a config's values: cached cells of another config are never reused. A
    field whose value has ``__fingerprint__()`` (a model :class:`~icml25.common.llm.Endpoint`)
    counts by what that returns: the model it reaches, not the port it was served on."""
    values = dataclasses.asdict(config)
    for entry in dataclasses.fields(config):
        own = getattr(getattr(config, entry.name), "__fingerprint__", None)
        if callable(own):
            values[entry.name] = own()
    text = json.dumps(values, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


MAP_ROOTS = ("SCALES", "cells", "run_cell", "CELL_THREADS")
REDUCE_ROOTS = ("summarize",)
PROGRESS_MODULE = "icml25.common.progress"  # reports how far a cell is; computes nothing


def code_fingerprint(slug: str, root: Path | None = None) -> str:
    """A short hash of the map side of a paper, what ``cells`` and ``run_cell`` compute:
    editing it makes the runner recompute cells rather than reuse stale ones.

    It covers the top-level definitions of ``reproduce.py`` that ``SCALES``, ``cells``,
    ``run_cell`` and ``CELL_THREADS`` reach by name, its top-level statements that bind no
    name, the package's ``__init__.py``, and every icml25 module these import, directly or
    through one another. Docstrings and comments do not count (the hash is over syntax trees
    without docstrings), nor calls of ``report_progress`` as statements and the import of
    :data:`PROGRESS_MODULE` (they compute nothing), nor do ``claims.py`` (claims are judged
    afresh at every run) and ``summary.py`` (:func:`summary_fingerprint`)."""
    root = root or _package_root()
    entries = _entries(root / slug / "reproduce.py", root, slug)
    chosen = _reach(entries, MAP_ROOTS, [e for e in entries if not e.binds])
    init = root / slug / "__init__.py"
    return _digest(root, chosen, _module_closure(root, slug, chosen, [init]))


def summary_fingerprint(slug: str, root: Path | None = None) -> str:
    """A short hash of the reduce side of a paper: the top-level definitions that
    ``summarize`` reaches by name in ``summary.py`` and, through what it imports from there,
    in ``reproduce.py``, and the icml25 modules these import. A summary-only edit changes it
    and not :func:`code_fingerprint`, and the runner reduces the cached cells again; a
    definition moved unchanged between the two files changes neither."""
    root = root or _package_root()
    entries = _entries(root / slug / "reproduce.py", root, slug)
    effects: list[_Entry] = []
    path = root / slug / "summary.py"
    if path.is_file():
        own = _entries(path, root, slug)
        defined = {name for e in own for name in e.binds}
        entries = [e for e in entries if not set(e.binds) & defined] + own
        effects = [e for e in own if not e.binds]
    chosen = _reach(entries, REDUCE_ROOTS, effects)
    return _digest(root, chosen, _module_closure(root, slug, chosen, []))


@dataclass(frozen=True)
class _Entry:
    """One top-level statement of a module (an import: one entry per imported name): the
    names it binds, the names it reads, its text, and the icml25 module file it imports."""

    binds: tuple[str, ...]
    reads: frozenset[str]
    text: str
    module: Path | None = None


def _package_root() -> Path:
    return Path(str(resources.files("icml25")))


def _entries(path: Path, root: Path, slug: str) -> list[_Entry]:
    """The top-level statements of a module file. Names that ``summary.py`` imports from its
    package's ``reproduce.py`` are no entries of their own: they resolve to the definitions
    there."""
    if not path.is_file():
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    _strip_inert(tree)
    package = ("icml25", *path.parent.relative_to(root).parts)
    entries = []
    for node in tree.body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            binds = _bound_names(node)
            reads = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - set(binds)
            entries.append(_Entry(binds, frozenset(reads), ast.dump(node)))
            continue
        for alias in node.names:
            name, target = _imported(node, alias, package, root)
            if path.name == "summary.py" and target == root / slug / "reproduce.py":
                continue
            bound = alias.asname or alias.name.split(".")[0]
            entries.append(_Entry((bound,), frozenset(), f"import {name} as {bound}", target))
    return entries


def _bound_names(node: ast.stmt) -> tuple[str, ...]:
    """The names a top-level definition or assignment binds; () for any other statement."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return (node.name,)
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return ()
    return tuple(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))


def _reach(entries: list[_Entry], roots: tuple[str, ...], always: list[_Entry]) -> list[_Entry]:
    """``always`` and the entries that ``roots`` and ``always`` reach by the names they read."""
    by_name: dict[str, list[_Entry]] = {}
    for entry in entries:
        for name in entry.binds:
            by_name.setdefault(name, []).append(entry)
    chosen = {id(e): e for e in always}
    queue, seen = [*roots, *(name for e in always for name in e.reads)], set()
    while queue:
        name = queue.pop()
        if name not in seen:
            seen.add(name)
            for entry in by_name.get(name, []):
                chosen[id(entry)] = entry
                queue.extend(entry.reads)
    return list(chosen.values())


def _imported(
    node: ast.Import | ast.ImportFrom, alias: ast.alias, package: tuple[str, ...], root: Path
) -> tuple[str, Path | None]:
    """The absolute dotted name one imported name stands for, and the icml25 module file it
    brings in (None for another library's)."""
    if isinstance(node, ast.Import):
        candidates = [alias.name]
    else:
        base = node.module or ""
        if node.level:
            head = ".".join(package[: len(package) - node.level + 1])
            base = f"{head}.{base}" if base else head
        candidates = [f"{base}.{alias.name}", base]
    for dotted in candidates:
        parts = dotted.split(".")
        if parts[0] != "icml25":
            continue
        for path in (
            root.joinpath(*parts[1:]).with_suffix(".py"),
            root.joinpath(*parts[1:], "__init__.py"),
        ):
            if len(parts) > 1 and path.is_file():
                return candidates[-1] + ":" + alias.name, path
    return candidates[-1] + ":" + alias.name, None


def _module_closure(root: Path, slug: str, chosen: list[_Entry], start: list[Path]) -> list[Path]:
    """The modules of the paper's package (but its reproduce, summary and claims) and of
    ``icml25.common`` that the chosen entries and the ``start`` files import, directly or
    through one another (the lab's own modules are not the paper's code)."""
    skip = {root / slug / name for name in ("claims.py", "summary.py", "reproduce.py")}
    skip.add(root.joinpath(*PROGRESS_MODULE.split(".")[1:]).with_suffix(".py"))
    queue = [*start, *(e.module for e in chosen if e.module is not None)]
    files: set[Path] = set()
    while queue:
        path = queue.pop()
        if path in files or path in skip or not path.is_file():
            continue
        if path.parent not in (root / slug, root / "common"):
            continue
        files.add(path)
        package = ("icml25", *path.parent.relative_to(root).parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                queue.extend(
                    target
                    for alias in node.names
                    if (target := _imported(node, alias, package, root)[1]) is not None
                )
    return sorted(files)


def _digest(root: Path, chosen: list[_Entry], files: list[Path]) -> str:
    """The hash of the chosen entries (in an order that does not depend on the file they are
    in) and of the module files (without docstrings)."""
    digest = hashlib.sha256()
    for text in sorted(e.text for e in chosen):
        digest.update(text.encode())
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(_code_without_docstrings(path.read_text(encoding="utf-8")).encode())
    return digest.hexdigest()[:12]


def _code_files(root: Path, slug: str) -> list[Path]:
    """The icml25 module files both sides of a paper run: its reproduce.py and summary.py and
    the modules they import (for the versions of the libraries these import)."""
    sides = [root / slug / "reproduce.py", root / slug / "summary.py", root / slug / "__init__.py"]
    sides = [p for p in sides if p.is_file()]
    everything = [
        _Entry((), frozenset(), "", target)
        for path in sides
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
        if (target := _imported(node, alias, ("icml25", slug), root)[1]) is not None
    ]
    return sides + _module_closure(root, slug, everything, [])


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
    _strip_inert(tree)
    return ast.dump(tree)


def _strip_inert(tree: ast.AST) -> None:
    """Remove what computes nothing from ``tree``: docstrings, calls of ``report_progress`` as
    statements, and the import of :data:`PROGRESS_MODULE` (written absolutely)."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
                continue
            if name == "body" and _is_docstring(body[0]):
                body = body[1:]
            kept = [s for s in body if not (_reports_progress(s) or _imports_progress(s))]
            if len(kept) < len(getattr(node, name)):
                setattr(node, name, kept or ([ast.Pass()] if name == "body" else []))


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _reports_progress(statement: ast.stmt) -> bool:
    """``report_progress(...)`` or ``<anything>.report_progress(...)`` as a statement."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    return name == "report_progress"


def _imports_progress(statement: ast.stmt) -> bool:
    package, module = PROGRESS_MODULE.rsplit(".", 1)
    if isinstance(statement, ast.ImportFrom) and not statement.level:
        return statement.module == PROGRESS_MODULE or (
            statement.module == package and all(a.name == module for a in statement.names)
        )
    if isinstance(statement, ast.Import):
        return all(a.name == PROGRESS_MODULE for a in statement.names)
    return False


def cell_seed(master_seed: int, slug: str, cell: Mapping[str, Any]) -> int:
    """The seed of one cell, derived from (master seed, paper, cell) by hashing.

    It does not depend on the order of the cells nor on which worker runs them. A cell that
    names another under ``seed_as`` gets that cell's seed: a model cell that works on what an
    offline cell draws and trains (the same split, the same weights).
    """
    cell = cell.get("seed_as", cell)
    text = f"{master_seed}|{slug}|{cell_key(cell)}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1
