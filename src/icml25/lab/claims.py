"""The claims and checks of lab, declared before any run.

The protocol is in ``icml25.lab.reproduction``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
HOLDS = "holds"
FAILS = "fails"
NOT_MEASURED = "not measured"
INCOMPLETE = "incomplete"

CLAIM = "claim"
CHECK = "check"
KINDS = (CLAIM, CHECK)

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
    kind : ``"claim"``, a statement of the paper that the measurements could refute; or
        ``"check"``, what holds by construction or by algebra (an identity, a property built
        into the method or the instance generator). Only claims count as reproductions; a check
        "holds" or "fails".
    paper_value : the paper's own number or statement, as a short string, where known.
    source : where the paper says it (figure, table or section), where known.
    """

    id: str
    statement: str
    metric: str
    comparison: str
    threshold: float
    kind: str = CLAIM
    paper_value: str = ""
    source: str = ""

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
        if self.kind not in KINDS:
            raise ValueError(f"Claim.kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("paper_value", "source"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"Claim.{name} must be a string, got {getattr(self, name)!r}")


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
    if claim.kind == CHECK:
        return Verdict(claim, float(value), HOLDS if holds else FAILS)
    return Verdict(claim, float(value), REPRODUCED if holds else NOT_REPRODUCED)


def evaluate(
    claims: Iterable[Claim], measurements: Mapping[str, float], *, complete: bool = True
) -> list[Verdict]:
    """Verdicts of all claims, in their declared order.

    ``complete=False`` (some cell of the run failed): every claim and check is ``incomplete``,
    with no measured value. A verdict is never computed from part of the evidence.
    """
    if not complete:
        return [Verdict(claim, None, INCOMPLETE) for claim in claims]
    return [judge(claim, measurements) for claim in claims]


def tally(verdicts: Iterable[Mapping]) -> dict[str, int]:
    """Claims and checks counted apart, from verdict dicts (``Verdict.to_dict()``)."""
    verdicts = list(verdicts)
    claims = [v["verdict"] for v in verdicts if v.get("kind", CLAIM) == CLAIM]
    checks = [v["verdict"] for v in verdicts if v.get("kind", CLAIM) == CHECK]
    return {
        "claims": len(claims),
        "reproduced": claims.count(REPRODUCED),
        "not_reproduced": claims.count(NOT_REPRODUCED),
        "not_measured": claims.count(NOT_MEASURED),
        "incomplete": claims.count(INCOMPLETE),
        "checks": len(checks),
        "checks_hold": checks.count(HOLDS),
        "checks_fail": checks.count(FAILS),
        "checks_unknown": checks.count(NOT_MEASURED) + checks.count(INCOMPLETE),
    }


def headline(counts: Mapping[str, int]) -> str:
    """One line, e.g. ``5 of 6 claims reproduced, 2 checks hold``."""
    if counts["incomplete"]:
        parts = [f"{counts['incomplete']} of {counts['claims']} claims incomplete"]
    else:
        parts = [f"{counts['reproduced']} of {counts['claims']} claims reproduced"]
        if counts["not_measured"]:
            parts.append(f"{counts['not_measured']} not measured")
    n, hold = counts["checks"], counts["checks_hold"]
    if n and counts["incomplete"]:
        parts.append(f"{n} check{'s' * (n > 1)} incomplete")
    elif n and hold == n:
        parts.append("1 check holds" if n == 1 else f"{n} checks hold")
    elif n:
        parts.append(f"{hold} of {n} checks hold")
    return ", ".join(parts)
