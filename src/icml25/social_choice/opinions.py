"""Opinion texts: a documented synthetic template model, and a loader for the paper's data sets.

The paper (Boehmer, Fish & Procaccia, ICML 2025, Section 6) runs on free-text opinions about city
improvements (Bowling Green) and drug reviews. We ship no opinion data; instead
:func:`template_opinions` writes opinion texts offline from a latent model whose ground truth
gives an evaluation utility independent of any text encoder:

- ``I`` issues (city-improvement topics). Agent ``i`` belongs to one of ``camps`` latent camps;
  each camp has a position ``p in {1..5}`` (1 = strongly against, 5 = strongly for) on every
  issue, and the agent's own position is the camp's moved by one step with probability
  ``drift``;
- the agent cares about ``2..4`` issues (its camp's first two issues plus random others) and
  writes one sentence on each: an opener, a stance phrase for its position, the issue's noun
  phrase and a reason (for or against), each drawn from a phrase bank;
- ground-truth utility of agent ``i`` for a sentence on issue ``t`` with stance ``s``:
  ``6 - 1.25 |p_it - s|`` (in ``[1, 6]``) if ``i`` cares about ``t``, else the midpoint of that
  and 1 (an issue one does not care about represents one less).

:func:`load_opinions` reads the official data sets' CSV layout (MIT licence, repository
``sara-fish/gen-soc-choice-next-gen``, ``PROSE/datasets/*/*.csv``), which a user downloads
themselves: one row per participant, a ``user_id`` column and a ``data`` column whose opinions are
lines starting with ``- ``.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from icml25.common.validate import check_int, check_real

ISSUES = (
    (
        "bike lanes",
        "they make cycling safer for everyone",
        "they take space from cars and slow traffic",
    ),
    ("public transit", "people without a car can get to work", "buses run empty and cost a lot"),
    ("affordable housing", "young families are priced out", "it lowers nearby property values"),
    ("downtown parking", "shops need customers who drive in", "parking lots waste valuable land"),
    ("city parks", "green space keeps the town healthy", "we cannot afford the upkeep"),
    ("fiber internet", "remote work depends on fast internet", "private providers already do it"),
    ("traffic cameras", "red light running is dangerous", "they mainly raise money from fines"),
    ("public libraries", "libraries give kids a place to learn", "most people read online now"),
)
STANCES = {
    5: ("we urgently need more", "the city must invest heavily in", "top priority should be"),
    4: ("I would like to see more", "it would help to expand", "please consider adding more"),
    3: ("I am unsure about", "there are pros and cons to", "I have mixed feelings about"),
    2: ("we do not need more", "I doubt the value of", "the city should slow down on"),
    1: ("the city should stop funding", "I strongly oppose", "no more money should go to"),
}
OPENERS = ("", "Honestly, ", "In my view ", "As a resident, ", "I think ")


@dataclass(frozen=True)
class Opinions:
    """Opinion texts of ``n`` agents.

    Parameters
    ----------
    agent_ids : numpy.ndarray
        (n,) identifiers.
    sentences : list of list of str
        ``sentences[i]``: the list of agent ``i``'s opinion sentences.
    issue : numpy.ndarray or None, default None
        (n, I) int latent positions ``1..5`` (template model only).
    cares : numpy.ndarray or None, default None
        (n, I) bool: the issues an agent writes about (template model only).
    sentence_issue : list of list of int or None, default None
        Per agent, the issue of each sentence (template model only).
    sentence_stance : list of list of int or None, default None
        Per agent, the stance ``1..5`` of each sentence (template model only).
    """

    agent_ids: np.ndarray
    sentences: list[list[str]]
    issue: np.ndarray | None = None
    cares: np.ndarray | None = None
    sentence_issue: list[list[int]] | None = None
    sentence_stance: list[list[int]] | None = None


def template_opinions(
    n: int, num_issues: int = 6, camps: int = 4, drift: float = 0.3, seed=0
) -> Opinions:
    """Opinion texts of ``n`` agents from the template model (see the module docstring).

    Each agent writes one sentence on each issue it cares about: its camp's two focus issues
    plus random others.

    Parameters
    ----------
    n : int
        Number of agents, ``>= 1``.
    num_issues : int, default 6
        Number of issues ``I``, from 2 to 8 (the size of the phrase bank).
    camps : int, default 4
        Number of latent camps, ``>= 1``.
    drift : float, default 0.3
        Probability, in ``[0, 1]``, that an agent's position on an issue moves one step from
        its camp's (clipped to ``1..5``).
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, default 0
        Seed of the draw (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    Opinions
        ``agent_ids`` ``0..n-1``, the sentences, and the latent ``issue`` (n, I), ``cares``
        (n, I), ``sentence_issue`` and ``sentence_stance``.
    """
    n = check_int("n", n, minimum=1)
    num_issues = check_int("num_issues", num_issues, minimum=2)
    if num_issues > len(ISSUES):
        raise ValueError(f"num_issues must be <= {len(ISSUES)}, got {num_issues}")
    camps = check_int("camps", camps, minimum=1)
    drift = check_real("drift", drift, low=0.0, high=1.0)
    rng = np.random.default_rng(seed)
    camp_position = rng.integers(1, 6, size=(camps, num_issues))  # (camps, I)
    camp_focus = np.argsort(rng.random((camps, num_issues)), axis=1)[:, :2]  # (camps, 2)
    camp = rng.integers(0, camps, size=n)  # (n,)
    step = rng.choice([-1, 1], size=(n, num_issues)) * (rng.random((n, num_issues)) < drift)
    position = np.clip(camp_position[camp] + step, 1, 5)  # (n, I)
    cares = np.zeros((n, num_issues), dtype=bool)
    cares[np.arange(n)[:, None], camp_focus[camp]] = True
    extra = rng.random((n, num_issues)) < 1.0 / num_issues
    cares |= extra & (cares.sum(axis=1, keepdims=True) < 4)
    sentences, issues, stances = [], [], []
    for i in range(n):
        own = np.flatnonzero(cares[i])
        sentences.append([_sentence(t, int(position[i, t]), rng) for t in own])
        issues.append(own.tolist())
        stances.append(position[i, own].tolist())
    return Opinions(np.arange(n), sentences, position, cares, issues, stances)


def _sentence(t: int, stance: int, rng: np.random.Generator) -> str:
    noun, pro, con = ISSUES[t]
    opener = OPENERS[rng.integers(len(OPENERS))]
    phrase = STANCES[stance][rng.integers(3)]
    reason = pro if stance >= 3 else con
    text = f"{opener}{phrase} {noun} because {reason}."
    return text[0].upper() + text[1:]


def template_utility(opinions: Opinions, issue: np.ndarray, stance: np.ndarray) -> np.ndarray:
    """Ground-truth utility of every agent for sentences of given issue and stance.

    Parameters
    ----------
    opinions : Opinions
        Agents from :func:`template_opinions` (with latent positions).
    issue : numpy.ndarray
        (m,) int: the issue ``t`` of each sentence, in ``0..I-1``.
    stance : numpy.ndarray
        (m,): the stance ``s`` of each sentence, ``1..5``.

    Returns
    -------
    numpy.ndarray
        (m, n): ``6 - 1.25 |p_it - s|`` if agent ``i`` cares about ``t``, else the midpoint of
        that and 1.

    Raises
    ------
    ValueError
        If ``opinions`` has no latent positions.
    """
    if opinions.issue is None:
        raise ValueError("opinions must come from template_opinions (it has no latent positions)")
    issue, stance = np.asarray(issue), np.asarray(stance)
    close = 6.0 - 1.25 * np.abs(opinions.issue[:, issue].T - stance[:, None])  # (m, n)
    return np.where(opinions.cares[:, issue].T, close, (close + 1.0) / 2.0)


def load_opinions(path, text_column: str = "data", id_column: str = "user_id") -> Opinions:
    """Read a CSV of opinions in the official data sets' layout.

    One row per participant; ``text_column`` holds her opinions, one per line, each line
    optionally starting with ``- `` (e.g. ``PROSE/datasets/bowlinggreen_41/
    bowlinggreen_curated_postprocessed.csv`` of ``sara-fish/gen-soc-choice-next-gen``). Lines
    longer than one sentence are split at sentence ends.

    Parameters
    ----------
    path : str or os.PathLike
        An existing CSV file (UTF-8) with a header row.
    text_column : str, default "data"
        The column holding each participant's opinions.
    id_column : str, default "user_id"
        The column holding each participant's identifier.

    Returns
    -------
    Opinions
        ``agent_ids`` (the ``id_column`` strings) and ``sentences`` of the participants with
        at least one sentence (the others are left out); no latent fields.

    Raises
    ------
    ValueError
        If ``path`` is not a file, or the CSV is empty or lacks one of the two columns.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path must be an existing CSV file, got {str(path)!r}")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows or text_column not in rows[0] or id_column not in rows[0]:
        raise ValueError(f"the CSV must have columns {id_column!r} and {text_column!r}")
    ids, sentences = [], []
    for row in rows:
        own = [
            s.strip()
            for line in row[text_column].splitlines()
            for s in re.split(r"(?<=[.!?])\s+", line.strip().removeprefix("- ").strip())
            if s.strip()
        ]
        if own:
            ids.append(row[id_column])
            sentences.append(own)
    return Opinions(np.array(ids), sentences)
