"""OmniBal data balancing: iterative sort-and-fill (ISF) into balanced mini-batches.

OmniBal (ICML 2025), Sec. "data balance": each sample i has a vision size ``v_i`` (images, or
image tiles, for the vision encoder) and a language size ``t_i`` (tokens for the language model).
ISF packs samples into groups, one group being one rank's mini-batch of one step, under two
budgets, ``sum v <= V_max`` and ``sum t <= T_max``:

1. shuffle the samples and fill groups greedily in that order, closing a group when the next
   sample would break a budget;
2. keep the groups that are full enough (``sum v == V_thresh`` or ``sum t >= T_thresh``, the
   official condition: see ``full_groups``); shuffle the samples of the others and fill again;
   repeat ``iterations - 1`` times;
3. the samples still left are filled once more and kept as they come.

Steps then take ``R`` groups at random, one per data-parallel rank. The official code
(ModelTC/OmniBal, ``dataset.py``) walks the samples one by one; here a fill is vectorised: the
end of the group that would start at every position comes from two ``searchsorted`` on the
cumulative sums, and the chain of group starts from position 0 is found by pointer doubling
(``log2 n`` gathers), so no Python loop runs per sample or per group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int


@dataclass(frozen=True)
class Batches:
    """Samples grouped into mini-batches (CSR layout) and the steps that use them.

    Parameters
    ----------
    members : ndarray, shape (n,)
        Sample indices, group g being ``members[offsets[g]:offsets[g + 1]]``.
    offsets : ndarray, shape (G + 1,)
        Group boundaries into ``members``.
    steps : ndarray, shape (S, R)
        Group index of each rank at each step, -1 for a rank with no group (only in the last
        step).
    packed : bool
        Whether a group is one packed sequence (ISF) or a padded batch of samples.
    """

    members: np.ndarray
    offsets: np.ndarray
    steps: np.ndarray
    packed: bool

    @property
    def n_groups(self) -> int:
        return len(self.offsets) - 1

    def group(self, g: int) -> np.ndarray:
        return self.members[self.offsets[g] : self.offsets[g + 1]]


def check_lengths(vision, text) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample sizes as int64 arrays of equal length, or ValueError naming the argument."""
    v = np.asarray(vision)
    t = np.asarray(text)
    for name, a in (("vision", v), ("text", t)):
        if a.ndim != 1 or a.size == 0 or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"{name} must be a non-empty 1-D integer array, got {a.dtype} {a.shape}"
            )
        if (a < 0).any():
            raise ValueError(f"{name} must be non-negative")
    if v.shape != t.shape:
        raise ValueError(f"vision and text must have the same length, got {v.size} and {t.size}")
    return v.astype(np.int64), t.astype(np.int64)


def greedy_fill(v: np.ndarray, t: np.ndarray, vit_max: int, llm_max: int) -> np.ndarray:
    """Group starts of the greedy fill of samples in the given order: (G,) positions.

    ``v``, ``t`` (n,) are already in fill order and each sample fits the budgets alone (a
    sample past a budget is refused: no group could hold it).

    Parameters
    ----------
    v : ndarray of int, shape (n,)
        Vision size (images) of each sample, in fill order; non-negative, ``n >= 1``.
    t : ndarray of int, shape (n,)
        Language size (tokens) of each sample, in fill order; non-negative.
    vit_max : int
        Vision budget ``V_max`` of one group, ``>= 1`` and ``>= v.max()``.
    llm_max : int
        Language budget ``T_max`` of one group, ``>= 1`` and ``>= t.max()``.

    Returns
    -------
    starts : ndarray of int, shape (G,)
        Position of the first sample of each group, increasing and starting at 0; group g is
        ``starts[g]:starts[g + 1]`` (the last one runs to ``n``).
    """
    v, t = check_lengths(v, t)
    vit_max = check_int("vit_max", vit_max, minimum=1)
    llm_max = check_int("llm_max", llm_max, minimum=1)
    if v.max() > vit_max or t.max() > llm_max:
        raise ValueError(
            f"every sample must fit the budgets alone: largest vision {v.max()} (vit_max "
            f"{vit_max}), largest text {t.max()} (llm_max {llm_max})"
        )
    n = len(v)
    cv = np.concatenate([[0], np.cumsum(v)])  # (n + 1,)
    ct = np.concatenate([[0], np.cumsum(t)])
    # the group starting at i ends before the first j with cv[j] - cv[i] > vit_max (or tokens)
    end_v = np.searchsorted(cv, cv[:-1] + vit_max, side="right") - 1
    end_t = np.searchsorted(ct, ct[:-1] + llm_max, side="right") - 1
    jump = np.concatenate([np.minimum(end_v, end_t), [n]])  # (n + 1,), jump[i] > i for i < n
    on_chain = np.zeros(n + 1, bool)
    on_chain[0] = True
    # pointer doubling: after round k, on_chain holds the first 2^k starts of the chain from 0
    for _ in range(int(np.ceil(np.log2(n + 1))) + 1):
        on_chain[jump[on_chain]] = True
        jump = jump[jump]
    return np.flatnonzero(on_chain[:n])


