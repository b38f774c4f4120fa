"""The ranks cell's reduction: per-repeat replicates of (d_idle) and (d_throughput), on a
hand-made job whose idle times and epochs are known."""

import numpy as np
import pytest

from icml25.lab.claims import INCONCLUSIVE, REPRODUCED, judge
from icml25.omnibal.claims import CLAIMS
from icml25.omnibal.reproduce import Config
from icml25.omnibal.summary import _summarize_ranks

BY_ID = {c.id: c for c in CLAIMS}


def _rows(work, comm=0.5):
    """Clocks of one epoch: (S, R) work per rank; a step ends ``comm`` after its slowest rank."""
    t0, t1, t2, start = [], [], [], 0.0
    for w in np.asarray(work, float):
        t0.append(np.full(len(w), start))
        t1.append(start + w)
        start = start + w.max() + comm
        t2.append(np.full(len(w), start))
    return {"t0": np.array(t0), "t1": np.array(t1), "t2": np.array(t2), "work": np.array(work)}


def _ranks_output(repeats):
    random = np.array([[1.0, 1.4], [1.2, 1.0]])  # mean idle (0.4 + 0.2) / 4 = 0.15
    isf = np.array([[1.0, 1.1], [1.0, 1.05]])  # mean idle (0.1 + 0.05) / 4 = 0.0375
    job = {"comm": np.full((3, 2), 0.5)}
    for r in range(repeats):
        job[f"random/{r}"] = _rows(random * (1 + 0.1 * r))  # the wait grows with r
        job[f"isf/{r}"] = _rows(isf)
        job[f"identical/{r}"] = _rows(np.ones((2, 2)))
    return {
        "job": job,
        "predicted": {"random": random, "isf": isf},
        "samples": {"random": 16, "isf": 16, "identical": 16},
        "opt_seconds": 0.0,
        "fit_rel_residual": 0.0,
        "coef": np.zeros(4),
    }


def test_replicates_are_the_per_repeat_ratios_and_the_metric_their_mean():
    m = {}
    _summarize_ranks(Config(d_repeats=3), _ranks_output(3), m)
    ratios = [4 * (1 + 0.1 * r) for r in range(3)]  # 0.15 (1 + 0.1 r) / 0.0375
    for r, ratio in enumerate(ratios):
        assert m[f"d_idle_reduction[rep={r}]"] == pytest.approx(ratio)
    assert m["d_idle_reduction"] == pytest.approx(np.mean(ratios))
    # samples per second: 16 over the epoch, sum of (slowest rank + 0.5) over the 2 steps
    random_epochs = [(1.4 + 1.2) * (1 + 0.1 * r) + 1.0 for r in range(3)]
    speed = [e / (1.1 + 1.05 + 1.0) for e in random_epochs]
    for r, s in enumerate(speed):
        assert m[f"d_measured_speedup[rep={r}]"] == pytest.approx(s)
    assert m["d_measured_speedup"] == pytest.approx(np.mean(speed))
    # identical batches wait 0: the whole of random batching's wait is balanceable
    step = np.median(random_epochs) / 2
    assert m["d_random_balanceable_idle_fraction"] == pytest.approx(0.15 * 1.1 / step)
    # both claims are judged on their interval over the 3 repeats
    idle = judge(BY_ID["d_idle"], m)
    assert idle.interval.n == (3,) and idle.verdict == REPRODUCED
    assert idle.interval.low < m["d_idle_reduction"] < idle.interval.high
    assert judge(BY_ID["d_throughput"], m).interval.n == (3,)


def test_one_repeat_gives_no_interval_to_pass_on():
    m = {}
    _summarize_ranks(Config(d_repeats=1), _ranks_output(1), m)
    assert judge(BY_ID["d_idle"], m).verdict == INCONCLUSIVE  # (-inf, inf) straddles 2


def test_judged_comparisons_are_the_declared_ones():
    assert BY_ID["b"].metric == "b_time_reduction_vs_param_balanced"
    assert BY_ID["b_vs_equal_layer"].kind == "diagnostic"
    assert BY_ID["d_model"].kind == "check"
    assert BY_ID["d_throughput"].threshold > 1.0  # never weaker than "samples per second rise"
