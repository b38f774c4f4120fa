"""RAVEN-family rules as data: attribute domains, the four rules, row values and a checker.

The rules of RAVEN (Zhang et al., 2019) and I-RAVEN (Hu et al., 2021), the benchmarks UCGS
(Shi, Li & Xue, ICML 2025) is evaluated on, over a 3 x 3 matrix whose rows obey one rule per
attribute:

- ``constant``: ``v_{r,0} = v_{r,1} = v_{r,2}``;
- ``progression``: ``v_{r,c+1} = v_{r,c} + s``, ``s`` in {-1, +1} (for ``position``: the set of
  occupied slots rotated by ``s`` slots, clockwise);
- ``arithmetic``: ``v_{r,2} = v_{r,0} + v_{r,1}`` (``add``) or ``v_{r,0} - v_{r,1}`` (``sub``);
  for ``position`` the set union and difference; never on ``type``;
- ``distribute_three``: three distinct values, each row a cyclic shift of them (a Latin square).

A panel is four integers ``(type, size, colour, slots)``: every object of a panel has the same
type, size and colour (as in RAVEN's grid layouts) and ``slots`` is a bit mask over the four
cells of a 2 x 2 layout (bit ``k`` set: an object in cell ``k``; cells clockwise from top left).
The layout attribute obeys either a ``number`` rule (the count of objects; their cells drawn at
random) or a ``position`` rule (the mask itself), as in RAVEN.
"""

from __future__ import annotations

import numpy as np

ATTRIBUTES = ("type", "size", "colour", "number", "position")
RULES = ("constant", "progression", "arithmetic", "distribute_three")
TYPES = ("triangle", "square", "circle")
SLOTS = 4
# value domains (inclusive); position: non-empty masks over the 4 cells
DOMAIN = {"type": (0, 2), "size": (1, 3), "colour": (1, 3), "number": (1, 4), "position": (1, 15)}
ALLOWED = {
    "type": ("constant", "progression", "distribute_three"),
    "size": RULES,
    "colour": RULES,
    "number": RULES,
    "position": RULES,
}
# column of a panel's (type, size, colour, slots) vector that an attribute reads
COLUMN = {"type": 0, "size": 1, "colour": 2, "number": 3, "position": 3}
POPCOUNT = np.array([bin(m).count("1") for m in range(16)])


def rotate(mask, step: int):
    """Rotate a 4-cell occupancy mask by ``step`` cells (clockwise for +1); arrays allowed."""
    mask = np.asarray(mask)
    s = step % SLOTS
    return ((mask << s) | (mask >> (SLOTS - s))) & 15


def attribute_values(panels: np.ndarray, attribute: str) -> np.ndarray:
    """The values an attribute's rule reads from panels ``(..., 4)`` -> ``(...)``."""
    if attribute not in COLUMN:
        raise ValueError(f"attribute must be one of {ATTRIBUTES}, got {attribute!r}")
    values = np.asarray(panels)[..., COLUMN[attribute]]
    return POPCOUNT[values] if attribute == "number" else values


def sample_rule(attribute: str, rule: str, rng: np.random.Generator) -> dict:
    """A rule with its parameters, as the JSON-able dict the generator stores."""
    if rule not in ALLOWED.get(attribute, ()):
        raise ValueError(f"rule {rule!r} is not allowed on attribute {attribute!r}")
    spec = {"attribute": attribute, "rule": rule}
    if rule == "progression":
        spec["step"] = int(rng.choice([-1, 1]))
    elif rule == "arithmetic":
        spec["op"] = str(rng.choice(["add", "sub"]))
    elif rule == "distribute_three":
        spec["shift"] = int(rng.choice([1, 2]))
    return spec


def _apply(spec: dict, a: int, b: int | None = None) -> int:
    """The next value in a row: progression from ``a``; arithmetic from ``a`` and ``b``."""
    if spec["rule"] == "progression":
        if spec["attribute"] == "position":
            return int(rotate(a, spec["step"]))
        return a + spec["step"]
    if spec["attribute"] == "position":
        return a | b if spec["op"] == "add" else a & ~b & 15
    return a + b if spec["op"] == "add" else a - b


def _in_domain(attribute: str, v: int) -> bool:
    lo, hi = DOMAIN[attribute]
    return lo <= v <= hi


