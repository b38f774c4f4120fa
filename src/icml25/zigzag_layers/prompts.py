"""Prompt families built offline from what ships with Python (nothing is downloaded).

The paper feeds SST and Pile-10k prompts to LLMs; here the "data sets" are families of prompts
of different kinds:

- ``docstring``: first lines of the docstrings of standard-library functions and classes;
- ``code``: lines of standard-library Python source;
- ``cooking``, ``sport``, ``travel``, ``weather``: template sentences about one topic, from
  per-topic word lists (same sentence shapes across topics, different words).

Each family is the sorted set of its candidates, subsampled by a generator seeded from the
family's name, so the prompts do not depend on the run's seed.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import re
import warnings
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


def _members(name: str):
    module = importlib.import_module(name)
    with warnings.catch_warnings():  # typing.io / typing.re warn when touched
        warnings.simplefilter("ignore", DeprecationWarning)
        return [getattr(module, a, None) for a in sorted(dir(module)) if not a.startswith("_")]


def _docstring_candidates() -> list[str]:
    lines = set()
    for name in _MODULES:
        for obj in _members(name):
            if not (inspect.isroutine(obj) or inspect.isclass(obj)):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                doc = inspect.getdoc(obj) or ""
            line = doc.strip().split("\n")[0].strip()
            if 25 <= len(line) <= 160 and not _SIGNATURE.match(line):
                lines.add(line)
    return sorted(lines)


def _code_candidates() -> list[str]:
    lines = set()
    for name in _MODULES:
        module = importlib.import_module(name)
        try:
            source = inspect.getsource(module)
        except (OSError, TypeError):  # modules written in C
            continue
        for line in source.splitlines():
            line = line.strip()
            if 30 <= len(line) <= 100 and not line.startswith(("#", '"', "'")):
                lines.add(line)
    return sorted(lines)


def _template_candidates(topic: str) -> list[str]:
    return [" ".join(words) + "." for words in itertools.product(*_TOPICS[topic])]


def family_candidates(family: str) -> list[str]:
    """All candidate prompts of one family, sorted."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    if family == "docstring":
        return _docstring_candidates()
    if family == "code":
        return _code_candidates()
    return _template_candidates(family)


def build_prompts(families=FAMILIES[:4], per_family: int = 100) -> tuple[list[str], np.ndarray]:
    """``per_family`` prompts of each family: (texts, labels (n,) int family index)."""
    per_family = check_int("per_family", per_family, minimum=1)
    if isinstance(families, str) or len(families) < 1:
        raise ValueError(f"families must be a non-empty sequence of names, got {families!r}")
    texts, labels = [], []
    for label, family in enumerate(families):
        pool = family_candidates(family)
        if per_family > len(pool):
            raise ValueError(f"per_family must be <= {len(pool)} for {family!r}, got {per_family}")
        rng = np.random.default_rng(zlib.crc32(family.encode()))
        texts += [pool[i] for i in np.sort(rng.choice(len(pool), per_family, replace=False))]
        labels += [label] * per_family
    return texts, np.array(labels)
