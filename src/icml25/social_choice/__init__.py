"""Generative social choice: the next generation (Boehmer, Fish & Procaccia, ICML 2025).

Boehmer, Fish & Procaccia, *Generative Social Choice: The Next Generation*, ICML 2025
(arXiv 2505.22939). Official code: sara-fish/gen-soc-choice-next-gen.

>>> import numpy as np
>>> from icml25.social_choice import (SyntheticOracles, democratic_process,
...     enumerate_statements, random_profile, satisfies_cbjr, statement_costs, utility_matrix)
>>> statements = enumerate_statements(5, 5)  # (7775, 5): every statement on 5 issues
>>> costs = statement_costs(statements)  # c(alpha) = number of issues addressed
>>> U = utility_matrix(statements, random_profile(60, 5, 5, seed=0), 5)  # (7775, 60)
>>> oracles = SyntheticOracles(U, costs, seed=0)  # exact Disc and Gen
>>> slate = democratic_process(60, 15, range(10, -1, -1), range(5, 0, -1),
...     oracles.disc, oracles.gen, oracles.cost)
>>> bool(slate.costs.sum() <= 15)
True
>>> mine = np.array(slate.statements + [0])[slate.assignment]
>>> current = np.where(slate.assignment >= 0, U[mine, np.arange(60)], 0)
>>> satisfies_cbjr(U, costs, current, 15)
True
"""

from icml25.social_choice.axiom import (
    Deviation,
    deviation_ratios,
    largest_deviations,
    satisfies_cbjr,
)
from icml25.social_choice.http_oracle import HTTPOracles
from icml25.social_choice.opinions import (
    Opinions,
    load_opinions,
    template_opinions,
    template_utility,
)
from icml25.social_choice.slate import Slate, democratic_process, group_size
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
    word_count,
)

__all__ = [
    "Deviation",
    "EmbeddingOracles",
    "HTTPOracles",
    "Opinions",
    "Slate",
    "SyntheticOracles",
    "democratic_process",
    "deviation_ratios",
    "enumerate_statements",
    "group_size",
    "kmeans_medoid_slate",
    "largest_deviations",
    "load_opinions",
    "minilm_encoder",
    "random_profile",
    "satisfies_cbjr",
    "statement_costs",
    "template_opinions",
    "template_utility",
    "tfidf_encoder",
    "utility_matrix",
    "word_count",
]
