"""Claims declared before a run, and the verdicts computed from measurements.

A reproduction declares each claim of its paper as data: which measured metric it reads, a
comparison and a threshold. The machinery, never the reproduction, turns a measurement into a
verdict, so a threshold cannot move after the numbers are in.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_MEASURED = "not measured"

COMPARISONS = {
    "<=": operator.le,
    "<": operator.lt,
    ">=": operator.ge,
    ">": operator.gt,
}


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, as a test on one measured number.

    Attributes
    ----------
    id : short identifier, e.g. ``"a"`` or ``"pavlov_rate"``.
    statement : what the paper claims, in our words, and how the metric tests it.
    metric : the key of the measurement in the summary's measurements.
    comparison : one of ``<=``, ``<``, ``>=``, ``>``; the claim holds when
        ``measured <comparison> threshold``.
    threshold : the number the issue fixes for this claim.
    """

    id: str
    statement: str
    metric: str
    comparison: str
    threshold: float

    def __post_init__(self) -> None:
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"Claim.id must be a non-empty string, got {self.id!r}")
        if not self.metric or not isinstance(self.metric, str):
            raise ValueError(f"Claim.metric must be a non-empty string, got {self.metric!r}")
        if self.comparison not in COMPARISONS:
            raise ValueError(
                f"Claim.comparison must be one of {sorted(COMPARISONS)}, got {self.comparison!r}"
            )
        if not isinstance(self.threshold, int | float) or not math.isfinite(self.threshold):
            raise ValueError(f"Claim.threshold must be a finite number, got {self.threshold!r}")


@dataclass(frozen=True)
class Verdict:
    """A claim together with its measured value and the verdict computed from them."""

    claim: Claim
    measured: float | None
    verdict: str

    def to_dict(self) -> dict:
        return {**asdict(self.claim), "measured": self.measured, "verdict": self.verdict}


def judge(claim: Claim, measurements: Mapping[str, float]) -> Verdict:
    """Compare one claim with the measurements: a missing or non-finite metric is never a pass."""
    value = measurements.get(claim.metric)
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return Verdict(claim, None, NOT_MEASURED)
    holds = COMPARISONS[claim.comparison](float(value), claim.threshold)
    return Verdict(claim, float(value), REPRODUCED if holds else NOT_REPRODUCED)


def evaluate(claims: Iterable[Claim], measurements: Mapping[str, float]) -> list[Verdict]:
    """Verdicts of all claims, in their declared order."""
    return [judge(claim, measurements) for claim in claims]
