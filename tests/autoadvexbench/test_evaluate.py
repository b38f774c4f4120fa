import numpy as np
import pytest
import torch

from icml25.autoadvexbench import evaluate
from icml25.autoadvexbench.defenses import Defense


class Fixed(Defense):
    """Predicts label 0 for inputs whose mean is below 0.5, else 1; rejects pixel 0 > 0.9."""

    rejects = True

    def __init__(self):
        super().__init__(torch.nn.Identity())

    def forward(self, x):
        m = x.flatten(1).mean(1, keepdim=True)
        return torch.cat([0.5 - m, m - 0.5], 1)

    def reject(self, x):
        return x.flatten(1)[:, 0] > 0.9


X = torch.full((4, 1, 8, 8), 0.3)
Y = torch.zeros(4, dtype=torch.long)


def test_tolerance_is_one_percent_of_eps():
    inside = (X + 0.2 * 1.009).numpy()
    outside = (X + 0.2 * 1.011).numpy()
    assert evaluate(Fixed(), X, Y, inside, 0.2).valid
    ev = evaluate(Fixed(), X, Y, outside, 0.2)
    assert not ev.valid and "exceeds" in ev.reason
    assert ev.robust_accuracy == ev.clean_accuracy == 1.0  # an invalid submission scores clean


def test_misclassified_examples_break_the_defence():
    ev = evaluate(Fixed(), X, Y, X + 0.3, 0.3)  # mean 0.6: label 1, all wrong
    assert ev.clean_accuracy == 1.0 and ev.robust_accuracy == 0.0 and ev.broken


def test_rejection_is_the_defences_success():
    adv = X + 0.3
    adv.view(4, -1)[:2, 0] = 0.95  # two rejected, two misclassified
    ev = evaluate(Fixed(), X, Y, adv, 0.7)
    assert ev.rejected_fraction == 0.5 and ev.robust_accuracy == 0.5
    assert not ev.broken  # 0.5 is not below half of the clean accuracy 1.0


@pytest.mark.parametrize(
    "bad, reason",
    [
        (np.zeros((3, 1, 8, 8)), "shape"),
        (np.full((4, 1, 8, 8), np.nan), "NaN"),
        (np.full((4, 1, 8, 8), -0.1), "outside"),
        ("no file", "array"),
    ],
)
def test_invalid_submissions_are_named(bad, reason):
    ev = evaluate(Fixed(), X, Y, bad, 0.2)
    assert not ev.valid and reason in ev.reason


def test_bad_arguments():
    with pytest.raises(ValueError, match="eps"):
        evaluate(Fixed(), X, Y, X, 0)
    with pytest.raises(ValueError, match="equal length"):
        evaluate(Fixed(), X, Y[:2], X, 0.1)
