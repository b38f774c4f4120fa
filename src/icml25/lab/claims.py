"""The claims, checks and diagnostics of lab, declared before any run.

The protocol is in ``icml25.lab.reproduction``.

A claim on one number is judged by comparing it with its threshold ("single run"). A claim
that declares its ``replicates`` (the measurements its metric is a mean of: seeds, runs, data
sets, test splits) is judged on a 95% Student t-interval of their mean,
``mean ± t_{0.975, n-1} · s / √n``: **reproduced** when the whole interval lies on the claimed
side of the threshold, **not reproduced** when it lies wholly on the other side, and
**inconclusive** when it straddles the threshold. Replicates that are 0/1 outcomes (did this
seed fit below OLS?) declare ``ci="wilson"``: the 95% Wilson score interval of their
proportion, which stays inside [0, 1] and does not shrink to a point when every outcome agrees.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import cache

import numpy as np
from scipy import stats

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
HOLDS = "holds"
FAILS = "fails"
NOT_MEASURED = "not measured"
INCOMPLETE = "incomplete"

CLAIM = "claim"
CHECK = "check"
DIAGNOSTIC = "diagnostic"
KINDS = (CLAIM, CHECK, DIAGNOSTIC)

GROUP = "{group}"
ACROSS = ("min", "max")
STUDENT_T = "student-t"
WILSON = "wilson"
CIS = (STUDENT_T, WILSON)
CONFIDENCE = 0.95

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
    statement : what the paper claims, in our words, and how the metric tests it; for a
        diagnostic, the question it answers.
    metric : the key of the measurement in the summary's measurements.
    comparison : one of ``<=``, ``<``, ``>=``, ``>``; the claim holds when
        ``measured <comparison> threshold``. None for a diagnostic.
    threshold : the number the issue fixes for this claim. None for a diagnostic.
    kind : ``"claim"``, a statement of the paper that the measurements could refute;
        ``"check"``, what holds by construction or by algebra (an identity, a property built
        into the method or the instance generator), which "holds" or "fails"; or
        ``"diagnostic"``, a measurement that answers a question about the reproduction (why a
        claim failed, whether training converged), shown with its value and never judged.
    paper_value : the paper's own number or statement, as a short string, where known.
    source : where the paper says it (figure, table or section), where known.
    replicates : a pattern naming the measurements whose mean is ``metric``; ``*`` stands
        for any text without ``,``, ``[`` or ``]``, e.g. ``"gain[seed=*]"``. With a
        ``{group}`` part as well (``"share[epsilon={group},run=*]"``), ``metric`` is the
        ``across`` (``"min"`` or ``"max"``) of the groups' means, and its interval runs from
        the ``across`` of the groups' lower bounds to that of their upper bounds. Empty: the
        metric is one number ("single run").
    across : with ``{group}`` in ``replicates``, ``"min"`` or ``"max"``.
    ci : the interval of each group's mean: ``"student-t"``, or ``"wilson"`` for replicates
        that are 0/1 outcomes (the mean is then a proportion).
    """

    id: str
    statement: str
    metric: str
    comparison: str | None = None
    threshold: float | None = None
    kind: str = CLAIM
    paper_value: str = ""
    source: str = ""
    replicates: str = ""
    across: str = ""
    ci: str = STUDENT_T

    def __post_init__(self) -> None:
        if not self.id or not isinstance(self.id, str):
            raise ValueError(f"Claim.id must be a non-empty string, got {self.id!r}")
        if not self.metric or not isinstance(self.metric, str):
            raise ValueError(f"Claim.metric must be a non-empty string, got {self.metric!r}")
        if self.kind not in KINDS:
            raise ValueError(f"Claim.kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == DIAGNOSTIC:
            if self.comparison is not None or self.threshold is not None:
                raise ValueError(
                    f"Claim {self.id!r}: a diagnostic is never judged; give it no comparison "
                    "and no threshold"
                )
            if self.replicates:
                raise ValueError(f"Claim {self.id!r}: a diagnostic declares no replicates")
        else:
            if self.comparison not in COMPARISONS:
                raise ValueError(
                    f"Claim.comparison must be one of {sorted(COMPARISONS)}, "
                    f"got {self.comparison!r}"
                )
            if not isinstance(self.threshold, int | float) or not math.isfinite(self.threshold):
                raise ValueError(f"Claim.threshold must be a finite number, got {self.threshold!r}")
        if self.ci not in CIS:
            raise ValueError(f"Claim.ci must be one of {CIS}, got {self.ci!r}")
        if self.ci != STUDENT_T and not self.replicates:
            raise ValueError(f"Claim {self.id!r}: ci={self.ci!r} needs replicates")
        for name in ("paper_value", "source", "replicates", "across"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"Claim.{name} must be a string, got {getattr(self, name)!r}")
        grouped = GROUP in self.replicates
        if self.replicates and "*" not in self.replicates:
            raise ValueError(
                f"Claim.replicates must contain '*' where the replicate's name varies, got "
                f"{self.replicates!r}"
            )
        if grouped and self.across not in ACROSS:
            raise ValueError(
                f"Claim.across must be one of {ACROSS} when replicates has {GROUP}, got "
                f"{self.across!r}"
            )
        if self.across and not grouped:
            raise ValueError(f"Claim.across needs {GROUP} in replicates, got {self.replicates!r}")


@dataclass(frozen=True)
class Interval:
    """The confidence interval of a claim's metric, from its replicates."""

    low: float
    high: float
    n: tuple[int, ...]  # replicates in each group (one entry when ungrouped)
    mean: float
    confidence: float = CONFIDENCE
    method: str = STUDENT_T


@dataclass(frozen=True)
class Verdict:
    """A claim together with its measured value, its interval and the verdict from them.

    ``verdict`` is None for a diagnostic; ``interval`` is None for a single-run claim."""

    claim: Claim
    measured: float | None
    verdict: str | None
    interval: Interval | None = None

    def to_dict(self) -> dict:
        interval = None if self.interval is None else asdict(self.interval)
        if interval is not None:
            interval["n"] = list(interval["n"])
        return {
            **asdict(self.claim),
            "measured": self.measured,
            "verdict": self.verdict,
            "interval": interval,
        }


@cache
def _pattern(replicates: str) -> re.Pattern:
    text = re.escape(replicates).replace(r"\*", r"[^,\[\]]*")
    return re.compile(text.replace(re.escape(GROUP), r"(?P<group>[^,\[\]]*)"))


def replicate_values(claim: Claim, measurements: Mapping[str, float]) -> dict[str, list[float]]:
    """``{group: [values]}`` of the measurements that ``claim.replicates`` names, in key
    order; the single group is ``""`` when the pattern has no ``{group}``. Empty when a
    matching measurement is missing or not finite: an interval is never computed from part of
    the replicates."""
    pattern = _pattern(claim.replicates)
    groups: dict[str, list[float]] = {}
    for key in sorted(measurements):
        match = pattern.fullmatch(key)
        if match is None:
            continue
        value = measurements[key]
        if not isinstance(value, int | float) or not math.isfinite(value):
            return {}
        groups.setdefault(match.groupdict().get("group") or "", []).append(float(value))
    return groups


def t_interval(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Student t confidence interval of the mean of ``values`` (n >= 2); with n = 1 it is
    unbounded, (-inf, inf): one replicate says nothing of the spread."""
    x = np.asarray(list(values), dtype=float)  # (n,)
    if x.size < 2:
        return -math.inf, math.inf
    half = stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size)
    return float(x.mean() - half), float(x.mean() + half)


def wilson_interval(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score confidence interval of the proportion of ones among 0/1 ``values``
    (scipy's ``binomtest(...).proportion_ci(method="wilson")``)."""
    x = np.asarray(list(values), dtype=float)  # (n,)
    if x.size == 0 or not np.isin(x, (0.0, 1.0)).all():
        raise ValueError(f"a Wilson interval needs 0/1 outcomes, got {x.tolist()!r}")
    ci = stats.binomtest(int(x.sum()), x.size).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


def interval(claim: Claim, measurements: Mapping[str, float]) -> Interval | None:
    """The interval of a claim's metric from its declared replicates; None when it declares
    none or none were measured."""
    if not claim.replicates:
        return None
    groups = replicate_values(claim, measurements)
    if not groups:
        return None
    bound = wilson_interval if claim.ci == WILSON else t_interval
    bounds = np.array([bound(v) for v in groups.values()])  # (groups, 2)
    means = np.array([np.mean(v) for v in groups.values()])  # (groups,)
    pick = np.max if claim.across == "max" else np.min
    if not claim.across:
        pick = np.min  # one group: its own bounds
    return Interval(
        low=float(pick(bounds[:, 0])),
        high=float(pick(bounds[:, 1])),
        n=tuple(len(v) for v in groups.values()),
        mean=float(pick(means)),
        method=claim.ci,
    )


def judge(claim: Claim, measurements: Mapping[str, float]) -> Verdict:
    """Compare one claim with the measurements: a missing or non-finite metric is never a pass.

    With replicates, the verdict comes from the interval (see the module's docstring); a claim
    whose replicates were not measured is "not measured"."""
    value = measurements.get(claim.metric)
    if value is None or not isinstance(value, int | float) or not math.isfinite(value):
        return Verdict(claim, None, None if claim.kind == DIAGNOSTIC else NOT_MEASURED)
    value = float(value)
    if claim.kind == DIAGNOSTIC:
        return Verdict(claim, value, None)
    holds = COMPARISONS[claim.comparison]
    if claim.kind == CHECK:
        return Verdict(claim, value, HOLDS if holds(value, claim.threshold) else FAILS)
    if not claim.replicates:
        return Verdict(
            claim, value, REPRODUCED if holds(value, claim.threshold) else NOT_REPRODUCED
        )
    bounds = interval(claim, measurements)
    if bounds is None:
        return Verdict(claim, value, NOT_MEASURED)
    low, high = holds(bounds.low, claim.threshold), holds(bounds.high, claim.threshold)
    if low and high:
        verdict = REPRODUCED
    elif not low and not high:
        verdict = NOT_REPRODUCED
    else:
        verdict = INCONCLUSIVE
    return Verdict(claim, value, verdict, bounds)


def evaluate(
    claims: Iterable[Claim],
    measurements: Mapping[str, float],
    *,
    complete: bool = True,
    partial: bool = False,
) -> list[Verdict]:
    """Verdicts of all claims, in their declared order.

    ``complete=False`` (some cell of the run failed): every claim and check is ``incomplete``,
    with no measured value, and diagnostics are not shown. A verdict is never computed from
    part of the evidence. ``partial=True`` with it (only cells that the paper runs with a model
    failed; ``measurements`` come from the others): a claim whose measurement is there is judged,
    since its evidence is whole; one not measured is ``incomplete``.
    """
    if not complete and not partial:
        return [
            Verdict(claim, None, None if claim.kind == DIAGNOSTIC else INCOMPLETE)
            for claim in claims
        ]
    verdicts = [judge(claim, measurements) for claim in claims]
    if partial:
        verdicts = [
            Verdict(v.claim, None, INCOMPLETE) if v.verdict == NOT_MEASURED else v for v in verdicts
        ]
    return verdicts


def tally(verdicts: Iterable[Mapping]) -> dict[str, int]:
    """Claims, checks and diagnostics counted apart, from verdict dicts
    (``Verdict.to_dict()``). This is the one place counts are made."""
    verdicts = list(verdicts)
    claims = [v["verdict"] for v in verdicts if v.get("kind", CLAIM) == CLAIM]
    checks = [v["verdict"] for v in verdicts if v.get("kind", CLAIM) == CHECK]
    return {
        "claims": len(claims),
        "reproduced": claims.count(REPRODUCED),
        "not_reproduced": claims.count(NOT_REPRODUCED),
        "inconclusive": claims.count(INCONCLUSIVE),
        "not_measured": claims.count(NOT_MEASURED),
        "incomplete": claims.count(INCOMPLETE),
        "checks": len(checks),
        "checks_hold": checks.count(HOLDS),
        "checks_fail": checks.count(FAILS),
        "checks_unknown": checks.count(NOT_MEASURED) + checks.count(INCOMPLETE),
        "diagnostics": sum(v.get("kind") == DIAGNOSTIC for v in verdicts),
    }


def headline(counts: Mapping[str, int]) -> str:
    """One line, e.g. ``4 of 6 claims reproduced, 1 inconclusive, 2 checks hold``."""
    if counts["incomplete"]:
        parts = [f"{counts['incomplete']} of {counts['claims']} claims incomplete"]
    else:
        parts = [f"{counts['reproduced']} of {counts['claims']} claims reproduced"]
        if counts.get("inconclusive"):
            parts.append(f"{counts['inconclusive']} inconclusive")
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