def row_values(spec: dict, rng: np.random.Generator) -> np.ndarray:
    """Values of one attribute over a 3 x 3 matrix obeying ``spec``: ``(3, 3)`` ints.

    Rows are drawn independently (rejection within the domain); ``distribute_three`` draws one
    triple for the whole matrix. Position masks exclude 15 under progression (rotation-invariant).

    Parameters
    ----------
    spec : dict
        A rule dict (:func:`sample_rule`'s form: ``attribute``, ``rule`` and its parameter).
    rng : numpy.random.Generator
        Source of the draws.

    Returns
    -------
    numpy.ndarray of int, shape (3, 3)
        The attribute's values, rows of the matrix as rows.
    """
    attribute, rule = spec["attribute"], spec["rule"]
    lo, hi = DOMAIN[attribute]
    grid = np.empty((3, 3), dtype=np.int64)
    if rule == "distribute_three":
        triple = rng.choice(np.arange(lo, hi + 1), size=3, replace=False)
        for r in range(3):
            grid[r] = triple[(np.arange(3) + r * spec["shift"]) % 3]
        return grid
    for r in range(3):
        while True:
            a = int(rng.integers(lo, hi + 1))
            if rule == "constant":
                row = [a, a, a]
            elif rule == "progression":
                if attribute == "position" and a == 15:
                    continue
                row = [a, _apply(spec, a), _apply(spec, _apply(spec, a))]
            else:
                b = int(rng.integers(lo, hi + 1))
                if attribute == "position" and a == b:
                    continue
                row = [a, b, _apply(spec, a, b)]
            if all(_in_domain(attribute, v) for v in row):
                grid[r] = row
                break
    return grid


_PARAMETERS = {  # the parameter each rule needs, and its values
    "progression": ("step", (-1, 1)),
    "arithmetic": ("op", ("add", "sub")),
    "distribute_three": ("shift", (1, 2)),
}


def check_spec(spec) -> dict:
    """``spec`` as a rule dict of :func:`sample_rule`'s form, or ValueError naming what is wrong."""
    if not isinstance(spec, dict) or spec.get("attribute") not in COLUMN:
        raise ValueError(f"a rule must be a dict with an attribute in {ATTRIBUTES}, got {spec!r}")
    if spec.get("rule") not in ALLOWED[spec["attribute"]]:
        raise ValueError(
            f"rule {spec.get('rule')!r} is not allowed on attribute {spec['attribute']!r}"
        )
    key, values = _PARAMETERS.get(spec["rule"], (None, ()))
    if key is not None and spec.get(key) not in values:
        raise ValueError(f"a {spec['rule']} rule needs {key} in {values}, got {spec!r}")
    return spec


def satisfies(spec: dict, values: np.ndarray) -> np.ndarray:
    """Whether matrices obey a rule, read from their values alone: ``(..., 3, 3)`` -> ``(...)``.

    Independent of how :func:`row_values` drew them, so that tests can check the generator.

    Parameters
    ----------
    spec : dict
        A rule dict (:func:`sample_rule`'s form).
    values : array_like of int, shape (..., 3, 3)
        The attribute's values of each matrix (integers).

    Returns
    -------
    numpy.ndarray of bool, shape (...)
        True where every value lies in the attribute's domain and the matrix obeys the rule.
    """
    v = np.asarray(values)
    if v.shape[-2:] != (3, 3):
        raise ValueError(f"values must have shape (..., 3, 3), got {v.shape}")
    if not np.issubdtype(v.dtype, np.integer):
        raise ValueError(f"values must be an integer array, got dtype {v.dtype}")
    return _satisfies(check_spec(spec), v)


def _satisfies(spec: dict, v: np.ndarray) -> np.ndarray:
    rule, attribute = spec["rule"], spec["attribute"]
    lo, hi = DOMAIN[attribute]
    ok = ((v >= lo) & (v <= hi)).all(axis=(-1, -2))
    a, b, c = v[..., 0], v[..., 1], v[..., 2]  # (..., 3) per row
    if rule == "constant":
        return ok & ((a == b) & (b == c)).all(-1)
    if rule == "progression":
        if attribute == "position":
            step = spec["step"]
            return ok & ((rotate(a, step) == b) & (rotate(b, step) == c)).all(-1)
        return ok & ((b - a == spec["step"]) & (c - b == spec["step"])).all(-1)
    if rule == "arithmetic":
        if attribute == "position":
            want = a | b if spec["op"] == "add" else a & ~b & 15
        else:
            want = a + b if spec["op"] == "add" else a - b
        return ok & (c == want).all(-1)
    if rule == "distribute_three":
        rows_distinct = ((a != b) & (b != c) & (a != c)).all(-1)
        same_set = (np.sort(v, axis=-1) == np.sort(v[..., :1, :], axis=-1)).all(axis=(-1, -2))
        cols = np.swapaxes(v, -1, -2)
        cols_distinct = (
            (cols[..., 0] != cols[..., 1])
            & (cols[..., 1] != cols[..., 2])
            & (cols[..., 0] != cols[..., 2])
        ).all(-1)
        return ok & rows_distinct & same_set & cols_distinct
    raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
