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
