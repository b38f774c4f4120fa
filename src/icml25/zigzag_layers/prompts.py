"""Prompt families built offline from what ships with Python (nothing is downloaded).

The paper feeds SST and Pile-10k prompts to LLMs; here the "data sets" are families of prompts
of different kinds:

- ``docstring``: first lines of the docstrings of standard-library functions and classes, and
  of the public methods of those classes (1331 lines on Python 3.11; 751 without the methods,
  fewer than the 1000 per family of ``--scale paper``);
- ``code``: lines of standard-library Python source;
- ``cooking``, ``sport``, ``travel``, ``weather``: template sentences about one topic, from
  per-topic word lists (same sentence shapes across topics, different words).

Each family is the sorted set of its candidates, subsampled by a generator seeded from the
family's name, so the prompts do not depend on the run's seed.

The ``docstring`` and ``code`` families are read from the modules' *source files* (``ast`` and
plain text), never from the live module objects: other libraries patch those (``import ray``
replaces ``inspect.isgenerator`` by a wrapper without a docstring), and a pool read with
``dir(module)`` would change with what the process has imported, and every measurement with it. A
docstring counts when its function or class is *defined* in the module's source (at top level,
also under ``if``/``try``/``with``; methods directly in a public class's body), not re-exported
from another module (``os`` re-exporting ``posix``, ``heapq`` its C accelerator), nor inherited.
The four listed modules without Python source (``math``, ``itertools``, ``time``, ``zlib``,
written in C) give the docstrings of the objects a *fresh instance* of the module defines
(``importlib.util.module_from_spec``, never the one in ``sys.modules``, which others may have
patched): the C docstrings are prose like the others, and a fresh instance has no patch. The
pools depend on the Python version (its standard library), not on the import state.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import inspect
import itertools
import re
import sys
import tokenize
import types
import zlib

import numpy as np

from icml25.common.validate import check_int

_MODULES = (
    "argparse", "base64", "bisect", "calendar", "collections", "colorsys", "configparser",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "email.utils",
    "enum", "fileinput", "fnmatch", "fractions", "ftplib", "functools", "getopt", "gettext",
    "glob", "gzip", "hashlib", "heapq", "hmac", "html", "http.client", "imaplib", "inspect",
    "io", "ipaddress", "itertools", "json", "locale", "logging", "math", "mimetypes", "operator",
    "os", "os.path", "pathlib", "pickle", "platform", "pprint", "queue", "random", "re",
    "sched", "secrets", "selectors", "shlex", "shutil", "smtplib", "socket", "statistics",
    "string", "struct", "subprocess", "tarfile", "tempfile", "textwrap", "threading", "time",
    "timeit", "tokenize", "traceback", "types", "typing", "unittest", "urllib.parse", "uuid",
    "warnings", "weakref", "zipfile", "zlib",
)  # fmt: skip

_TOPICS = {
    "cooking": (
        ("The chef", "My grandmother", "A young cook", "The baker", "Our neighbour", "The waiter"),
        ("slowly stirs", "carefully seasons", "quickly chops", "gently roasts", "tastes",
         "serves"),
        ("the tomato soup", "a loaf of bread", "the garlic butter", "fresh pasta",
         "the onion sauce", "a lemon cake", "the rice", "grilled vegetables"),
        ("in the kitchen", "on the stove", "for dinner", "before the guests arrive",
         "in a cast iron pan"),
    ),
    "sport": (
        ("The striker", "Our coach", "A young player", "The goalkeeper", "The team captain",
         "The referee"),
        ("quickly passes", "kicks", "watches", "defends", "chases", "catches"),
        ("the ball", "the final score", "the penalty", "a long pass", "the match",
         "the free kick", "the corner", "the league title"),
        ("in the stadium", "during the second half", "before the whistle",
         "on the muddy pitch", "in extra time"),
    ),
    "travel": (
        ("The tourist", "My cousin", "A young backpacker", "The pilot", "Our guide",
         "The driver"),
        ("books", "misses", "boards", "photographs", "reaches", "plans"),
        ("the night train", "a cheap flight", "the old harbour", "the mountain hotel",
         "a ferry", "the border crossing", "the museum", "the city map"),
        ("in the morning", "after a long delay", "near the station", "during the holidays",
         "across the valley"),
    ),
    "weather": (
        ("The forecast", "A cold wind", "The storm", "Heavy rain", "The morning fog",
         "The summer heat"),
        ("covers", "soaks", "shakes", "surrounds", "warms", "freezes"),
        ("the quiet village", "the coastline", "the northern hills", "the harbour", "the fields",
         "the city streets", "the airport", "the lake"),
        ("all afternoon", "before sunrise", "for three days", "in early spring",
         "late at night"),
    ),
}  # fmt: skip

FAMILIES = ("docstring", "code", *_TOPICS)
_SIGNATURE = re.compile(r"^[\w.]+\(")


def _source_path(name: str) -> str | None:
    """The Python source file of stdlib module ``name``; None for a module written in C."""
    spec = importlib.util.find_spec(name)  # "os.path" -> posixpath (ntpath on Windows)
    if spec is None:
        return None
    if spec.origin and spec.origin.endswith(".py"):
        return spec.origin
    filename = getattr(spec.loader_state, "filename", None)  # frozen modules (os, io, posixpath)
    return filename if filename and filename.endswith(".py") else None


def _read_source(path: str) -> str:
    with tokenize.open(path) as f:  # the encoding declared in the file, as Python reads it
        return f.read()


_BLOCKS = (ast.If, ast.Try, ast.With, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _definitions(body: list[ast.stmt]):
    """The function and class definitions of a module's (or class's) body, also those under
    ``if``/``try``/``with`` (both branches: the source, not this platform's choice)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, _BLOCKS):
            handlers = [h.body for h in getattr(node, "handlers", ())]
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                yield from _definitions(block)
            for block in handlers:
                yield from _definitions(block)


def _source_docstrings(path: str):
    """Docstrings of the public functions and classes defined in a source file, and of the
    public methods (and nested classes) defined directly in those classes."""
    tree = ast.parse(_read_source(path), path)
    for node in _definitions(tree.body):
        if node.name.startswith("_"):
            continue
        yield ast.get_docstring(node)
        if isinstance(node, ast.ClassDef):
            for member in _definitions(node.body):
                if not member.name.startswith("_"):
                    yield ast.get_docstring(member)


def _c_docstrings(name: str):
    """Docstrings of the public functions and classes a module written in C defines, read from a
    fresh instance of it: attributes others set or replaced on ``sys.modules[name]`` are not
    there, nor what the module imported from elsewhere (``__module__`` is another module)."""
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    if module is sys.modules.get(name):  # no separate instance to be had: leave the module out
        return
    spec.loader.exec_module(module)
    for attribute, obj in sorted(vars(module).items()):
        if attribute.startswith("_") or getattr(obj, "__module__", None) != name:
            continue
        if isinstance(obj, (type, types.BuiltinFunctionType, types.FunctionType)):
            doc = obj.__doc__
            yield inspect.cleandoc(doc) if isinstance(doc, str) else None


def _docstring_candidates() -> list[str]:
    lines = set()
    for name in _MODULES:
        path = _source_path(name)
        for doc in _source_docstrings(path) if path else _c_docstrings(name):
            line = (doc or "").strip().split("\n")[0].strip()
            if 25 <= len(line) <= 160 and not _SIGNATURE.match(line):
                lines.add(line)
    return sorted(lines)


def _code_candidates() -> list[str]:
    lines = set()
    for name in _MODULES:
        path = _source_path(name)
        if path is None:  # modules written in C
            continue
        for line in _read_source(path).splitlines():
            line = line.strip()
            if 30 <= len(line) <= 100 and not line.startswith(("#", '"', "'")):
                lines.add(line)
    return sorted(lines)


def _template_candidates(topic: str) -> list[str]:
    return [" ".join(words) + "." for words in itertools.product(*_TOPICS[topic])]


@functools.cache
def _pool(family: str) -> tuple[str, ...]:
    # read once per process: the pools depend on the installed Python only, not on the process
    if family == "docstring":
        return tuple(_docstring_candidates())
    if family == "code":
        return tuple(_code_candidates())
    return tuple(_template_candidates(family))


def family_candidates(family: str) -> list[str]:
    """All candidate prompts of one family, sorted."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    return list(_pool(family))


def build_prompts(families=FAMILIES[:4], per_family: int = 100) -> tuple[list[str], np.ndarray]:
    """``per_family`` prompts of each family: (texts, labels (n,) int family index).

    Parameters
    ----------
    families : sequence of str, default FAMILIES[:4]
        Distinct family names from ``FAMILIES`` (default: docstring, code, cooking, sport).
    per_family : int, default 100
        Prompts drawn from each family, at most the family's pool size.

    Returns
    -------
    texts : list of str
        The ``n = len(families) * per_family`` prompts, family by family.
    labels : numpy.ndarray of int, shape (n,)
        Index in ``families`` of each prompt's family.

    Raises
    ------
    ValueError
        If ``families`` is empty, repeats or names an unknown family, or ``per_family`` is out
        of range.
    """
    per_family = check_int("per_family", per_family, minimum=1)
    if isinstance(families, str) or len(families) < 1:
        raise ValueError(f"families must be a non-empty sequence of names, got {families!r}")
    if len(set(families)) != len(families):
        raise ValueError(f"families must be distinct (one label each), got {families!r}")
    texts, labels = [], []
    for label, family in enumerate(families):
        pool = family_candidates(family)
        if per_family > len(pool):
            raise ValueError(f"per_family must be <= {len(pool)} for {family!r}, got {per_family}")
        rng = np.random.default_rng(zlib.crc32(family.encode()))
        texts += [pool[i] for i in np.sort(rng.choice(len(pool), per_family, replace=False))]
        labels += [label] * per_family
    return texts, np.array(labels)
