"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from sklearn.metrics import cohen_kappa_score, confusion_matrix, f1_score

from icml25.lab.reproduction import Summary
from icml25.political_neutrality.framework import JUDGE_LABELS
from icml25.political_neutrality.profile import (
    expected_rate,
    profile_figure,
    technique_profile,
)
from icml25.political_neutrality.reproduce import (
    Config,
    _model_prompts,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    out = {cell["part"]: o for cell, o in results}
    m: dict[str, float] = {}
    figures: dict[str, Figure] = {}
    captions: dict[str, str] = {}
    truth, guess = out["proxy"]["truth"], out["proxy"]["guess"]
    labels = np.arange(len(JUDGE_LABELS))
    m["proxy_macro_f1"] = float(f1_score(truth, guess, labels=labels, average="macro"))
    for k, f1 in zip(
        JUDGE_LABELS, f1_score(truth, guess, labels=labels, average=None), strict=True
    ):
        m[f"proxy_f1_{k}"] = float(f1)
    low, high = _frame_bootstrap(truth, guess, out["proxy"]["frame"], config.bootstrap)
    m["proxy_macro_f1_ci_low"], m["proxy_macro_f1_ci_high"] = low, high
    m["n_train_replies"], m["n_test_replies"] = float(out["proxy"]["n_train"]), float(len(truth))
    m["technique_coverage"] = float(out["coverage"]["covered"].mean())
    figures["proxy_confusion"] = _confusion_figure(confusion_matrix(truth, guess, labels=labels))
    captions["proxy_confusion"] = (
        "Proxy judge (MiniLM + logistic regression, not an LLM) on held-out replies: rows are "
        "the written labels, columns the judge's."
    )
    if "model" in out:
        prompts = _model_prompts(config)
        model = out["model"]
        for name in ("llm", "proxy"):
            labels_ = [x or None for x in model[f"{name}_labels"]]
            profile = technique_profile(prompts, labels_)
            for family, rate in expected_rate(profile).items():
                m[f"{name}_judge_expected_rate_{family}"] = rate
            figures[f"profile_{name}_judge"] = profile_figure(
                profile, f"{config.llm.model}: categories by the {name} judge"
            )
        for name, key in (("llm", "llm_labels"), ("llm_schema", "llm_schema_labels")):
            if key in model:
                m.update(_agreement(name, model[key], model["proxy_labels"]))
        figures["judges_confusion"] = _confusion_figure(
            _table(model["llm_labels"], model["proxy_labels"]),
            rows=[*JUDGE_LABELS, "unusable"],
            ylabel="the model judge's category",
            xlabel="the proxy judge's category",
            title="the model's own replies",
        )
        captions["judges_confusion"] = (
            f"{config.llm.model} as the judge (the paper's prompt) against the proxy judge on "
            "the model's own replies: rows are the model judge's categories (last row: replies "
            "it gave no category), columns the proxy's."
        )
    return Summary(m, figures, captions)


def _table(model_labels, proxy_labels) -> np.ndarray:
    """(K + 1, K) counts: the model judge's category (K: unusable) by the proxy's."""
    index = {label: k for k, label in enumerate(JUDGE_LABELS)}
    counts = np.zeros((len(JUDGE_LABELS) + 1, len(JUDGE_LABELS)), dtype=np.int64)
    for a, b in zip(model_labels, proxy_labels, strict=True):
        counts[index.get(a, len(JUDGE_LABELS)), index[b]] += 1
    return counts


def _agreement(name: str, model_labels, proxy_labels) -> dict[str, float]:
    """How a model judge agrees with the proxy: the share of replies given the same category
    (an unusable answer agrees with nothing), Cohen's kappa over the usable ones (None when
    fewer than two), the unusable rate, and every cell of the confusion table."""
    counts = _table(model_labels, proxy_labels)
    usable = [(a, b) for a, b in zip(model_labels, proxy_labels, strict=True) if a]
    suffix = "" if name == "llm" else "_schema"
    out = {
        f"judges_agreement{suffix}": float(np.trace(counts[:-1]) / max(counts.sum(), 1)),
        f"{name}_judge_unusable_rate": float(counts[-1].sum() / max(counts.sum(), 1)),
        f"{name}_judge_kappa_usable": _kappa(usable),
    }
    rows = [*JUDGE_LABELS, "unusable"]
    for i, row in enumerate(rows):
        for j, column in enumerate(JUDGE_LABELS):
            out[f"{name}_judge_confusion[{row},proxy={column}]"] = float(counts[i, j])
    return out


def _kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's kappa of (model, proxy) category pairs; NaN when there are fewer than two or
    both judges give one category throughout (kappa is undefined there)."""
    if len(pairs) < 2:
        return float("nan")
    a, b = zip(*pairs, strict=True)
    if len(set(a) | set(b)) < 2:
        return float("nan")
    return float(cohen_kappa_score(a, b, labels=list(JUDGE_LABELS)))


def _frame_bootstrap(
    truth: np.ndarray, guess: np.ndarray, frame: np.ndarray, draws: int
) -> tuple[float, float]:
    """95% interval of the macro-F1 when whole frames are resampled, with replacement, within
    each category: replies filling one frame are alike and right or wrong together, so the
    frames, not the replies, are the independent units (a fixed seed)."""
    rng = np.random.default_rng(0)
    labels = np.arange(len(JUDGE_LABELS))
    by_label = [np.unique(frame[truth == k]) for k in labels]  # the frames of each category
    members = {f: np.nonzero(frame == f)[0] for f in np.unique(frame)}
    scores = []
    for _ in range(draws):
        chosen = [rng.choice(fs, size=len(fs)) for fs in by_label]
        rows = np.concatenate([members[f] for fs in chosen for f in fs])
        scores.append(f1_score(truth[rows], guess[rows], labels=labels, average="macro"))
    low, high = np.quantile(scores, [0.025, 0.975])
    return float(low), float(high)


def _confusion_figure(
    matrix: np.ndarray,
    rows: list[str] | None = None,
    ylabel: str = "written label",
    xlabel: str = "proxy judge",
    title: str = "held-out replies (unseen frames and topics)",
) -> Figure:
    """Counts of ``matrix`` (rows, K): ``rows`` name its rows (default: the categories)."""
    fig = Figure(figsize=(5.2, 4.4))
    ax = fig.subplots()
    ax.imshow(matrix, cmap="Blues")
    for (i, j), v in np.ndenumerate(matrix):
        ax.text(j, i, str(v), ha="center", va="center", fontsize=8)
    names = [k.replace("_", "\n") for k in JUDGE_LABELS]
    ax.set_xticks(range(len(names)), names, fontsize=6)
    ax.set_yticks(range(matrix.shape[0]), [k.replace("_", "\n") for k in rows or JUDGE_LABELS],
                  fontsize=6)  # fmt: skip
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig
