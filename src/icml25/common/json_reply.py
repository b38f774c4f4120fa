"""The JSON objects in a language model's reply, wherever the prose around them puts them.

Models asked for "one JSON object and nothing else" still write ``Sure! {...} Hope this
helps {:}``, fence the object in Markdown, or write a Python dict (single quotes, a trailing
comma). Cutting from the first ``{`` to the last ``}`` breaks on any brace in the prose after
it. Here every ``{`` is tried as the start of an object with ``json.JSONDecoder.raw_decode``
(which respects strings, so a brace inside one does not count); an object found is skipped
whole (its inner objects are its own values), and, with ``literal=True``, a span that is not
JSON is read as a Python dict literal with ``ast.literal_eval`` (never ``eval``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence

_DECODER = json.JSONDecoder()


def json_objects(text: str, *, literal: bool = False) -> Iterator[dict]:
    """Each top-level object of ``text``, left to right."""
    if not isinstance(text, str):
        return
    start = text.find("{")
    while start >= 0:
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            value, end = _python_dict(text, start) if literal else (None, start + 1)
        if isinstance(value, dict):
            yield value
        else:
            end = start + 1
        start = text.find("{", end)


def first_object(text: str, keys: Sequence[str] = (), *, literal: bool = False) -> dict | None:
    """The first top-level object of ``text`` that has every one of ``keys``, or None."""
    return next((o for o in json_objects(text, literal=literal) if all(k in o for k in keys)), None)


def _python_dict(text: str, start: int) -> tuple[dict | None, int]:
    """The shortest span of ``text`` from ``start`` to a ``}`` that is a Python dict literal,
    and where it ends."""
    for match in re.finditer(r"\}", text[start:]):
        end = start + match.end()
        try:
            value = ast.literal_eval(text[start:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, dict):
            return value, end
    return None, start + 1
