"""The AutoAdvExBench evaluator (Carlini et al., ICML 2025, Sec. 3; the official
``evaluate/evaluate_attack.py`` and ``checks/test_attack2.py``).

For clean test images ``x`` (n, 1, 8, 8) with labels ``y`` and submitted adversarial examples
``x_adv``:

- the submission is valid when it has the shape of ``x``, is finite, lies in [0, 1], and
  ``max |x_adv - x| <= eps * tolerance`` (tolerance 1.01, the official check's slack); an
  invalid submission scores robust accuracy = clean accuracy (the official verifier's rule);
- clean accuracy = mean[predict(x) == y] (a rejected clean input counts as an error);
- robust accuracy = mean[predict(x_adv) == y or predict(x_adv) == -1]: a rejected adversarial
  example is the defence's success;
- the defence is broken when robust accuracy < ``broken_ratio`` (1/2) x clean accuracy.

A randomised defence is reseeded with the evaluator's own ``seed`` before each prediction.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch

TOLERANCE = 1.01
BROKEN_RATIO = 0.5


@dataclass(frozen=True)
class Evaluation:
    """The evaluator's verdict on one submission.

    Parameters
    ----------
    clean_accuracy : float
        Share of clean test images predicted correctly (a rejected one is an error), in [0, 1].
    robust_accuracy : float
        Share of adversarial examples predicted correctly or rejected, in [0, 1]; the clean
        accuracy for an invalid submission.
    valid : bool
        Whether the submission passed the checks of the module docstring.
    reason : str
        Why it is invalid, ``""`` when valid.
    max_distortion : float
        ``max |x_adv - x|``; NaN for an invalid submission.
    rejected_fraction : float
        Share of the adversarial examples the defence rejected (0 when invalid).
    broken : bool
        Whether ``robust_accuracy < BROKEN_RATIO * clean_accuracy`` (False when invalid).

    Notes
    -----
    ``ratio`` is robust over clean accuracy; ``to_dict()`` gives the fields and ``ratio``.
    """

    clean_accuracy: float
    robust_accuracy: float
    valid: bool
    reason: str  # why a submission is invalid ("" when valid)
    max_distortion: float
    rejected_fraction: float  # of the adversarial examples
    broken: bool

    @property
    def ratio(self) -> float:
        """Robust over clean accuracy (the defence is broken below ``BROKEN_RATIO``)."""
        return self.robust_accuracy / max(self.clean_accuracy, 1e-12)

    def to_dict(self) -> dict:
        return {**asdict(self), "ratio": self.ratio}


def evaluate(
    defense,
    x: torch.Tensor,
    y: torch.Tensor,
    x_adv,
    eps: float,
    *,
    seed: int = 0,
    tolerance: float = TOLERANCE,
) -> Evaluation:
    """Score a submission of adversarial examples against a defence.

    Parameters
    ----------
    defense : Defense
        The defence; its ``predict`` labels the images (a randomised one is reseeded with
        ``seed`` before each prediction).
    x : torch.Tensor
        (n, 1, 8, 8) clean test images, ``n >= 1``.
    y : torch.Tensor
        (n,) true labels.
    x_adv : array_like or torch.Tensor
        The submission, valid when it has the shape of ``x``, is finite, lies in [0, 1] and
        is within ``eps * tolerance`` of ``x``; anything else (even not an array) is scored
        as invalid.
    eps : float
        L-infinity budget, ``> 0``.
    seed : int, default 0
        Seed a randomised defence is reset to before each prediction.
    tolerance : float, default TOLERANCE
        Slack factor on ``eps`` (1.01, the official check's).

    Returns
    -------
    evaluation : Evaluation
        Clean and robust accuracy, validity and reason, distortion, rejected share and
        whether the defence is broken.
    """
    if not eps > 0:
        raise ValueError(f"eps must be > 0, got {eps!r}")
    if len(x) != len(y) or len(x) == 0:
        raise ValueError(f"x and y must be non-empty of equal length, got {len(x)}, {len(y)}")
    clean = _predict(defense, x, seed)
    clean_acc = float((clean == y).float().mean())
    adv, reason = _as_submission(x_adv, x, eps, tolerance)
    if reason:
        return Evaluation(clean_acc, clean_acc, False, reason, float("nan"), 0.0, False)
    pred = _predict(defense, adv, seed)
    robust = float(((pred == y) | (pred == -1)).float().mean())
    return Evaluation(
        clean_acc,
        robust,
        True,
        "",
        float((adv - x).abs().max()),
        float((pred == -1).float().mean()),
        robust < BROKEN_RATIO * clean_acc,
    )


def _predict(defense, x: torch.Tensor, seed: int) -> torch.Tensor:
    if getattr(defense, "randomised", False):
        defense.reseed(seed)
    return defense.predict(x)


def _as_submission(x_adv, x: torch.Tensor, eps: float, tolerance: float):
    """(tensor, "") for a valid submission, else (None, reason)."""
    try:
        adv = torch.as_tensor(np.asarray(x_adv, dtype=np.float32))
    except (TypeError, ValueError) as error:
        return None, f"not an array of numbers: {error}"
    if tuple(adv.shape) != tuple(x.shape):
        return None, f"shape {tuple(adv.shape)}, expected {tuple(x.shape)}"
    if not torch.isfinite(adv).all():
        return None, "contains NaN or infinity"
    if adv.min() < 0 or adv.max() > 1:
        return None, "values outside [0, 1]"
    distortion = float((adv - x).abs().max())
    if distortion > eps * tolerance:
        return None, f"L-inf distortion {distortion:.4f} exceeds {eps} x {tolerance}"
    return adv, ""
