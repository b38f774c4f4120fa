"""DIS-CO's film scores and detection AUC (Duarte et al., ICML 2025, Sec. 3-4).

For a model and a film ``f`` with frames ``1..n_f``, let ``hit_i = 1`` when the model's answer to
frame ``i`` names the film (:mod:`icml25.disco.titles`). The film's score is the fraction of its
frames named,

    s_f = (1 / n_f) sum_i hit_i,

and the floor variant, written ``floor(DIS-CO)`` in the paper, does not count a frame that the
caption of the frame alone already gives away (``c_i = 1`` when the caption-only answer names
the film), keeping it in the denominator as the official code does:

    s_f^floor = (1 / n_f) sum_i hit_i (1 - c_i)  <=  s_f.

(The official code discounts a frame when the image and caption answers are the same string;
with exact strings that differs from ours only where both answers name the film in different
spellings, which :func:`floor_hits` with ``rule="same_answer"`` reproduces for comparison.)
Detection: the ROC AUC of the scores, suspect films (label 1) against clean ones (label 0), the
Mann-Whitney statistic with ties counted one half; its spread by resampling films with
replacement within each class (the paper reports AUCs from such resamples).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from icml25.common.arrays import int_array
from icml25.disco.titles import match_many, normalize_title

FLOOR_RULES = ("caption_hit", "same_answer")


def frame_hits(
    answers: np.ndarray, movie_index: np.ndarray, accepted: tuple[tuple[str, ...], ...]
) -> np.ndarray:
    """(R,) bool: whether each answer names its film (``accepted[movie_index[r]]``).

    answers (R,) strings; movie_index (R,) ints into ``accepted``. Matching is done once per
    distinct (film, answer) pair.

    Parameters
    ----------
    answers : array_like of str, shape (R,)
        The model's answers (titles read from its replies).
    movie_index : array_like of int, shape (R,)
        The film of each answer, an index into ``accepted``.
    accepted : tuple of tuple of str, length F
        The accepted titles of each film.

    Returns
    -------
    numpy.ndarray of bool, shape (R,)
        Whether each answer names its film (:func:`~icml25.disco.titles.match_title`).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of the same length or ``movie_index`` is out of range.
    """
    answers = np.asarray(answers, dtype=object)
    movie_index = np.asarray(movie_index)
    if answers.shape != movie_index.shape or answers.ndim != 1:
        raise ValueError(
            f"answers and movie_index must be 1-D of the same length, got {answers.shape} and "
            f"{movie_index.shape}"
        )
    if movie_index.size and (movie_index.min() < 0 or movie_index.max() >= len(accepted)):
        raise ValueError(f"movie_index must index accepted (0..{len(accepted) - 1})")
    hits = np.zeros(answers.shape, dtype=bool)
    for f in np.unique(movie_index):
        rows = np.flatnonzero(movie_index == f)
        distinct, inverse = np.unique(answers[rows].astype(str), return_inverse=True)
        hits[rows] = np.asarray(match_many(distinct.tolist(), accepted[f]), dtype=bool)[inverse]
    return hits


def floor_hits(
    image_hits: np.ndarray,
    caption_hits: np.ndarray,
    image_answers: np.ndarray | None = None,
    caption_answers: np.ndarray | None = None,
    rule: str = "caption_hit",
) -> np.ndarray:
    """(R,) bool: the image hits that the caption does not give away.

    ``rule="caption_hit"`` (ours): drop a hit whose caption answer names the film too;
    ``rule="same_answer"`` (the official code's): drop a hit whose caption answer is the same
    title as the image answer (compared after :func:`~icml25.disco.titles.normalize_title`;
    needs the answers).

    Parameters
    ----------
    image_hits : array_like of bool, shape (R,)
        Whether the answer given each frame names the film.
    caption_hits : array_like of bool, shape (R,)
        Whether the answer given the frame's caption alone names the film.
    image_answers : array_like of str or None, shape (R,), default None
        The image answers; needed for ``rule="same_answer"``.
    caption_answers : array_like of str or None, shape (R,), default None
        The caption answers; needed for ``rule="same_answer"``.
    rule : {"caption_hit", "same_answer"}, default "caption_hit"
        Which hits are given away by the caption.

    Returns
    -------
    numpy.ndarray of bool, shape (R,)
        The image hits that are kept.

    Raises
    ------
    ValueError
        If the hit arrays differ in shape, ``rule`` is unknown, or ``"same_answer"`` lacks
        the answers.
    """
    image_hits = np.asarray(image_hits, dtype=bool)
    caption_hits = np.asarray(caption_hits, dtype=bool)
    if image_hits.shape != caption_hits.shape:
        raise ValueError(
            f"image_hits and caption_hits must have the same shape, got {image_hits.shape} and "
            f"{caption_hits.shape}"
        )
    if rule == "caption_hit":
        return image_hits & ~caption_hits
    if rule == "same_answer":
        if image_answers is None or caption_answers is None:
            raise ValueError('rule="same_answer" needs image_answers and caption_answers')
        same = np.array(
            [
                normalize_title(str(a)) == normalize_title(str(b))
                for a, b in zip(image_answers, caption_answers, strict=True)
            ],
            dtype=bool,
        )
        return image_hits & ~same
    raise ValueError(f"rule must be one of {FLOOR_RULES}, got {rule!r}")


def film_scores(hits: np.ndarray, movie_index: np.ndarray, n_films: int) -> np.ndarray:
    """(F,) the fraction of each film's frames that are hits (NaN for a film with no frames).

    hits (R,) bool; movie_index (R,) ints in ``0..n_films - 1``.

    Parameters
    ----------
    hits : array_like of bool, shape (R,)
        Whether each frame's answer names its film (0/1 or False/True).
    movie_index : array_like of int, shape (R,)
        The film of each frame, in ``0..n_films - 1``.
    n_films : int
        The number of films F, ``>= 1``.

    Returns
    -------
    numpy.ndarray of float, shape (F,)
        The score ``s_f`` of each film in [0, 1]; NaN for a film with no frames.

    Raises
    ------
    ValueError
        If ``n_films`` is not a positive integer, ``movie_index`` is out of range, the shapes
        differ or ``hits`` holds values other than 0 and 1.
    """
    hits = np.asarray(hits, dtype=float)
    if not isinstance(n_films, int | np.integer) or n_films < 1:
        raise ValueError(f"n_films must be a positive integer, got {n_films!r}")
    movie_index = int_array("movie_index", movie_index, low=0, high=n_films - 1, nonempty=False)
    if hits.shape != movie_index.shape:
        raise ValueError(
            f"hits and movie_index must have the same shape, got {hits.shape} and "
            f"{movie_index.shape}"
        )
    if not np.isin(hits, (0, 1)).all():
        raise ValueError("hits must hold 0 or 1 (False or True) for each frame")
    counts = np.bincount(movie_index, minlength=n_films).astype(float)  # (F,)
    named = np.bincount(movie_index, weights=hits, minlength=n_films)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, named / counts, np.nan)


def detection_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC of ``scores`` (F,) for ``labels`` (F,) in {0, 1}: suspect (1) against clean (0).

    Parameters
    ----------
    scores : array_like of float, shape (F,)
        The films' scores, finite.
    labels : array_like of int, shape (F,)
        1 for a suspect film, 0 for a clean one; both classes must be present.

    Returns
    -------
    float
        The ROC AUC in [0, 1]: the chance that a suspect film scores above a clean one, ties
        counting one half (0.5 is chance).

    Raises
    ------
    ValueError
        If the arrays are not 1-D of the same length, ``labels`` lacks a class or holds other
        values, or a score is not finite.
    """
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels)
    if scores.shape != labels.shape or scores.ndim != 1:
        raise ValueError(
            f"scores and labels must be 1-D of the same length, got {scores.shape} and "
            f"{labels.shape}"
        )
    if not np.isin(labels, (0, 1)).all() or len(np.unique(labels)) != 2:
        raise ValueError("labels must hold both classes, 0 (clean) and 1 (suspect), and no other")
    if not np.isfinite(scores).all():
        raise ValueError("scores must be finite (a film without frames has no score)")
    return float(roc_auc_score(labels, scores))


