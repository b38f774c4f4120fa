"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from icml25.lab.reproduction import Summary
from icml25.social_choice.reproduce import (
    SETTINGS,
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    m: dict[str, float] = {}
    nan = float("nan")
    synthetic = [(c, o) for c, o in results if c["part"] == "synthetic"]
    violations, exact = 0, []
    for s, (beta, mu, gamma, delta) in enumerate(SETTINGS):
        rows = [np.array(o["ratios"]) for c, o in synthetic if c["setting"] == s]
        if not rows:
            continue
        R = np.stack(rows)  # (instances, C)
        beyond = R[:, int(np.floor(2 * beta + delta)) + 1 :] * (gamma * mu)  # d / (1/(gamma mu))
        worst = beyond.max(axis=1) if beyond.shape[1] else np.zeros(len(rows))
        violations += int((worst >= 1.0).sum())
        m[f"setting{s}_max_scaled_ratio_beyond_guarantee"] = float(worst.max())
        m[f"setting{s}_max_ratio_c0"] = float(R[:, 0].max())
        m[f"setting{s}_mean_ratio_c0"] = float(R[:, 0].mean())
        m[f"setting{s}_cbjr_violations_c0"] = float((R[:, 0] >= 1.0).sum())
        costs = [o["slate_cost"] for c, o in synthetic if c["setting"] == s]
        m[f"setting{s}_max_slate_cost"] = float(max(costs))
        m[f"setting{s}_mean_utility"] = float(
            np.mean([o["mean_utility"] for c, o in synthetic if c["setting"] == s])
        )
        if s == 0:
            exact = R[:, 0]
    m["guarantee_violations"] = float(violations) if synthetic else nan
    m["exact_cbjr_violations"] = float((np.asarray(exact) >= 1.0).sum()) if len(exact) else nan

    text = [o for c, o in results if c["part"] == "text"]
    for c, o in results:
        if c["part"] == "text":
            m[f"text_gain[replicate={c['replicate']}]"] = float(o["ours_mean"] - o["kmeans_mean"])
    if text:
        for key in ("mean", "bottom10", "tfidf_mean"):
            gains = [o[f"ours_{key}"] - o[f"kmeans_{key}"] for o in text]
            m[f"text_{key}_gain"] = float(np.mean(gains))
            m[f"text_ours_{key}"] = float(np.mean([o[f"ours_{key}"] for o in text]))
            m[f"text_kmeans_{key}"] = float(np.mean([o[f"kmeans_{key}"] for o in text]))
        m["text_win_fraction_mean"] = float(
            np.mean([o["ours_mean"] > o["kmeans_mean"] for o in text])
        )
        m["text_max_words_over_budget"] = float(
            max(max(o["ours_words"], o["kmeans_words"]) - o["budget"] for o in text)
        )
    else:
        m["text_mean_gain"] = nan

    model = [o for c, o in results if c["part"] == "model"]
    if model:
        m["llm_mean_rating"] = float(np.mean([o["mean_rating"] for o in model]))
        m["llm_assigned_fraction"] = float(np.mean([o["assigned_fraction"] for o in model]))
        m["llm_slate_size"] = float(np.mean([o["slate_size"] for o in model]))
        m["llm_max_words_over_budget"] = float(max(o["slate_words"] - o["budget"] for o in model))
        m["llm_unusable_rate"] = float(
            sum(o["unusable"] for o in model) / max(1, sum(o["ratings_asked"] for o in model))
        )

    figures = {}
    if synthetic:
        figures["deviation_ratios"] = _fig_ratios(synthetic)
    if text:
        figures["text_utilities"] = _fig_text(text)
    return Summary(m, figures)


def _fig_ratios(synthetic) -> Figure:
    fig = Figure(figsize=(10, 3.2))
    axes = fig.subplots(1, len(SETTINGS), sharey=True)
    for s, ax in enumerate(axes):
        beta, mu, gamma, delta = SETTINGS[s]
        rows = [o["ratios"] for c, o in synthetic if c["setting"] == s]
        if not rows:
            continue
        R = np.array(rows)  # (instances, C)
        c = np.arange(R.shape[1])
        ax.plot(c, R.max(axis=0), "o-", ms=3, label="max over instances")
        ax.plot(c, R.mean(axis=0), "s--", ms=3, label="mean")
        ax.axvline(2 * beta + delta + 0.5, color="grey", ls=":")
        ax.axhline(1 / (gamma * mu), color="red", ls=":", label="1/(gamma mu)")
        ax.set_title(f"beta={beta}, mu=gamma={mu}, delta={delta}", fontsize=8)
        ax.set_xlabel("slack c")
    axes[0].set_ylabel("largest deviating group d")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def _fig_text(text) -> Figure:
    fig = Figure(figsize=(7, 3.4))
    axes = fig.subplots(1, 2)
    for ax, key in zip(axes, ("mean", "bottom10"), strict=True):
        ours = [o[f"ours_{key}"] for o in text]
        base = [o[f"kmeans_{key}"] for o in text]
        ax.scatter(base, ours, s=14)
        lo, hi = min(ours + base) - 0.1, max(ours + base) + 0.1
        ax.plot([lo, hi], [lo, hi], color="grey", ls=":")
        ax.set_xlabel(f"k-means medoid, {key} utility")
        ax.set_ylabel(f"our slate, {key} utility")
    fig.tight_layout()
    return fig
