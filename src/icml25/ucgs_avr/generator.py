"""A procedural RAVEN-family puzzle generator: 3 x 3 matrices with I-RAVEN candidate sets, and
from the same rules an odd-one-out format and an ``A : B :: C : ?`` analogy format.

UCGS (Shi, Li & Xue, ICML 2025) trains one solver on RAVEN/PGM and answers other formats
zero-shot (odd-one-out, visual analogies); those data sets cannot be downloaded here, so this
module generates puzzles of the same family (rules in :mod:`icml25.ucgs_avr.rules`).

- Matrix: one rule per attribute (type, size, colour, and number or position), panels
  ``(9, 4)`` = ``(type, size, colour, slots)``; the ninth is the answer. Candidates as in I-RAVEN
  (Hu et al., 2021): three attributes are each given one wrong value, and the 8 candidates are
  all combinations (answer or wrong value) of them, so every value appears in exactly half the
  candidates and the answer cannot be told from the candidates alone. ``style="raven"`` gives
  the original RAVEN sets (each distractor changes one attribute of the answer), whose answer
  is the candidates' mode: a leak, kept as the control of the no-shortcut check.
- Odd-one-out: a complete matrix in which one panel, at a random position, has one attribute
  changed so that its row breaks a rule; the odd panel is the answer (chance 1/9). A change
  after which another panel could be replaced to make every rule hold again (an arithmetic
  row ``a, b, a + b`` with ``b`` changed is mended by replacing ``b`` or ``a + b``) is redrawn,
  so the odd panel is the only answer (:func:`odd_one_out_answers`).
- Analogy ``A : B :: C : ?``: the 2 x 2 block ``(1,1) (1,2) / (2,1) (2,2)`` of a matrix whose
  rules are constant or progression (the rules a single pair ``A : B`` determines), with 8
  I-RAVEN candidates for ``?``.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from icml25.ucgs_avr.rules import (
    ALLOWED,
    COLUMN,
    DOMAIN,
    POPCOUNT,
    TYPES,
    _satisfies,
    attribute_values,
    check_spec,
    rotate,
    row_values,
    sample_rule,
)

MATRIX, ODD_ONE_OUT, ANALOGY = "matrix", "odd_one_out", "analogy"
FORMATS = (MATRIX, ODD_ONE_OUT, ANALOGY)
CANDIDATE_STYLES = ("iraven", "raven")
ANALOGY_PANELS = (4, 5, 7, 8)  # A, B, C, D in the 3 x 3 grid (row-major)
N_CANDIDATES = 8
_MASKS_BY_COUNT = {k: np.array([m for m in range(1, 16) if POPCOUNT[m] == k]) for k in range(1, 5)}
_PERTURBED = ("type", "size", "colour", "layout")
# every value of each panel column: type, size, colour, the mask of occupied cells
_COLUMN_VALUES = (np.arange(3), np.arange(1, 4), np.arange(1, 4), np.arange(1, 16))
MAX_PUZZLES = 10**6  # about a gigabyte and a quarter of an hour: more is refused as a size typo


@dataclass
class PuzzleSet:
    """Puzzles of one format, as arrays; ``describe(i)`` gives puzzle ``i`` as JSON-able data.

    A panel is four integers ``(type, size, colour, slots)``.

    Parameters
    ----------
    format : {"matrix", "odd_one_out", "analogy"}
        The puzzle format.
    panels : numpy.ndarray of int, shape (n, 9, 4)
        The complete matrix (matrix format), the matrix with its odd panel (odd-one-out), or
        the matrix whose block :data:`ANALOGY_PANELS` is the analogy.
    candidates : numpy.ndarray of int, shape (n, 8, 4)
        The candidate panels; shape (n, 0, 4) for odd-one-out.
    answer : numpy.ndarray of int, shape (n,)
        Index of the right candidate, or of the odd panel.
    rules : list of list of dict
        Per puzzle, one rule dict per attribute (type, size, colour, number or position).
    """

    format: str
    panels: np.ndarray
    candidates: np.ndarray
    answer: np.ndarray
    rules: list[list[dict]]

    def __len__(self) -> int:
        return len(self.answer)

    def describe(self, i: int) -> dict:
        """Puzzle ``i`` as JSON-able data: format, rules, the panels shown, candidates, answer."""
        if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < len(self):
            raise ValueError(f"i must be in [0, {len(self)}), got {i}")
        shown = self.panels[i]
        if self.format == MATRIX:
            shown = shown[:8]
        elif self.format == ANALOGY:
            shown = shown[list(ANALOGY_PANELS[:3])]
        return {
            "format": self.format,
            "rules": self.rules[i],
            "panels": [panel_to_json(p) for p in shown],
            "candidates": [panel_to_json(p) for p in self.candidates[i]],
            "answer": int(self.answer[i]),
        }


def panel_to_json(panel: np.ndarray) -> dict:
    """One panel as JSON-able data.

    Parameters
    ----------
    panel : array_like of int, shape (4,)
        ``(type, size, colour, slots)`` in the attributes' domains.

    Returns
    -------
    dict
        ``{"type": name, "size": int, "colour": int, "cells": [...]}``, the cells being the
        occupied ones in ``[0, 4)``, clockwise from the top left.
    """
    t, s, c, m = (int(x) for x in _check_panels("panel", panel, (), batched=False))
    return {"type": TYPES[t], "size": s, "colour": c, "cells": [k for k in range(4) if m >> k & 1]}


def panel_from_json(data: dict) -> np.ndarray:
    """The inverse of :func:`panel_to_json`.

    Parameters
    ----------
    data : dict
        ``{"type": name, "size": int, "colour": int, "cells": [...]}`` with a type of
        :data:`TYPES`, size and colour in their domains and distinct cells in ``[0, 4)``, at
        least one.

    Returns
    -------
    numpy.ndarray of int, shape (4,)
        ``(type, size, colour, slots)``, ``slots`` the bit mask of the cells.
    """
    if not isinstance(data, dict):
        raise TypeError(f"data must be a dict of a panel_to_json panel, got {type(data).__name__}")
    if data["type"] not in TYPES:
        raise ValueError(f"panel type must be one of {TYPES}, got {data['type']!r}")
    for name in ("size", "colour"):
        lo, hi = DOMAIN[name]
        if not _is_int(data[name]) or not lo <= data[name] <= hi:
            raise ValueError(f"panel {name} must be an integer in [{lo}, {hi}], got {data[name]!r}")
    cells = data["cells"]
    if (
        not cells
        or not all(_is_int(k) and 0 <= k < 4 for k in cells)
        or len(set(cells)) != len(cells)
    ):
        raise ValueError(
            f"panel cells must be distinct cells in [0, 4), at least one, got {cells!r}"
        )
    mask = sum(1 << k for k in cells)
    return np.array([TYPES.index(data["type"]), data["size"], data["colour"], mask])


def sample_rules(
    rng: np.random.Generator,
    exclude: tuple[tuple[str, str], ...] = (),
    force: tuple[str, str] | None = None,
    allowed: dict[str, tuple[str, ...]] | None = None,
) -> list[dict]:
    """One rule per attribute: type, size, colour, then number or position (half each).

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of the draws.
    exclude : tuple of (str, str), default ()
        (attribute, rule) pairs never drawn; every attribute must keep a rule.
    force : (str, str), optional
        An (attribute, rule) pair always used (a number or position pair also fixes the
        layout attribute).
    allowed : dict of str to tuple of str, optional
        Rules that may be drawn for each attribute (default :data:`ALLOWED`).

    Returns
    -------
    list of dict
        Four rule dicts (``attribute``, ``rule`` and any parameter of the rule: ``step``,
        ``op`` or ``shift``), for type, size, colour, then number or position.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    exclude = _check_pairs(exclude)
    if force is not None:
        force = _check_pairs([force])[0]
    _check_choices(exclude, force, allowed or ALLOWED)
    return _sample_rules(rng, exclude, force, allowed)


