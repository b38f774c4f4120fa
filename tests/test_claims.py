import math

import pytest

from icml25.lab.claims import NOT_MEASURED, NOT_REPRODUCED, REPRODUCED, Claim, evaluate, judge


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