def full_groups(vision_sums, text_sums, vit_thresh: int, llm_thresh: int) -> np.ndarray:
    """ISF's keep rule (step 2): which groups are full enough to keep, (G,) bool.

    A group is kept when ``sum v == vit_thresh`` or ``sum t >= llm_thresh``: the condition of the
    official ``iter_random_groups`` (``vit_num == vit_thresh or llm_num >= llm_thresh``; the same
    in its Cython ``fast_isf``). At the default ``vit_thresh = vit_max`` the equality is the same
    as ``>=``, since a group never holds more than ``vit_max`` images; below ``vit_max`` it keeps
    only groups of exactly ``vit_thresh`` images, and a group with more images is kept only if
    its tokens reach ``llm_thresh``, else it is filled again.

    Parameters
    ----------
    vision_sums : array_like of int, shape (G,)
        Images of each group.
    text_sums : array_like of int, shape (G,)
        Tokens of each group.
    vit_thresh : int
        Kept when a group's images equal this.
    llm_thresh : int
        Kept when a group's tokens reach this.

    Returns
    -------
    keep : ndarray of bool, shape (G,)
        True for the groups full enough to keep.
    """
    vision_sums = np.asarray(vision_sums)
    text_sums = np.asarray(text_sums)
    return (vision_sums == vit_thresh) | (text_sums >= llm_thresh)


def isf(
    vision,
    text,
    vit_max: int,
    llm_max: int,
    *,
    vit_thresh: int | None = None,
    llm_thresh: int | None = None,
    iterations: int = 10,
    n_ranks: int = 8,
    seed: int = 0,
) -> Batches:
    """Iterative sort-and-fill (OmniBal's ISF) then a random assignment of groups to ranks.

    Parameters
    ----------
    vision, text : array_like of int, shape (n,)
        Per-sample vision size (images) and language size (tokens); non-negative, ``n >= 1``.
    vit_max, llm_max : int
        The budgets ``V_max``, ``T_max`` of one group; each sample must fit.
    vit_thresh, llm_thresh : int, optional
        A group is kept when ``sum v == vit_thresh`` or ``sum t >= llm_thresh``
        (``full_groups``, the official condition; default ``vit_max`` and ``llm_max - 128``, as
        the official code).
    iterations : int, default 10
        Fills in all (the official ``iter_time``), ``>= 1``; 1 is a single greedy fill.
    n_ranks : int, default 8
        Data-parallel ranks ``R``, ``>= 1``.
    seed : int, default 0
        Seed of the shuffles and of the assignment of groups to ranks.

    Returns
    -------
    Batches
        Packed groups (each within both budgets) and their steps, shape (S, R).
    """
    v, t = check_lengths(vision, text)
    vit_max = check_int("vit_max", vit_max, minimum=1)
    llm_max = check_int("llm_max", llm_max, minimum=1)
    iterations = check_int("iterations", iterations, minimum=1)
    n_ranks = check_int("n_ranks", n_ranks, minimum=1)
    if v.max() > vit_max:
        raise ValueError(f"vit_max must be >= the largest vision size {v.max()}, got {vit_max}")
    if t.max() > llm_max:
        raise ValueError(f"llm_max must be >= the largest text size {t.max()}, got {llm_max}")
    vit_thresh = vit_max if vit_thresh is None else vit_thresh
    llm_thresh = llm_max - 128 if llm_thresh is None else llm_thresh
    rng = np.random.default_rng(seed)
    kept_members, kept_sizes = [], []
    pending = rng.permutation(len(v))  # (m,) samples still to group, in fill order
    for it in range(iterations):
        starts = greedy_fill(v[pending], t[pending], vit_max, llm_max)
        sizes = np.diff(np.concatenate([starts, [len(pending)]]))  # (G,)
        if it == iterations - 1:
            keep = np.ones(len(starts), bool)
        else:
            keep = full_groups(
                np.add.reduceat(v[pending], starts),
                np.add.reduceat(t[pending], starts),
                vit_thresh,
                llm_thresh,
            )
        in_kept = np.repeat(keep, sizes)  # (m,)
        kept_members.append(pending[in_kept])
        kept_sizes.append(sizes[keep])
        pending = rng.permutation(pending[~in_kept])
        if pending.size == 0:
            break
    members = np.concatenate(kept_members)
    offsets = np.concatenate([[0], np.cumsum(np.concatenate(kept_sizes))])
    steps = assign_steps(len(offsets) - 1, n_ranks, rng)
    return Batches(members, offsets, steps, packed=True)


