import math
import re

import numpy as np
import pytest

from icml25.lab.claims import (
    DIAGNOSTIC,
    INCONCLUSIVE,
    NOT_MEASURED,
    NOT_REPRODUCED,
    REPRODUCED,
    Claim,
    evaluate,
    headline,
    judge,
    replicate_values,
    t_interval,
    tally,
)


def claim(comparison=">=", threshold=0.9):
    return Claim("a", "a statement", "rate", comparison, threshold)


@pytest.mark.parametrize(
    "comparison, value, expected",
    [
        (">=", 0.9, REPRODUCED),
        (">=", 0.89, NOT_REPRODUCED),
        (">", 0.9, NOT_REPRODUCED),
        ("<=", 0.9, REPRODUCED),
        ("<", 0.9, NOT_REPRODUCED),
        ("<", 0.1, REPRODUCED),
    ],
)
def test_verdict_follows_the_declared_comparison(comparison, value, expected):
    assert judge(claim(comparison), {"rate": value}).verdict == expected


@pytest.mark.parametrize(
    "measurements", [{}, {"rate": math.nan}, {"rate": None}, {"rate": math.inf}, {"other": 1.0}]
)
def test_a_missing_or_non_finite_metric_is_never_a_pass(measurements):
    verdict = judge(claim("<=", 1e9), measurements)
    assert verdict.verdict == NOT_MEASURED
    assert verdict.measured is None


def test_evaluate_keeps_the_declared_order_and_serialises():
    claims = [Claim("b", "s", "x", "<=", 1.0), Claim("a", "s", "y", ">=", 2.0)]
    verdicts = evaluate(claims, {"x": 0.5, "y": 1.0})
    assert [v.claim.id for v in verdicts] == ["b", "a"]
    assert [v.verdict for v in verdicts] == [REPRODUCED, NOT_REPRODUCED]
    assert verdicts[1].to_dict() == {
        "kind": "claim",
        "paper_value": "",
        "source": "",
        "id": "a",
        "statement": "s",
        "metric": "y",
        "comparison": ">=",
        "threshold": 2.0,
        "measured": 1.0,
        "verdict": NOT_REPRODUCED,
        "replicates": "",
        "across": "",
        "ci": "student-t",
        "interval": None,
    }


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"comparison": "=="}, "comparison"),
        ({"threshold": math.nan}, "threshold"),
        ({"threshold": "0.9"}, "threshold"),
        ({"metric": ""}, "metric"),
        ({"id": ""}, "id"),
    ],
)
def test_malformed_claims_are_refused(kwargs, word):
    fields = {"id": "a", "statement": "s", "metric": "m", "comparison": ">=", "threshold": 1.0}
    with pytest.raises(ValueError, match=word):
        Claim(**{**fields, **kwargs})


