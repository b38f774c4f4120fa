import json

import numpy as np
import pytest

import icml25.hiref.reproduce as hr
from icml25.hiref import DATASETS, GAUSSIAN_W2_SQUARED, HIGHDIM, sample
from icml25.hiref.baselines import exact_cost, minibatch_ot
from icml25.hiref.claims import CLAIMS


def test_claims_are_the_issues():
    assert [(c.id, c.comparison, c.threshold) for c in CLAIMS] == [
        ("a", "<=", 1.01),
        ("b", ">=", 1.0),
        ("c", "<=", 5.5),
        ("d1", "<", 1.0),
        ("d2", "<", 1.0),
    ]


def test_default_cells_cover_the_grid():
    config = hr.SCALES["default"]
    cells = hr.cells(config)
    json.dumps(cells)
    quality = [c for c in cells if c["kind"] == "quality" and c["n"] == 4096]
    assert len(quality) == 4 * 5
    assert {c["dataset"] for c in cells if c["kind"] == "highdim"} == set(HIGHDIM)
    assert {c["n"] for c in cells if c["kind"] == "highdim"} == {2**14}
    assert {c["n"] for c in cells if c["kind"] == "sinkhorn"} == {4096}
    assert max(c["n"] for c in hr.cells(hr.SCALES["paper"]) if c["kind"] == "highdim") == 2**16
    assert config.timing_from == 2**16 and 2**18 in config.timing_ns


@pytest.mark.parametrize("name", list(DATASETS))
def test_samplers_are_seeded(name):
    X, Y = sample(name, 100, 3)
    X2, Y2 = sample(name, 100, 3)
    assert X.shape == Y.shape == (100, 2)
    assert np.array_equal(X, X2) and np.array_equal(Y, Y2)


@pytest.mark.parametrize("name", list(HIGHDIM))
def test_high_dimensional_samplers(name):
    X, Y = sample(name, 50, 1)
    X2, _ = sample(name, 50, 1)
    d = int(name.removeprefix("gmm").removeprefix("digits"))
    assert X.shape == Y.shape == (50, d)
    assert np.array_equal(X, X2) and not np.array_equal(X, sample(name, 50, 2)[0])


def test_gaussian_closed_form_and_baselines():
    assert GAUSSIAN_W2_SQUARED == pytest.approx(4.5)
    X, Y = sample("gaussians", 256, 0)
    exact = exact_cost(X, Y)
    perm = minibatch_ot(X, Y, 64, 0)
    assert np.array_equal(np.sort(perm), np.arange(256))
    assert np.mean(np.sum((X - Y[perm]) ** 2, axis=1)) >= exact - 1e-9


def test_smoke_claims_hold(smoke):
    summary = smoke("hiref")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    # (a) is judged on two seeds per data set at smoke scale: too few to decide
    assert [c["verdict"] for c in summary["claims"]] == [
        "inconclusive",
        "holds",
        "reproduced",
        "reproduced",
        "reproduced",
    ]


def test_which_declarations_are_checks():
    # (b): the output is a permutation by construction (equal splits, exact leaves)
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["b"]