def bootstrap_auc(
    scores: np.ndarray,
    labels: np.ndarray,
    n_resamples: int,
    rng: np.random.Generator,
    chunk: int = 512,
) -> np.ndarray:
    """AUCs of resamples of the films, with replacement within each class.

    scores (F,) or (K, F): with K rows (e.g. image and caption scores of the same films) every
    row is resampled with the same draws, so differences between rows are paired. Returns
    (n_resamples,) or (n_resamples, K). Vectorised through ranks: for each resample,
    ``AUC = (R_1 - n_1 (n_1 + 1) / 2) / (n_1 n_0)`` with ``R_1`` the sum of the average ranks of
    the suspect films in the resample (ties share their rank, i.e. count one half), computed
    for a chunk of resamples at once, (b, K, n_1 + n_0).

    Parameters
    ----------
    scores : array_like of float, shape (F,) or (K, F)
        The films' scores, finite; K rows are resampled together.
    labels : array_like of int, shape (F,)
        1 for a suspect film, 0 for a clean one; both classes must be present.
    n_resamples : int
        The number of resamples, ``>= 1``.
    rng : numpy.random.Generator
        The source of the resampling draws.
    chunk : int, default 512
        The number of resamples ranked at once (memory only; the result does not depend on
        it).

    Returns
    -------
    numpy.ndarray of float, shape (n_resamples,) or (n_resamples, K)
        The AUC of each resample (per row of ``scores`` when 2-D).

    Raises
    ------
    ValueError
        If the scores or labels are invalid (as in :func:`detection_auc`) or ``n_resamples``
        is not a positive integer.
    """
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels)
    rows = np.atleast_2d(scores)  # (K, F)
    for row in rows:
        detection_auc(row, labels)  # checks the arguments
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    pos, neg = rows[:, labels == 1], rows[:, labels == 0]  # (K, n1), (K, n0)
    n1, n0 = pos.shape[1], neg.shape[1]
    i_pos = rng.integers(0, n1, size=(n_resamples, n1))  # (B, n1)
    i_neg = rng.integers(0, n0, size=(n_resamples, n0))  # (B, n0)
    out = np.empty((n_resamples, rows.shape[0]))
    for start in range(0, n_resamples, chunk):
        both = np.concatenate(
            [pos[:, i_pos[start : start + chunk]], neg[:, i_neg[start : start + chunk]]], axis=2
        ).transpose(1, 0, 2)  # (b, K, n1 + n0)
        ranks = rankdata(both, axis=-1)  # average ranks, 1-based
        out[start : start + chunk] = (ranks[..., :n1].sum(-1) - n1 * (n1 + 1) / 2) / (n1 * n0)
    return out if scores.ndim == 2 else out[:, 0]
