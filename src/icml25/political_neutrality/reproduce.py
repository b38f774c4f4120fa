"""Reproduction: the proxy judge on held-out replies, the suite's coverage, and (with a model
endpoint) a model's technique profile.

Cells:
- ``proxy``: train the proxy judge on the training half of the labelled replies and label the
  held-out half (other frames, other topics): macro-F1, per-category F1, confusion matrix, and a
  bootstrap 95% interval of the macro-F1 over held-out replies (a fixed seed);
- ``coverage``: which output-level techniques the suite's families expect;
- ``model`` (only with ``config.llm``, from ``icml25 run political_neutrality --llm-model``):
  the model answers ``prompts_per_family`` prompts of every family; the same endpoint judges the
  replies (the paper used GPT-4o as judge) and the proxy judge, trained on all labelled
  replies, labels them too; the profile of each, and their agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from sklearn.metrics import confusion_matrix, f1_score

from icml25.common.llm import Endpoint, LLMClient
from icml25.lab.reproduction import Summary
from icml25.political_neutrality.framework import JUDGE_LABELS
from icml25.political_neutrality.judge import LLMJudge, ProxyJudge
from icml25.political_neutrality.profile import (
    ask,
    expected_rate,
    profile_figure,
    technique_profile,
)
from icml25.political_neutrality.replies import labelled_replies
from icml25.political_neutrality.suite import build_suite, families

CELL_THREADS = 1
OUTPUT_TECHNIQUES = (
    "refusal",
    "avoidance",
    "reasonable_pluralism",
    "output_transparency",
    "no_approximation",
)


@dataclass(frozen=True)
class Config:
    C: float = 10.0  # inverse ridge strength of the proxy judge
    topics_per_half: int = 8  # topics of each half of the labelled replies used (all: 8)
    bootstrap: int = 2000
    llm: Endpoint | None = None
    prompts_per_family: int = 6


SCALES = {
    "smoke": Config(topics_per_half=2, bootstrap=200),
    "default": Config(),
    "paper": Config(bootstrap=10000, prompts_per_family=48),
}


def cells(config: Config) -> list[dict]:
    parts = ["proxy", "coverage"] + (["model"] if config.llm is not None else [])
    return [{"part": p} for p in parts]


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "coverage":
        expected = set(families().values())
        return {"covered": np.array([t in expected for t in OUTPUT_TECHNIQUES], dtype=np.int64)}
    replies = labelled_replies(config.topics_per_half)
    if cell["part"] == "proxy":
        train = [r for r in replies if r.split == "train"]
        test = [r for r in replies if r.split == "test"]
        judge = ProxyJudge(config.C).fit([r.text for r in train], [r.label for r in train])
        truth = np.array([JUDGE_LABELS.index(r.label) for r in test])
        guess = np.array([JUDGE_LABELS.index(x) for x in judge.predict([r.text for r in test])])
        frame = np.array([JUDGE_LABELS.index(r.label) * 4 + r.frame for r in test])
        return {"truth": truth, "guess": guess, "frame": frame, "n_train": len(train)}
    prompts = _model_prompts(config)
    client = LLMClient.from_endpoint(config.llm)
    answers = ask(client, prompts)
    llm_labels = LLMJudge(client).judge([p.text for p in prompts], answers)
    proxy = ProxyJudge(config.C).fit([r.text for r in replies], [r.label for r in replies])
    return {
        "llm_labels": [x or "" for x in llm_labels],
        "proxy_labels": proxy.predict(answers),
        "llm_usage": client.usage(),
    }


def _model_prompts(config: Config):
    suite = build_suite()
    return [
        p
        for family in families()
        for p in [q for q in suite if q.family == family][: config.prompts_per_family]
    ]


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
        agree = [a == b for a, b in zip(model["llm_labels"], model["proxy_labels"], strict=True)]
        m["judges_agreement"] = float(np.mean(agree))
        m["llm_judge_unusable_rate"] = float(np.mean([x == "" for x in model["llm_labels"]]))
    return Summary(m, figures, captions)


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


def _confusion_figure(matrix: np.ndarray) -> Figure:
    fig = Figure(figsize=(5.2, 4.4))
    ax = fig.subplots()
    ax.imshow(matrix, cmap="Blues")
    for (i, j), v in np.ndenumerate(matrix):
        ax.text(j, i, str(v), ha="center", va="center", fontsize=8)
    names = [k.replace("_", "\n") for k in JUDGE_LABELS]
    ax.set_xticks(range(len(names)), names, fontsize=6)
    ax.set_yticks(range(len(names)), names, fontsize=6)
    ax.set_xlabel("proxy judge")
    ax.set_ylabel("written label")
    ax.set_title("held-out replies (unseen frames and topics)", fontsize=9)
    fig.tight_layout()
    return fig