def _sample_rules(rng, exclude=(), force=None, allowed=None) -> list[dict]:
    allowed = allowed or ALLOWED
    layout = "number" if rng.random() < 0.5 else "position"
    if force is not None and force[0] in ("number", "position"):
        layout = force[0]
    specs = []
    for attribute in ("type", "size", "colour", layout):
        if force is not None and force[0] == attribute:
            rule = force[1]
        else:
            choices = [r for r in allowed[attribute] if (attribute, r) not in exclude]
            rule = str(rng.choice(choices))
        specs.append(sample_rule(attribute, rule, rng))
    return specs


def matrix_from_rules(rules: list[dict], rng: np.random.Generator) -> np.ndarray:
    """A complete 3 x 3 matrix obeying ``rules``.

    Parameters
    ----------
    rules : list of dict
        One rule dict per attribute: type, size, colour and number or position (as
        :func:`sample_rules` gives).
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    numpy.ndarray of int, shape (9, 4)
        The panels in row-major order; under a number rule the occupied cells are random.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    _check_rules(rules, complete=True)
    return _matrix_from_rules(rules, rng)


def _matrix_from_rules(rules: list[dict], rng: np.random.Generator) -> np.ndarray:
    panels = np.empty((3, 3, 4), dtype=np.int64)
    for spec in rules:
        grid = row_values(spec, rng)  # (3, 3)
        if spec["attribute"] == "number":  # random cells for each count
            grid = np.vectorize(lambda k: rng.choice(_MASKS_BY_COUNT[int(k)]))(grid)
        panels[..., {"type": 0, "size": 1, "colour": 2}.get(spec["attribute"], 3)] = grid
    return panels.reshape(9, 4)


def matrix_satisfies(rules: list[dict], panels: np.ndarray) -> np.ndarray:
    """Whether matrices obey every rule, read from their values alone.

    Parameters
    ----------
    rules : list of dict
        Rule dicts (:func:`sample_rules`'s form).
    panels : array_like of int, shape (..., 9, 4)
        Matrices, panels in row-major order.

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        True where the matrix obeys every rule.
    """
    _check_rules(rules)
    return _matrix_satisfies(rules, _check_panels("panels", panels, (9,)))


def _matrix_satisfies(rules: list[dict], panels: np.ndarray) -> np.ndarray:
    ok = np.ones(panels.shape[:-2], dtype=bool)
    for spec in rules:
        values = attribute_values(panels, spec["attribute"])  # (..., 9)
        ok &= _satisfies(spec, values.reshape(*values.shape[:-1], 3, 3))
    return ok


def odd_one_out_answers(rules: list[dict], panels: np.ndarray) -> np.ndarray:
    """Which panels of matrices ``(..., 9, 4)`` can be replaced by some panel so that the matrix
    obeys every rule: ``(..., 9)`` bool. An odd-one-out puzzle has one answer when exactly one
    is true.

    Each rule reads one column of a panel, so a replacement exists when, column by column, some
    value of that column makes its rule hold: 15 values at most per panel, not all 405 panels.

    Parameters
    ----------
    rules : list of dict
        Rule dicts (:func:`sample_rules`'s form).
    panels : array_like of int, shape (..., 9, 4)
        Matrices, panels in row-major order.

    Returns
    -------
    numpy.ndarray of bool, shape (..., 9)
        True for each panel whose replacement can make the matrix obey every rule.
    """
    _check_rules(rules)
    return _odd_one_out_answers(rules, _check_panels("panels", panels, (9,)))


def _odd_one_out_answers(rules: list[dict], panels: np.ndarray) -> np.ndarray:
    ok = np.ones(panels.shape[:-1], dtype=bool)
    at = np.eye(9, dtype=bool)[:, None, :]  # (replaced panel, 1, panel)
    for spec in rules:
        column = COLUMN[spec["attribute"]]
        values = _COLUMN_VALUES[column]
        shape = (*panels.shape[:-2], 9, len(values), 9, 4)
        alt = np.broadcast_to(panels[..., None, None, :, :], shape).copy()
        alt[..., column] = np.where(at, values[:, None], alt[..., column])
        ok &= _matrix_satisfies([spec], alt).any(-1)
    return ok


def analogy_satisfies(rules: list[dict], quad: np.ndarray) -> np.ndarray:
    """Whether ``A, B, C, D`` panels obey constant or progression rules as ``A : B :: C : D``.

    Each rule must hold within the pair ``A : B`` and within the pair ``C : D``.

    Parameters
    ----------
    rules : list of dict
        Rule dicts whose rules are ``constant`` or ``progression``.
    quad : array_like of int, shape (..., 4, 4)
        The panels ``A, B, C, D``.

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        True where every rule holds in both pairs.

    Raises
    ------
    ValueError
        If a rule is neither constant nor progression.
    """
    _check_rules(rules)
    quad = _check_panels("quad", quad, (4,))
    ok = np.ones(quad.shape[:-2], dtype=bool)
    for spec in rules:
        v = attribute_values(quad, spec["attribute"])  # (..., 4)
        if spec["rule"] == "constant":
            ok &= (v[..., 0] == v[..., 1]) & (v[..., 2] == v[..., 3])
        elif spec["rule"] == "progression" and spec["attribute"] == "position":
            ok &= (rotate(v[..., 0], spec["step"]) == v[..., 1]) & (
                rotate(v[..., 2], spec["step"]) == v[..., 3]
            )
        elif spec["rule"] == "progression":
            ok &= (v[..., 1] - v[..., 0] == spec["step"]) & (v[..., 3] - v[..., 2] == spec["step"])
        else:
            raise ValueError(f"analogy rules are constant or progression, got {spec['rule']!r}")
    return ok


def _layout_rule(rules: list[dict]) -> str:
    return next(s["attribute"] for s in rules if s["attribute"] in ("number", "position"))


def _wrong_value(panel: np.ndarray, what: str, layout: str, rng: np.random.Generator) -> int:
    """Another value of one perturbable attribute of ``panel`` (for ``layout``: another count
    with random cells under a number rule, another set of cells under a position rule)."""
    if what == "layout":
        if layout == "number":
            counts = [k for k in range(1, 5) if k != POPCOUNT[panel[3]]]
            return int(rng.choice(_MASKS_BY_COUNT[int(rng.choice(counts))]))
        return int(rng.choice([m for m in range(1, 16) if m != panel[3]]))
    lo, hi = DOMAIN[what]
    column = {"type": 0, "size": 1, "colour": 2}[what]
    return int(rng.choice([v for v in range(lo, hi + 1) if v != panel[column]]))


def _set(panel: np.ndarray, what: str, value: int) -> np.ndarray:
    out = panel.copy()
    out[{"type": 0, "size": 1, "colour": 2, "layout": 3}[what]] = value
    return out


def candidate_set(
    answer: np.ndarray, rules: list[dict], rng: np.random.Generator, style: str = "iraven"
) -> tuple[np.ndarray, int]:
    """Eight candidate panels around an answer: I-RAVEN's tree or RAVEN's star.

    ``"iraven"``: three of {type, size, colour, layout} each get one wrong value and the 8
    candidates are all combinations; ``"raven"``: each distractor changes one attribute of the
    answer (so the answer is the candidates' mode). The order is shuffled.

    Parameters
    ----------
    answer : array_like of int, shape (4,)
        The right panel.
    rules : list of dict
        The matrix's rule dicts; they must hold a number or a position rule.
    rng : numpy.random.Generator
        Source of the draws.
    style : {"iraven", "raven"}, default "iraven"
        How the distractors are made.

    Returns
    -------
    candidates : numpy.ndarray of int, shape (8, 4)
        The shuffled candidates.
    index : int
        Position of the answer among them, in ``[0, 8)``.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    _check_panels("answer", answer, (), batched=False)
    _check_rules(rules)
    if not any(s["attribute"] in ("number", "position") for s in rules):
        raise ValueError("rules must hold a number or a position rule (the layout)")
    return _candidate_set(answer, rules, rng, style)


def _candidate_set(answer, rules, rng, style="iraven") -> tuple[np.ndarray, int]:
    layout = _layout_rule(rules)
    if style == "iraven":
        levels = rng.choice(len(_PERTURBED), size=3, replace=False)
        wrong = [(_PERTURBED[j], _wrong_value(answer, _PERTURBED[j], layout, rng)) for j in levels]
        cands = []
        for code in range(N_CANDIDATES):
            c = answer
            for bit, (what, value) in enumerate(wrong):
                if code >> bit & 1:
                    c = _set(c, what, value)
            cands.append(c)
    elif style == "raven":
        cands, seen = [answer], {tuple(answer)}
        while len(cands) < N_CANDIDATES:
            what = _PERTURBED[rng.integers(len(_PERTURBED))]
            c = _set(answer, what, _wrong_value(answer, what, layout, rng))
            if tuple(c) not in seen:
                seen.add(tuple(c))
                cands.append(c)
    else:
        raise ValueError(f"style must be one of {CANDIDATE_STYLES}, got {style!r}")
    order = rng.permutation(N_CANDIDATES)
    return np.stack(cands)[order], int(np.flatnonzero(order == 0)[0])


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if n > MAX_PUZZLES:
        raise ValueError(f"n must be at most {MAX_PUZZLES} puzzles, got {n}")
    return int(n)


def _is_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _check_panels(name: str, panels, lead: tuple[int, ...], batched: bool = True) -> np.ndarray:
    """``panels`` as an integer array ``(..., *lead, 4)`` (no leading axes unless ``batched``)
    of panels in the attributes' domains."""
    shape = (*lead, 4)
    want = ", ".join(["..."] * batched + [str(k) for k in shape]) + ("," * (len(shape) == 1))
    try:
        p = np.asarray(panels)
    except ValueError:
        raise ValueError(f"{name} must be an integer array ({want}), got a ragged list") from None
    ndim_ok = p.ndim >= len(shape) if batched else p.ndim == len(shape)
    if not ndim_ok or p.shape[p.ndim - len(shape) :] != shape:
        raise ValueError(f"{name} must have shape ({want}), got {p.shape}")
    if not np.issubdtype(p.dtype, np.integer):
        raise ValueError(f"{name} must be an integer array, got dtype {p.dtype}")
    for col, what in enumerate(("type", "size", "colour", "slots")):
        lo, hi = DOMAIN["position" if what == "slots" else what]
        if p.size and ((p[..., col] < lo) | (p[..., col] > hi)).any():
            raise ValueError(f"{name}[..., {col}] ({what}) must lie in [{lo}, {hi}]")
    return p


def _check_rules(rules, *, complete: bool = False) -> None:
    """Rule dicts (:func:`~icml25.ucgs_avr.rules.check_spec`); ``complete``: one per attribute,
    type, size, colour and number or position."""
    if isinstance(rules, dict) or not all(check_spec(s) for s in rules):
        raise ValueError(f"rules must be a list of rule dicts, got {rules!r}")
    if complete:
        names = sorted(s["attribute"] for s in rules)
        if names not in (
            ["colour", "number", "size", "type"],
            ["colour", "position", "size", "type"],
        ):
            raise ValueError(
                "rules must hold one rule for each of type, size, colour and number or position, "
                f"got {names}"
            )


def _check_choices(exclude, force, allowed) -> None:
    """Every attribute that may be drawn keeps a rule after ``exclude``."""
    layouts = [force[0]] if force is not None and force[0] in ("number", "position") else []
    for attribute in ("type", "size", "colour", *(layouts or ("number", "position"))):
        if force is not None and force[0] == attribute:
            continue
        if not [r for r in allowed[attribute] if (attribute, r) not in exclude]:
            raise ValueError(f"exclude leaves attribute {attribute!r} without a rule to draw")


def _as_rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_pairs(pairs) -> tuple[tuple[str, str], ...]:
    if isinstance(pairs, str):
        raise ValueError(f"exclude must be a sequence of (attribute, rule) pairs, got {pairs!r}")
    pairs = tuple(tuple(p) for p in pairs)
    if any(len(p) != 2 for p in pairs):
        raise ValueError(f"each pair must be (attribute, rule), got {pairs!r}")
    for attribute, rule in pairs:
        if rule not in ALLOWED.get(attribute, ()):
            raise ValueError(f"({attribute!r}, {rule!r}) is not an allowed attribute-rule pair")
    return pairs


def generate_matrices(
    n: int,
    seed=0,
    *,
    exclude=(),
    force: tuple[str, str] | None = None,
    style: str = "iraven",
) -> PuzzleSet:
    """Matrix puzzles with 8 candidates each (:func:`candidate_set` of ``style``).

    Parameters
    ----------
    n : int
        Number of puzzles, in ``[1, 10**6]``.
    seed : int or numpy.random.Generator, default 0
        A non-negative seed or a generator.
    exclude : sequence of (str, str), default ()
        (attribute, rule) pairs never drawn (a held-out pair, say).
    force : (str, str), optional
        An (attribute, rule) pair every puzzle uses.
    style : {"iraven", "raven"}, default "iraven"
        Candidate sets of I-RAVEN (no answer-only shortcut) or of RAVEN (answer = mode).

    Returns
    -------
    PuzzleSet
        Format ``"matrix"``: ``panels`` (n, 9, 4) complete, ``candidates`` (n, 8, 4),
        ``answer`` (n,) in ``[0, 8)``, ``rules``.
    """
    n, rng = _check_n(n), _as_rng(seed)
    exclude = _check_pairs(exclude)
    if force is not None:
        force = _check_pairs([force])[0]
    if style not in CANDIDATE_STYLES:
        raise ValueError(f"style must be one of {CANDIDATE_STYLES}, got {style!r}")
    _check_choices(exclude, force, ALLOWED)
    panels, cands, answers, rules = [], [], [], []
    for _ in range(n):
        spec = _sample_rules(rng, exclude, force)
        m = _matrix_from_rules(spec, rng)
        c, a = _candidate_set(m[8], spec, rng, style)
        panels.append(m), cands.append(c), answers.append(a), rules.append(spec)
    return PuzzleSet(MATRIX, np.stack(panels), np.stack(cands), np.array(answers), rules)


def generate_odd_one_out(n: int, seed=0, *, exclude=()) -> PuzzleSet:
    """``n`` odd-one-out puzzles: a matrix with one panel made to break its row's rule.

    The change is redrawn until the odd panel is the only panel whose replacement can make the
    matrix obey every rule (:func:`odd_one_out_answers`); a change of type always is one (type
    has no arithmetic rule), so the redraw ends.

    Parameters
    ----------
    n : int
        Number of puzzles, in ``[1, 10**6]``.
    seed : int or numpy.random.Generator, default 0
        A non-negative seed or a generator.
    exclude : sequence of (str, str), default ()
        (attribute, rule) pairs never drawn.

    Returns
    -------
    PuzzleSet
        Format ``"odd_one_out"``: ``panels`` (n, 9, 4) with one odd panel, ``candidates``
        empty (n, 0, 4), ``answer`` (n,) the odd panel's index in ``[0, 9)``, ``rules``.
    """
    n, rng = _check_n(n), _as_rng(seed)
    exclude = _check_pairs(exclude)
    _check_choices(exclude, None, ALLOWED)
    panels, answers, rules = [], [], []
    for _ in range(n):
        spec = _sample_rules(rng, exclude)
        m = _matrix_from_rules(spec, rng)
        layout, odd = _layout_rule(spec), int(rng.integers(9))
        only_odd = np.arange(9) == odd
        while True:
            what = _PERTURBED[rng.integers(len(_PERTURBED))]
            broken = m.copy()
            broken[odd] = _set(m[odd], what, _wrong_value(m[odd], what, layout, rng))
            # only the odd panel replaceable: a rule broken (else all 9 are) and one answer
            if np.array_equal(_odd_one_out_answers(spec, broken), only_odd):
                break
        panels.append(broken), answers.append(odd), rules.append(spec)
    empty = np.zeros((n, 0, 4), dtype=np.int64)
    return PuzzleSet(ODD_ONE_OUT, np.stack(panels), empty, np.array(answers), rules)


ANALOGY_RULES = {
    "type": ("constant", "progression"),
    "size": ("constant", "progression"),
    "colour": ("constant", "progression"),
    "number": ("constant", "progression"),
    "position": ("constant", "progression"),
}


def generate_analogies(n: int, seed=0, *, exclude=()) -> PuzzleSet:
    """``n`` analogies ``A : B :: C : ?`` with 8 I-RAVEN candidates for ``?``.

    Position progressions whose ``A`` is rotation-symmetric by two cells (masks 5 and 10) are
    redrawn: for them ``A : B`` does not tell the direction of the rotation.

    Parameters
    ----------
    n : int
        Number of puzzles, in ``[1, 10**6]``.
    seed : int or numpy.random.Generator, default 0
        A non-negative seed or a generator.
    exclude : sequence of (str, str), default ()
        (attribute, rule) pairs never drawn; the rules drawn are constant or progression.

    Returns
    -------
    PuzzleSet
        Format ``"analogy"``: ``panels`` (n, 9, 4) the matrices, whose panels
        :data:`ANALOGY_PANELS` are ``A, B, C, D``; ``candidates`` (n, 8, 4) for ``D``;
        ``answer`` (n,) in ``[0, 8)``; ``rules``.
    """
    n, rng = _check_n(n), _as_rng(seed)
    exclude = _check_pairs(exclude)
    _check_choices(exclude, None, ANALOGY_RULES)
    panels, cands, answers, rules = [], [], [], []
    while len(panels) < n:
        spec = _sample_rules(rng, exclude, allowed=ANALOGY_RULES)
        m = _matrix_from_rules(spec, rng)
        a = m[ANALOGY_PANELS[0]]
        if any(s["attribute"] == "position" and s["rule"] == "progression" for s in spec) and (
            a[3] in (5, 10)
        ):
            continue
        c, k = _candidate_set(m[8], spec, rng, "iraven")
        panels.append(m), cands.append(c), answers.append(k), rules.append(spec)
    return PuzzleSet(ANALOGY, np.stack(panels), np.stack(cands), np.array(answers), rules)
