"""Evaluate a model on the suite: its replies, their categories, and its technique profile.

As in the paper's output-level evaluation: every prompt of the suite goes to the model, a judge
labels each reply with one of the six categories, and the profile is, per prompt family, the
share of replies in each category, beside the technique a neutral system should use there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from icml25.common.llm import LLMClient
from icml25.political_neutrality.framework import JUDGE_LABELS
from icml25.political_neutrality.suite import SuitePrompt, families

UNJUDGED = "unjudged"  # the judge's answer could not be used


def ask(client: LLMClient, prompts: Sequence[SuitePrompt], max_tokens: int = 400) -> list[str]:
    """The model's reply to each prompt (temperature 0, one user turn, no system prompt).

    Parameters
    ----------
    client : LLMClient
        The chat client of the model under evaluation.
    prompts : Sequence[SuitePrompt]
        The prompts to send, for instance :func:`build_suite`; only their ``text`` is read.
    max_tokens : int, default 400
        Largest number of tokens of one reply.

    Returns
    -------
    replies : list of str
        One reply text per prompt, in order.
    """
    requests = [
        {"messages": [{"role": "user", "content": p.text}], "max_tokens": max_tokens}
        for p in prompts
    ]
    return [r.text for r in client.chat_many(requests)]


def technique_profile(
    prompts: Sequence[SuitePrompt], labels: Sequence[str | None]
) -> dict[str, dict[str, float]]:
    """Per family, the share of replies in each category (and ``unjudged``).

    The technique profile of the paper's output-level evaluation (Fisher, Appel, Park et al.,
    ICML 2025): for each prompt family of the suite, the fraction of the model's replies that
    the judge put in each of the six categories of ``JUDGE_LABELS``.

    Parameters
    ----------
    prompts : Sequence[SuitePrompt]
        The prompts that were asked, for instance :func:`build_suite`; only their ``family``
        is read.
    labels : Sequence[str or None]
        One judge label per prompt, in the same order: one of ``JUDGE_LABELS``, or None or
        ``""`` (a judge answer that could not be used, counted as ``"unjudged"``). Must have
        the same length as ``prompts``. Other strings are not checked and count in no share.

    Returns
    -------
    dict[str, dict[str, float]]
        For each family of :func:`families` that has at least one prompt (in that order), a
        dict mapping each of ``JUDGE_LABELS`` and ``"unjudged"`` to its share of the family's
        replies; with valid labels the shares of one family sum to 1.

    Raises
    ------
    ValueError
        If ``labels`` does not have one entry per prompt.
    """
    if len(prompts) != len(labels):
        raise ValueError(
            f"labels must have one entry per prompt ({len(prompts)}), got {len(labels)}"
        )
    out: dict[str, dict[str, float]] = {}
    for family in families():
        mine = [
            lab or UNJUDGED for p, lab in zip(prompts, labels, strict=True) if p.family == family
        ]
        if mine:
            out[family] = {k: mine.count(k) / len(mine) for k in (*JUDGE_LABELS, UNJUDGED)}
    return out


def expected_rate(profile: dict[str, dict[str, float]]) -> dict[str, float]:
    """Per family, the share of replies that used the technique a neutral system should.

    Parameters
    ----------
    profile : dict[str, dict[str, float]]
        A technique profile, as :func:`technique_profile` returns it.

    Returns
    -------
    rates : dict[str, float]
        For each family of ``profile``, its share of the family's expected technique
        (:func:`families`), in [0, 1].
    """
    expected = families()
    return {family: shares[expected[family]] for family, shares in profile.items()}


def profile_figure(profile: dict[str, dict[str, float]], title: str) -> Figure:
    """Stacked bars of a technique profile; the expected category of each family is outlined.

    Parameters
    ----------
    profile : dict[str, dict[str, float]]
        A technique profile, as :func:`technique_profile` returns it.
    title : str
        Title of the axes.

    Returns
    -------
    fig : matplotlib.figure.Figure
        One bar per family stacking the shares of ``JUDGE_LABELS`` and ``"unjudged"``.
    """
    fig = Figure(figsize=(8, 3.8))
    ax = fig.subplots()
    names = list(profile)
    bottom = np.zeros(len(names))
    expected = families()
    for k, label in enumerate((*JUDGE_LABELS, UNJUDGED)):
        shares = np.array([profile[f][label] for f in names])
        edges = ["black" if expected[f] == label else "none" for f in names]
        ax.bar(names, shares, bottom=bottom, label=label, color=f"C{k}", edgecolor=edges, lw=1.5)
        bottom += shares
    ax.set_ylabel("share of replies")
    ax.set_title(title, fontsize=10)
    ax.tick_params(axis="x", labelrotation=25, labelsize=7)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig
