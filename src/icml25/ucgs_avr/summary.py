"""The reduce side of the reproduction: ``summarize`` turns the outputs of the cells of
``reproduce.py`` into the measurements the claims are judged on, and draws the figures."""

from __future__ import annotations

import numpy as np

from icml25.lab.reproduction import Summary
from icml25.ucgs_avr.figures import (
    fig_accuracy_by_format,
    fig_accuracy_by_rule,
    fig_examples,
    fig_losses,
)
from icml25.ucgs_avr.reproduce import (
    Config,
)


def summarize(config: Config, results: list[tuple[dict, dict]]) -> Summary:
    by = {(c["seed_index"], c["model"]): o for c, o in results}
    seeds = sorted({c["seed_index"] for c, _ in results})
    m: dict[str, float] = {}
    acc = {}  # (model, format) -> list over seeds
    for s in seeds:
        g, d, a = by[(s, "generative")], by[(s, "discriminative")], by[(s, "answer_only")]
        row = {
            ("generative", "matrix"): g["correct_matrix"].mean(),
            ("generative", "held-out rule"): g["correct_novel"].mean(),
            ("generative", "odd-one-out"): g["correct_odd"].mean(),
            ("generative", "analogy"): g["correct_analogy"].mean(),
            ("discriminative", "matrix"): d["correct_matrix"].mean(),
            ("discriminative", "held-out rule"): d["correct_novel"].mean(),
            ("answer-only", "I-RAVEN sets"): a["correct_iraven"].mean(),
            ("answer-only", "RAVEN sets"): a["correct_raven"].mean(),
        }
        for key, value in row.items():
            acc.setdefault(key, []).append(float(value))
        drop_g = row[("generative", "matrix")] - row[("generative", "held-out rule")]
        drop_d = row[("discriminative", "matrix")] - row[("discriminative", "held-out rule")]
        m[f"a_matrix_accuracy_seed{s}"] = float(row[("generative", "matrix")])
        m[f"b_odd_one_out_accuracy_seed{s}"] = float(row[("generative", "odd-one-out")])
        m[f"b_analogy_accuracy_seed{s}"] = float(row[("generative", "analogy")])
        m[f"c_answer_only_accuracy_seed{s}"] = float(row[("answer-only", "I-RAVEN sets")])
        m[f"c_answer_only_raven_accuracy_seed{s}"] = float(row[("answer-only", "RAVEN sets")])
        m[f"d_generative_drop_seed{s}"] = float(drop_g)
        m[f"d_discriminative_drop_seed{s}"] = float(drop_d)
        m[f"d_drop_difference_seed{s}"] = float(drop_g - drop_d)
        m[f"generative_meanprob_matrix_accuracy_seed{s}"] = g["meanprob_matrix"]
        m[f"generative_meanprob_odd_one_out_accuracy_seed{s}"] = g["meanprob_odd"]
        m[f"generative_meanprob_analogy_accuracy_seed{s}"] = g["meanprob_analogy"]
        m[f"generative_final_loss_seed{s}"] = float(g["losses"][-100:].mean())
    m["a_matrix_accuracy_min"] = min(acc[("generative", "matrix")])
    m["b_odd_one_out_accuracy_min"] = min(acc[("generative", "odd-one-out")])
    m["b_analogy_accuracy_min"] = min(acc[("generative", "analogy")])
    m["c_answer_only_gap_max"] = max(abs(v - 1 / 8) for v in acc[("answer-only", "I-RAVEN sets")])
    m["c_answer_only_raven_accuracy_min"] = min(acc[("answer-only", "RAVEN sets")])
    m["d_drop_difference_max"] = max(m[f"d_drop_difference_seed{s}"] for s in seeds)
    for (model, fmt), values in acc.items():
        m[f"mean_{model}_{fmt}_accuracy".replace(" ", "_").replace("-", "_")] = float(
            np.mean(values)
        )
    if config.timing:
        for model in ("generative", "discriminative"):
            m[f"{model}_train_seconds"] = float(
                np.mean([by[(s, model)]["train_seconds"] for s in seeds])
            )
        m["generative_matrix_puzzles_per_second"] = float(
            np.mean([by[(s, "generative")]["matrix_puzzles_per_second"] for s in seeds])
        )
    gens = [by[(s, "generative")] for s in seeds]
    discs = [by[(s, "discriminative")] for s in seeds]
    figures = {
        "example_puzzles": fig_examples(gens[0]["examples"]),
        "accuracy_by_format": fig_accuracy_by_format(acc),
        "accuracy_by_rule": fig_accuracy_by_rule(gens, discs),
        "training_loss": fig_losses(gens, discs),
    }
    captions = {
        "example_puzzles": "Generated puzzles with the generative solver's predictability "
        "(log-likelihood of each candidate or panel); green: the right answer.",
        "accuracy_by_format": "Accuracy by format and model (bars: mean over seeds, ticks: "
        "each seed); dashed: chance.",
        "accuracy_by_rule": "Accuracy on test matrices by the rule of each attribute (pooled "
        "over seeds); the colour-progression cell is the held-out rule.",
        "training_loss": "Training losses (moving average over 100 steps), every seed.",
    }
    return Summary(m, figures, captions)
