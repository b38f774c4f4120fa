"""Reproduction: generative social choice with approximate queries and a budget (Boehmer, Fish &
Procaccia, ICML 2025).

Cells:

- ``synthetic``: the paper's synthetic experiment (official ``synthetic_experiments``): 5 issues
  x 5 opinions, ``n = 60`` agents with uniform random opinions, ``B = 15``, cost = number of
  issues, levels ``r = 10`` down to 0, costs 5 down to 1; one random instance per cell, in each
  of the four error settings ``(beta, mu, gamma, delta)`` in ``{(0, 1, 1, 0), (1, .85, .85, 1),
  (2, .7, .7, 2), (3, .55, .55, 3)}``. The slate is checked over all 7,775 statements: the
  largest deviating group ratio ``d`` at every slack ``c = 0..10`` (unassigned agents hold the
  empty statement, utility 0, as in the official code);
- ``text``: opinion texts of ``n = 60`` agents from the template model
  (:mod:`icml25.social_choice.opinions`), embedding ``Disc`` + extractive ``Gen``
  (MiniLM at default scale, TF-IDF at smoke), word budget ``1.5 n``; the slate against the
  k-means medoid baseline under the template's ground-truth utility (an agent's utility for a
  slate: her best statement in it);
- ``model`` (only with ``config.llm``, from ``icml25 run social_choice --llm-model ...``): the
  democratic process with ``Disc`` and ``Gen`` asked of the model (:class:`HTTPOracles`) on a
  smaller template instance (``llm_n`` agents, word budget ``1.5 n``, levels 6 down to 1, caps
  ``llm_caps`` words). Generated statements have no ground-truth utility, so the cell reports
  what the model said: the slate, its size and words, each agent's rating of her assigned
  statement by the model's own ``Disc``, and the share of answers without a rating (counted
  as 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.llm import Endpoint, LLMClient
from icml25.social_choice.axiom import deviation_ratios
from icml25.social_choice.http_oracle import HTTPOracles
from icml25.social_choice.opinions import template_opinions, template_utility
from icml25.social_choice.slate import democratic_process
from icml25.social_choice.synthetic import (
    SyntheticOracles,
    enumerate_statements,
    random_profile,
    statement_costs,
    utility_matrix,
)
from icml25.social_choice.text_oracles import (
    EmbeddingOracles,
    kmeans_medoid_slate,
    minilm_encoder,
    tfidf_encoder,
)

SETTINGS = ((0, 1.0, 1.0, 0), (1, 0.85, 0.85, 1), (2, 0.7, 0.7, 2), (3, 0.55, 0.55, 3))


@dataclass(frozen=True)
class Config:
    num_issues: int = 5
    num_opinions: int = 5
    n: int = 60
    budget: int = 15
    instances: int = 50  # per error setting (the paper: 100)
    text_instances: int = 8
    text_n: int = 60
    text_issues: int = 6
    text_camps: int = 6
    words_per_agent: float = 1.5
    encoder: str = "minilm"  # "minilm" or "tfidf"
    cos_low: float = 0.3  # cosine mapped to utility 1 (MiniLM)
    cos_high: float = 0.9  # ... and to 6
    llm: Endpoint | None = None
    llm_instances: int = 2
    llm_n: int = 8
    llm_caps: tuple[int, ...] = (12, 6, 3)
    llm_levels: tuple[float, ...] = (6.0, 5.0, 4.0, 3.0, 2.0, 1.0)  # of the model's process


SCALES = {
    "smoke": Config(
        instances=2,
        text_instances=2,
        encoder="tfidf",
        cos_low=0.1,
        cos_high=0.7,
        llm_instances=1,
        llm_n=4,
        llm_caps=(6, 3),
    ),
    "default": Config(),
    "paper": Config(instances=100, text_instances=20),
}


def cells(config: Config) -> list[dict]:
    synthetic = [
        {"part": "synthetic", "setting": s, "replicate": r}
        for s in range(len(SETTINGS))
        for r in range(config.instances)
    ]
    text = [{"part": "text", "replicate": r} for r in range(config.text_instances)]
    model = [{"part": "model", "replicate": r} for r in range(config.llm_instances)]
    return synthetic + text + (model if config.llm is not None else [])


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "synthetic":
        return _synthetic(config, SETTINGS[cell["setting"]], seed)
    if cell["part"] == "model":
        return _model(config, seed)
    return _text(config, seed)


def _model(config: Config, seed: int) -> dict:
    opinions = template_opinions(
        config.llm_n, config.text_issues, config.text_camps, seed=np.random.SeedSequence(seed)
    )
    client = LLMClient.from_endpoint(config.llm)
    oracles = HTTPOracles(opinions, client=client, unusable="lowest")
    budget = config.words_per_agent * config.llm_n
    slate = democratic_process(
        config.llm_n,
        budget,
        np.asarray(config.llm_levels, dtype=float),
        np.asarray(config.llm_caps, dtype=float),
        oracles.disc,
        oracles.gen,
        oracles.cost,
    )
    assigned = slate.assignment >= 0  # (n,)
    ratings = np.ones(config.llm_n)  # an unassigned agent: the lowest rating
    for i in np.flatnonzero(assigned):
        ratings[i] = oracles.rate(i, slate.statements[slate.assignment[i]])
    return {
        "slate": list(slate.statements),
        "slate_size": len(slate.statements),
        "slate_words": float(slate.costs.sum()),
        "budget": budget,
        "assigned_fraction": float(assigned.mean()),
        "mean_rating": float(ratings.mean()),
        "ratings_asked": oracles.ratings_asked,
        "unusable": oracles.unusable,
        "llm_usage": client.usage(),
    }


def _synthetic(config: Config, setting, seed: int) -> dict:
    beta, mu, gamma, delta = setting
    profile_seed, oracle_seed = np.random.SeedSequence(seed).spawn(2)
    statements = enumerate_statements(config.num_issues, config.num_opinions)  # (m, I)
    costs = statement_costs(statements)  # (m,)
    profile = random_profile(config.n, config.num_issues, config.num_opinions, profile_seed)
    U = utility_matrix(statements, profile, config.num_opinions)  # (m, n)
    oracles = SyntheticOracles(U, costs, beta, gamma, delta, mu, seed=oracle_seed)
    top = config.num_issues * (config.num_opinions // 2)  # r
    slate = democratic_process(
        config.n,
        config.budget,
        np.arange(top, -1, -1),
        np.arange(config.num_issues, 0, -1),
        oracles.disc,
        oracles.gen,
        oracles.cost,
    )
    assigned = np.array(slate.statements + [0])[slate.assignment]  # -1 -> placeholder
    current = np.where(slate.assignment >= 0, U[assigned, np.arange(config.n)], 0.0)  # (n,)
    slacks = np.arange(top + 1)
    ratios = deviation_ratios(U, costs, current, config.budget, slacks)  # (C,)
    return {
        "ratios": ratios.tolist(),
        "slate_cost": float(slate.costs.sum()),
        "slate_size": len(slate.statements),
        "unassigned": int((slate.assignment < 0).sum()),
        "mean_utility": float(current.mean()),
    }


def _text(config: Config, seed: int) -> dict:
    opinions = template_opinions(
        config.text_n, config.text_issues, config.text_camps, seed=np.random.SeedSequence(seed)
    )
    corpus = [s for own in opinions.sentences for s in own]
    encode = minilm_encoder() if config.encoder == "minilm" else tfidf_encoder(corpus)
    oracles = EmbeddingOracles(opinions, encode, config.cos_low, config.cos_high)
    budget = config.words_per_agent * config.text_n
    slate = democratic_process(
        config.text_n,
        budget,
        np.arange(6.0, 0.99, -0.5),
        np.unique(oracles.words),
        oracles.disc,
        oracles.gen,
        oracles.cost,
    )
    baseline = kmeans_medoid_slate(
        oracles.agent_embeddings(),
        oracles.embeddings,
        oracles.author,
        oracles.words,
        budget,
        seed=seed,
    )
    issue = np.concatenate(opinions.sentence_issue)
    stance = np.concatenate(opinions.sentence_stance)
    truth = template_utility(opinions, issue, stance)  # (m, n)
    tfidf = tfidf_encoder(corpus)
    agent_text = tfidf([" ".join(own) for own in opinions.sentences])  # (n, V)
    lexical = tfidf(corpus) @ agent_text.T  # (m, n) TF-IDF cosine, a second evaluation
    out = {}
    for name, chosen in (("ours", slate.statements), ("kmeans", baseline)):
        best = truth[chosen].max(axis=0)  # (n,)
        out[f"{name}_mean"] = float(best.mean())
        out[f"{name}_bottom10"] = _bottom10(best)
        out[f"{name}_tfidf_mean"] = float(lexical[chosen].max(axis=0).mean())
        out[f"{name}_words"] = float(oracles.words[chosen].sum())
        out[f"{name}_size"] = len(chosen)
    out["budget"] = budget
    out["ours_slate"] = [oracles.candidates[i] for i in slate.statements]
    return out


def _bottom10(values: np.ndarray) -> float:
    """Mean of the lowest 10% (at least one) of the values."""
    k = max(1, int(np.ceil(0.1 * values.size)))
    return float(np.sort(values)[:k].mean())