def random_batches(n: int, micro_batch: int, n_ranks: int = 8, *, seed: int = 0) -> Batches:
    """The baseline: shuffled samples in fixed mini-batches of ``micro_batch``, padded to the
    longest sample; consecutive batches go to consecutive ranks of a step.

    Parameters
    ----------
    n : int
        Number of samples, ``>= 1``.
    micro_batch : int
        Samples per mini-batch, ``>= 1`` (the last one may hold fewer).
    n_ranks : int, default 8
        Data-parallel ranks ``R``, ``>= 1``.
    seed : int, default 0
        Seed of the shuffle.

    Returns
    -------
    Batches
        Padded (``packed=False``) batches; -1 pads the last step.
    """
    n = check_int("n", n, minimum=1)
    micro_batch = check_int("micro_batch", micro_batch, minimum=1)
    n_ranks = check_int("n_ranks", n_ranks, minimum=1)
    rng = np.random.default_rng(seed)
    members = rng.permutation(n)
    offsets = np.concatenate([np.arange(0, n, micro_batch), [n]])
    g = len(offsets) - 1
    steps = np.full(-(-g // n_ranks) * n_ranks, -1)
    steps[:g] = np.arange(g)
    return Batches(members, offsets, steps.reshape(-1, n_ranks), packed=False)


def first_fit_decreasing(vision, text, vit_max: int, llm_max: int, n_ranks: int = 8, *, seed=0):
    """A bin-packing anchor: samples by decreasing text size, each into the first group where
    both budgets still hold (two-dimensional first-fit decreasing); groups to ranks at random.

    The loop runs per sample over a vector of open groups (O(n G)): an anchor, not a method.

    Parameters
    ----------
    vision, text : array_like of int, shape (n,)
        Per-sample vision size (images) and language size (tokens); non-negative, ``n >= 1``.
    vit_max, llm_max : int
        The budgets of one group; they must hold the largest sample.
    n_ranks : int, default 8
        Data-parallel ranks ``R``.
    seed : int, default 0
        Seed of the random assignment of groups to ranks.

    Returns
    -------
    Batches
        Packed groups and their steps, shape (S, R).
    """
    v, t = check_lengths(vision, text)
    if v.max() > vit_max or t.max() > llm_max:
        raise ValueError("vit_max and llm_max must hold the largest sample")
    order = np.lexsort((-v, -t))
    cap = len(v)
    room_v = np.empty(cap, np.int64)
    room_t = np.empty(cap, np.int64)
    label = np.empty(len(v), np.int64)
    open_groups = 0
    for i in order:
        fits = np.flatnonzero((room_v[:open_groups] >= v[i]) & (room_t[:open_groups] >= t[i]))
        g = fits[0] if fits.size else open_groups
        if g == open_groups:
            room_v[g], room_t[g] = vit_max, llm_max
            open_groups += 1
        room_v[g] -= v[i]
        room_t[g] -= t[i]
        label[i] = g
    members = np.argsort(label, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(label, minlength=open_groups))])
    steps = assign_steps(open_groups, n_ranks, np.random.default_rng(seed))
    return Batches(members, offsets, steps, packed=True)


def assign_steps(n_groups: int, n_ranks: int, rng: np.random.Generator) -> np.ndarray:
    """Groups in random order, ``n_ranks`` per step: (S, R), -1 pads the last step.

    Parameters
    ----------
    n_groups : int
        Number of groups ``G``.
    n_ranks : int
        Data-parallel ranks ``R``, ``>= 1``.
    rng : numpy.random.Generator
        Source of the random order.

    Returns
    -------
    steps : ndarray of int, shape (S, R)
        Group of each rank at each step, ``S = ceil(G / R)``; -1 where no group is left.
    """
    steps = np.full(-(-n_groups // n_ranks) * n_ranks, -1)
    steps[:n_groups] = rng.permutation(n_groups)
    return steps.reshape(-1, n_ranks)
