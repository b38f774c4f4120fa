"""Reproduction: the proxy judge on held-out replies, the suite's coverage, and (with a model
endpoint) a model's technique profile.

Cells:
- ``proxy``: train the proxy judge on the training half of the labelled replies and label the
  held-out half (other frames, other topics): macro-F1, per-category F1, confusion matrix, and a
  bootstrap 95% interval of the macro-F1 over held-out replies (a fixed seed);
- ``coverage``: which output-level techniques the suite's families expect;
- ``model`` (only with ``config.llm``, from ``icml25 run political_neutrality --llm-model``):
  the model answers ``prompts_per_family`` prompts of every family; the same endpoint judges the
  replies (the paper used GPT-4o as judge) twice, with the prompt alone and with the answer's
  JSON schema sent as well (structured output: a server that enforces it decodes only a
  category), and the proxy judge, trained on all labelled replies, labels them too; the
  profile of each, and the model judge's agreement with the proxy (a confusion table, the
  agreement rate and Cohen's kappa).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.llm import Endpoint, LLMClient
from icml25.political_neutrality.framework import JUDGE_LABELS
from icml25.political_neutrality.judge import LLMJudge, ProxyJudge
from icml25.political_neutrality.profile import (
    ask,
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
    llm_families: tuple[str, ...] | None = None  # the families the model answers (None: all)
    llm_max_tokens: int = 400  # of each reply the model writes to a suite prompt


SCALES = {
    "smoke": Config(topics_per_half=2, bootstrap=200, prompts_per_family=1, llm_max_tokens=128),
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
    answers = ask(client, prompts, max_tokens=config.llm_max_tokens)
    questions = [p.text for p in prompts]
    llm_labels = LLMJudge(client).judge(questions, answers)
    schema_labels = LLMJudge(client, structured_output=True).judge(questions, answers)
    proxy = ProxyJudge(config.C).fit([r.text for r in replies], [r.label for r in replies])
    return {
        "llm_labels": [x or "" for x in llm_labels],
        "llm_schema_labels": [x or "" for x in schema_labels],
        "proxy_labels": proxy.predict(answers),
        "llm_usage": client.usage(),
    }


def _model_prompts(config: Config):
    suite = build_suite()
    return [
        p
        for family in families()
        if config.llm_families is None or family in config.llm_families
        for p in [q for q in suite if q.family == family][: config.prompts_per_family]
    ]