def test_checks_are_judged_apart_and_counted_apart():
    from icml25.lab.claims import FAILS, HOLDS, INCOMPLETE, headline, tally

    claims = [
        Claim("a", "s", "x", ">=", 1.0),
        Claim("b", "s", "y", ">=", 1.0, kind="check"),
        Claim("c", "s", "z", ">=", 1.0, kind="check"),
    ]
    verdicts = evaluate(claims, {"x": 2.0, "y": 2.0, "z": 0.0})
    assert [v.verdict for v in verdicts] == [REPRODUCED, HOLDS, FAILS]
    counts = tally(v.to_dict() for v in verdicts)
    assert (counts["claims"], counts["reproduced"], counts["checks"], counts["checks_hold"]) == (
        1,
        1,
        2,
        1,
    )
    assert headline(counts) == "1 of 1 claims reproduced, 1 of 2 checks hold"
    partial = evaluate(claims, {"x": 2.0, "y": 2.0, "z": 2.0}, complete=False)
    assert {v.verdict for v in partial} == {INCOMPLETE} and all(v.measured is None for v in partial)
    assert (
        headline(tally(v.to_dict() for v in partial))
        == "1 of 1 claims incomplete, 2 checks incomplete"
    )


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"kind": "lemma"}, "kind"),
        ({"paper_value": 1.0}, "paper_value"),
        ({"source": None}, "source"),
    ],
)
def test_malformed_claim_fields_are_refused(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Claim("a", "s", "m", ">=", 1.0, **kwargs)


# ---------------------------------------------------------------- replicates and intervals


def replicated(comparison=">=", threshold=0.0, **kwargs):
    return Claim(
        "g", "gain", "mean_gain", comparison, threshold, replicates="gain[seed=*]", **kwargs
    )


def gains(values):
    return {"mean_gain": sum(values) / len(values)} | {
        f"gain[seed={i}]": v for i, v in enumerate(values)
    }


def test_the_interval_is_the_student_t_interval_of_the_mean():
    from scipy import stats

    values = [2.6, 0.3, -2.2]
    verdict = judge(replicated(), gains(values))
    ci = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert verdict.interval.low == pytest.approx(ci[0], rel=1e-12)
    assert verdict.interval.high == pytest.approx(ci[1], rel=1e-12)
    assert verdict.interval.n == (3,)


@pytest.mark.parametrize(
    "values, expected",
    [
        ([2.6, 0.3, -2.2], INCONCLUSIVE),  # a mean gain of +0.2 inside the seed spread
        ([1.0, 1.1, 0.9, 1.05], REPRODUCED),
        ([-1.0, -1.1, -0.9], NOT_REPRODUCED),
        ([0.5, 0.5], REPRODUCED),  # no spread: the interval is the mean
        ([0.5], INCONCLUSIVE),  # one replicate: an unbounded interval
    ],
)
def test_the_verdict_comes_from_where_the_interval_lies(values, expected):
    assert judge(replicated(), gains(values)).verdict == expected


def wilson_by_hand(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize("outcomes", [[1, 1, 1, 0, 1], [1] * 5, [0] * 5, [0, 1] * 6])
def test_binary_replicates_take_the_wilson_score_interval(outcomes):
    verdict = judge(replicated(threshold=0.5, ci="wilson"), gains(outcomes))
    low, high = wilson_by_hand(sum(outcomes), len(outcomes))
    assert verdict.interval.low == pytest.approx(low, abs=1e-12)
    assert verdict.interval.high == pytest.approx(high, abs=1e-12)
    assert verdict.interval.method == "wilson"


def test_unanimous_outcomes_are_not_a_certainty():
    # five seeds out of five: Student t would give the point [1, 1]; Wilson's lower bound is
    # n / (n + z^2) = 0.566, and four out of five cannot show a majority
    assert judge(replicated(threshold=0.5, ci="wilson"), gains([1] * 5)).verdict == REPRODUCED
    assert judge(replicated(threshold=0.6, ci="wilson"), gains([1] * 5)).verdict == INCONCLUSIVE
    assert (
        judge(replicated(threshold=0.5, ci="wilson"), gains([1, 1, 1, 1, 0])).verdict
        == INCONCLUSIVE
    )


def test_a_wilson_interval_refuses_outcomes_that_are_not_0_or_1():
    with pytest.raises(ValueError, match="0/1 outcomes"):
        judge(replicated(ci="wilson"), gains([1.0, 0.5]))
    with pytest.raises(ValueError, match="Claim.ci"):
        replicated(ci="bootstrap")
    with pytest.raises(ValueError, match="needs replicates"):
        Claim("g", "s", "m", ">=", 0.0, ci="wilson")


def test_a_claim_whose_replicates_are_missing_is_not_measured():
    measurements = gains([1.0, 2.0]) | {"gain[seed=1]": math.nan}
    assert judge(replicated(), measurements).verdict == NOT_MEASURED
    assert judge(replicated(), {"mean_gain": 1.0}).verdict == NOT_MEASURED


def test_the_pattern_is_literal_but_for_its_wildcards():
    claim = Claim("g", "s", "m", ">=", 0, replicates="gain[k=5,seed=*]")
    measurements = {"gain[k=5,seed=0]": 1.0, "gain[k=5,seed=1]": 2.0, "gain[k=10,seed=0]": 9.0}
    assert replicate_values(claim, measurements) == {"": [1.0, 2.0]}


def test_grouped_replicates_take_the_worst_group_for_a_minimum():
    claim = Claim(
        "s", "s", "min_share", ">=", 0.5, replicates="share[eps={group},run=*]", across="min"
    )
    good = {f"share[eps=0,run={i}]": v for i, v in enumerate([0.9, 0.95, 0.92])}
    shaky = {f"share[eps=0.05,run={i}]": v for i, v in enumerate([0.9, 0.2, 0.6])}
    verdict = judge(claim, {"min_share": 0.567, **good, **shaky})
    assert verdict.interval.n == (3, 3)
    lows = [t_interval(list(g.values()))[0] for g in (good, shaky)]
    assert verdict.interval.low == pytest.approx(min(lows), rel=1e-12)
    assert verdict.verdict == INCONCLUSIVE
    assert judge(claim, {"min_share": 0.92, **good}).verdict == REPRODUCED


def test_a_diagnostic_is_shown_never_judged_nor_counted():
    question = Claim("why", "does training longer help?", "longer_gain", kind=DIAGNOSTIC)
    verdicts = [
        v.to_dict()
        for v in evaluate([replicated(), question], gains([1.0, 1.2]) | {"longer_gain": 3.0})
    ]
    assert verdicts[1]["verdict"] is None and verdicts[1]["measured"] == 3.0
    counts = tally(verdicts)
    assert (counts["claims"], counts["checks"], counts["diagnostics"]) == (1, 0, 1)
    with pytest.raises(ValueError, match="never judged"):
        Claim("why", "q", "m", ">=", 1.0, kind=DIAGNOSTIC)


def test_inconclusive_is_counted_apart():
    verdicts = [
        v.to_dict()
        for v in evaluate(
            [replicated(), Claim("b", "s", "x", ">=", 0)], gains([2.6, 0.3, -2.2]) | {"x": 1.0}
        )
    ]
    counts = tally(verdicts)
    assert (counts["reproduced"], counts["inconclusive"], counts["not_reproduced"]) == (1, 1, 0)
    assert headline(counts) == "1 of 2 claims reproduced, 1 inconclusive"


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"replicates": "gain[seed=0]"}, "'\\*'"),
        ({"replicates": "gain[eps={group},run=*]"}, "across"),
        ({"across": "min"}, "group"),
    ],
)
def test_malformed_replicates_are_refused(kwargs, word):
    with pytest.raises(ValueError, match=word):
        Claim("a", "s", "m", ">=", 0.0, **kwargs)


