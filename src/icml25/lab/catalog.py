"""One card per seed paper, implemented or not.

The cards' words live in ``cards.toml`` beside this file. A card's status is derived from the
code, never typed in: ``position paper`` for the three papers with no system to build,
``implemented`` when the package ``icml25.<slug>`` ships a ``reproduce.py``, ``planned`` otherwise.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

IMPLEMENTED = "implemented"
PLANNED = "planned"
POSITION_PAPER = "position paper"


@dataclass(frozen=True)
class Card:
    slug: str
    title: str
    area: str
    summary: str
    seed_file: str
    code: str
    position_paper: bool
    paper_title: str  # the paper's own title ("" only where no source was found)
    authors: str
    venue: str
    link: str  # arXiv, OpenReview or PMLR
    citation_note: str = ""  # where the title, authors or link were not found: what was looked at
    entry: str = ""  # the method's public name: ``from icml25.<slug> import <entry>``

    @property
    def import_line(self) -> str:
        """``from icml25.<slug> import <entry>``, or "" for a card with no method."""
        return f"from icml25.{self.slug} import {self.entry}" if self.entry else ""

    @property
    def status(self) -> str:
        if self.position_paper:
            return POSITION_PAPER
        if resources.files("icml25").joinpath(self.slug, "reproduce.py").is_file():
            return IMPLEMENTED
        return PLANNED

    @property
    def code_url(self) -> str:
        return f"https://github.com/{self.code}" if self.code else ""

    def readme(self) -> str | None:
        """The paper package's README.md, when the package exists."""
        path = resources.files("icml25").joinpath(self.slug, "README.md")
        return path.read_text(encoding="utf-8") if path.is_file() else None


@cache
def cards() -> tuple[Card, ...]:
    """All 38 cards, in the order of the seed files."""
    text = resources.files("icml25.lab").joinpath("cards.toml").read_text(encoding="utf-8")
    return tuple(Card(**entry) for entry in tomllib.loads(text)["card"])


def card(slug: str) -> Card:
    for c in cards():
        if c.slug == slug:
            return c
    near = difflib.get_close_matches(str(slug), [c.slug for c in cards()], n=3, cutoff=0.5)
    hint = f"did you mean {' or '.join(near)}? " if near else ""
    raise ValueError(f"unknown paper {slug!r}: {hint}(`icml25 list` shows the slugs)")


def implemented() -> list[str]:
    return [c.slug for c in cards() if c.status == IMPLEMENTED]
