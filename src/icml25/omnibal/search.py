"""OmniBal's search over the ISF arguments (official ``search_arguments``).

The budgets move together from a start that fits the data's mean tokens per image: with
``a = 16 floor((floor(mean t / mean v) + 1) / 16)`` tokens per image and ``T_0 = 4096``,
candidate k is ``V_max = floor(T_0 / a) + k`` images and ``T_max = T_0 + k a`` tokens. Each
candidate (and each pair of thresholds) is filled by ISF; among those whose mean samples per
group lies in ``[micro_batch, micro_batch + 1]`` (the batch size the model was tuned for), the
search returns the one with the least ``pad ratio + vision imbalance + language imbalance``.
The official code scans k one way until the mean batch leaves the window and tries one
threshold pair (``T_max - 128``, ``V_max``); we evaluate a fixed window of k and several
threshold pairs, so the result does not depend on the scan's direction.
"""

from __future__ import annotations

from dataclasses import dataclass

from icml25.common.validate import check_int
from icml25.omnibal.balance import check_lengths, isf
from icml25.omnibal.metrics import balance_metrics


@dataclass(frozen=True)
class IsfArguments:
    """One candidate of the ISF argument search and its score.

    Parameters
    ----------
    vit_max : int
        Vision budget ``V_max`` (images per group).
    llm_max : int
        Language budget ``T_max`` (tokens per group).
    vit_thresh : int
        A group is kept when its images equal this.
    llm_thresh : int
        A group is kept when its tokens reach this.
    objective : float
        Fixed-length pad ratio + vision imbalance + language imbalance (lower is better).
    mean_batch : float
        Mean samples per group of the ISF fill with these arguments.
    """

    vit_max: int
    llm_max: int
    vit_thresh: int
    llm_thresh: int
    objective: float
    mean_batch: float


def search_arguments(
    vision,
    text,
    *,
    micro_batch: int = 4,
    n_ranks: int = 8,
    iterations: int = 10,
    window: int = 3,
    llm_slack: tuple[int, ...] = (64, 128, 256),
    vit_slack: tuple[int, ...] = (0, 1),
    base_tokens: int = 4096,
    seed: int = 0,
) -> tuple[IsfArguments, list[IsfArguments]]:
    """The best ISF arguments and every candidate evaluated (objective = fixed-length pad ratio
    + vision imbalance + language imbalance).

    Parameters
    ----------
    vision, text : array_like of int, shape (n,)
        Per-sample vision size (images) and language size (tokens); non-negative, ``n >= 1``.
    micro_batch : int, default 4
        Target samples per group, ``>= 1``: candidates whose mean batch lies in
        ``[micro_batch, micro_batch + 1]`` are preferred.
    n_ranks : int, default 8
        Data-parallel ranks ``R`` of each ISF fill.
    iterations : int, default 10
        ISF fills per candidate.
    window : int, default 3
        Candidates ``k`` run over ``-window .. window``.
    llm_slack : tuple of int, default (64, 128, 256)
        Candidate ``T_max - llm_thresh`` values.
    vit_slack : tuple of int, default (0, 1)
        Candidate ``V_max - vit_thresh`` values.
    base_tokens : int, default 4096
        The start ``T_0`` of the token budget.
    seed : int, default 0
        Seed of every ISF fill.

    Returns
    -------
    best : IsfArguments
        The candidate of least objective among those in the mean-batch window (or, if none is,
        the one whose mean batch is closest to ``micro_batch + 0.5``).
    tried : list of IsfArguments
        Every candidate evaluated; candidates whose budgets cannot hold the largest sample are
        skipped (ValueError if all are).
    """
    v, t = check_lengths(vision, text)
    micro_batch = check_int("micro_batch", micro_batch, minimum=1)
    per_image = max(16, int((t.mean() // max(v.mean(), 1) + 1) // 16) * 16)
    vit0 = base_tokens // per_image
    tried = []
    for k in range(-window, window + 1):
        vit_max, llm_max = vit0 + k, base_tokens + k * per_image
        if vit_max < v.max() or llm_max < t.max():
            continue
        for ds in llm_slack:
            for dv in vit_slack:
                b = isf(
                    v,
                    t,
                    vit_max,
                    llm_max,
                    vit_thresh=vit_max - dv,
                    llm_thresh=llm_max - ds,
                    iterations=iterations,
                    n_ranks=n_ranks,
                    seed=seed,
                )
                m = balance_metrics(b, v, t, llm_max=llm_max)
                score = m["fixed_length_pad_ratio"] + m["vision_imbalance"]
                score += m["language_imbalance"]
                tried.append(
                    IsfArguments(
                        vit_max, llm_max, vit_max - dv, llm_max - ds, score, m["mean_batch"]
                    )
                )
    if not tried:
        raise ValueError("no candidate budget holds the largest sample: raise base_tokens")
    ok = [a for a in tried if micro_batch <= a.mean_batch <= micro_batch + 1]
    pool = ok or sorted(tried, key=lambda a: abs(a.mean_batch - micro_batch - 0.5))[:1]
    return min(pool, key=lambda a: a.objective), tried