def test_run_summary_tallies_its_counts_from_its_verdicts():
    from icml25.lab.run_summary import RunSummary

    verdicts = [
        v.to_dict()
        for v in evaluate(
            [replicated(), Claim("b", "s", "x", ">=", 0)], gains([2.6, 0.3, -2.2]) | {"x": 1.0}
        )
    ]
    fields = dict(slug="p", title="t", scale="smoke", seed=0, complete=True, config={})
    fields |= dict(cells={}, failures=[], measurements={}, figures=[], timing={}, provenance={})
    data = RunSummary(claims=verdicts, **fields).to_dict()
    data["counts"] = {"claims": 99}  # stored counts are never trusted
    summary = RunSummary.from_dict(data)
    assert summary.counts == tally(verdicts)
    assert summary.compact() == "1/2 claims, 1 inconclusive"


@pytest.mark.parametrize(
    ("declared", "words"),
    [({"zz": "too short"}, "['zz'] that no claim declares"), ({"b": ""}, "none for ['b']")],
)
def test_smoke_unmeasured_names_what_is_wrong(monkeypatch, declared, words):
    from types import SimpleNamespace

    from icml25.lab import reproduction

    real = reproduction.claims_module("creativity")
    module = SimpleNamespace(CLAIMS=real.CLAIMS, SMOKE_UNMEASURED=declared)
    monkeypatch.setattr(reproduction, "claims_module", lambda slug: module)
    with pytest.raises(TypeError, match=re.escape(words)):
        reproduction.smoke_unmeasured("creativity")
