import numpy as np
import pytest

from icml25.creativity import (
    END,
    ENTITY0,
    HASH0,
    SEP,
    Q,
    canonical_form,
    construction_task,
    creativity_score,
    draw_hashes,
    is_valid,
    sibling_task,
    strip_hash,
    training_canonical_forms,
    triangle_task,
)
from icml25.creativity.metrics import answer_tokens


def _answers(task):
    return [answer_tokens(r[p:]) for r, p in zip(task.train, task.prompt_len, strict=True)]


@pytest.mark.parametrize("name", ["line", "circle"])
def test_every_construction_training_answer_is_valid(name):
    task = construction_task(name, 10, 9, 500, 50, 5, np.random.default_rng(0))
    answers = _answers(task)
    assert all(is_valid(a, task) for a in answers)
    assert task.answer_len == 27 and task.train.shape == (500, 5 + 1 + 27)
    # line: 10 distinct entities out of 10; circle: 9 of 10
    nodes = {len(set(a) - {SEP}) for a in answers}
    assert nodes == {10 if name == "line" else 9}
    # the edge order is shuffled: many distinct canonical forms
    assert len(training_canonical_forms(task)) > 400


def test_every_sibling_and_triangle_training_answer_is_valid():
    task = sibling_task(5, 20, 600, 40, 4, np.random.default_rng(1))
    assert all(is_valid(a, task) for a in _answers(task))
    assert len(set(_answers(task))) == 600  # distinct triples
    tri = triangle_task(60, 900, 30, 4, np.random.default_rng(2))
    is_tri = tri.prompt_len > 1
    answers = _answers(tri)
    assert all(is_valid(a, tri) for a, t in zip(answers, is_tri, strict=True) if t)
    assert 200 < int(is_tri.sum()) < 400  # about a third
    adj = tri.structure["adjacency"]
    for a, t in zip(answers, is_tri, strict=True):  # edge facts: u v <sep> v u, an edge
        if not t:
            u, v, sep, v2, u2 = a
            assert sep == SEP and (u, v) == (u2, v2) and adj[u - ENTITY0, v - ENTITY0]
    assert (adj == adj.T).all() and not adj.diagonal().any()


def test_hashes_are_distinct_and_never_shared_between_train_and_test():
    h = draw_hashes(600, 2, np.random.default_rng(0))  # 600 of 1296: collisions are redrawn
    assert h.shape == (600, 2) and len({tuple(r) for r in h}) == 600
    assert ((h >= HASH0) & (h < HASH0 + 36)).all()
    task = construction_task("line", 6, 5, 300, 100, 3, np.random.default_rng(3))
    train_h = {tuple(r[:3]) for r in task.train}
    test_h = {tuple(r[:3]) for r in task.test_prompts}
    assert len(train_h) == 300 and len(test_h) == 100 and not train_h & test_h
    assert (task.test_prompts[:, -1] == Q).all()


def test_draw_hashes_refuses_too_many():
    with pytest.raises(ValueError, match="hash_len"):
        draw_hashes(1000, 1, np.random.default_rng(0))


def test_canonical_form_is_invariant_to_relabelling_and_sorts_triangles():
    e = [ENTITY0 + i for i in range(6)]
    line = (e[2], e[3], SEP, e[0], e[1], SEP, e[1], e[2])
    perm = {e[i]: e[j] for i, j in enumerate([5, 4, 3, 2, 1, 0])}
    relabelled = tuple(perm.get(t, t) for t in line)
    assert canonical_form(line, "line") == canonical_form(relabelled, "line")
    assert canonical_form(line, "line") == (0, 1, -1, 2, 3, -1, 3, 0)
    reordered = (e[0], e[1], SEP, e[1], e[2], SEP, e[2], e[3])
    assert canonical_form(reordered, "line") != canonical_form(line, "line")
    tri = (e[4], e[1], SEP, e[1], e[3], SEP, e[3], e[4])
    assert canonical_form(tri, "triangle") == (e[1], e[3], SEP, e[3], e[4], SEP, e[4], e[1])


def _row(tokens, width=12):
    row = np.zeros(width, np.int64)
    row[: len(tokens)] = tokens
    return row


def test_creativity_score_on_hand_made_samples():
    rng = np.random.default_rng(0)
    task = construction_task("line", 6, 3, 1, 8, 3, rng)  # one training line of 4 nodes
    train_answer = answer_tokens(task.train[0, 4:])
    e = [ENTITY0 + i for i in range(6)]
    train_shape = canonical_form(train_answer, "line")
    # a relabelled copy of the training line (memorised), a new line shape, its duplicate,
    # an invalid answer (a circle), and one with no </a>
    names = {
        v: e[(i + 2) % 6] for i, v in enumerate(dict.fromkeys(t for t in train_answer if t != SEP))
    }
    memorised = tuple(names.get(t, t) for t in train_answer)
    assert canonical_form(memorised, "line") == train_shape
    a, b, c, d = e[:4]
    candidates = [
        (a, b, SEP, b, c, SEP, c, d),
        (b, c, SEP, a, b, SEP, c, d),
        (d, c, SEP, c, b, SEP, b, a),
    ]
    new = next(x for x in candidates if canonical_form(x, "line") != train_shape)
    circle = (a, b, SEP, b, c, SEP, c, a)
    rows = [
        _row(memorised + (END,)),
        _row(new + (END,)),
        _row(new + (END,)),
        _row(circle + (END,)),
        _row(new),
    ]
    score = creativity_score(np.stack(rows), task)
    assert score["valid"] == pytest.approx(3 / 5)
    assert score["memorised"] == pytest.approx(1 / 5)
    assert score["creativity"] == pytest.approx(1 / 5)  # the new line, counted once
    assert score["diversity"] == pytest.approx(2 / 5)


def test_validity_of_hand_made_answers():
    task = construction_task("circle", 8, 4, 10, 4, 2, np.random.default_rng(0))
    e = [ENTITY0 + i for i in range(8)]
    a, b, c, d = e[:4]
    assert is_valid((a, b, SEP, c, d, SEP, b, c, SEP, d, a), task)
    assert not is_valid((a, b, SEP, b, c, SEP, c, d), task)  # a line
    assert not is_valid((a, b, SEP, b, a, SEP, c, d, SEP, d, c), task)  # two cycles
    assert not is_valid((a, b, c, SEP, c, a), task)
    assert not is_valid((a, HASH0, SEP, HASH0, a), task)  # not entities
    line = construction_task("line", 8, 4, 10, 4, 2, np.random.default_rng(0))
    assert is_valid((c, d, SEP, a, b, SEP, b, c), line)
    assert not is_valid((a, b, SEP, b, c, SEP, c, a), line)
    assert not is_valid(None, line) and not is_valid((), line)
    sib = sibling_task(2, 3, 10, 4, 2, np.random.default_rng(0))
    # entities: parents 0,1; b1 children 2..7 (parent 0 owns 2..4); b2 children 8..13
    ok = (ENTITY0 + 2, ENTITY0 + 8, ENTITY0 + 0)
    assert is_valid(ok, sib)
    assert not is_valid((ENTITY0 + 2, ENTITY0 + 11, ENTITY0 + 0), sib)  # b2 of parent 1
    assert not is_valid((ENTITY0 + 8, ENTITY0 + 2, ENTITY0 + 0), sib)  # kinds swapped


def test_strip_hash_keeps_answers_and_gives_one_prompt():
    task = construction_task("line", 6, 5, 50, 10, 4, np.random.default_rng(0))
    bare = strip_hash(task)
    assert (bare.train[:, 1:] == task.train[:, 5:]).all() and (bare.train[:, 0] == Q).all()
    assert (bare.test_prompts == Q).all() and bare.test_prompts.shape == (10, 1)


def test_bad_inputs_name_the_argument():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_entities"):
        construction_task("line", 5, 5, 10, 4, 2, rng)
    with pytest.raises(ValueError, match="name"):
        construction_task("square", 8, 5, 10, 4, 2, rng)
    with pytest.raises(ValueError, match="n_train"):
        sibling_task(2, 3, 100, 4, 2, rng)
    task = sibling_task(2, 3, 10, 4, 2, rng)
    with pytest.raises(ValueError, match="samples"):
        creativity_score(np.zeros((0, 4), np.int64), task)
    with pytest.raises(ValueError, match="samples"):
        creativity_score(np.zeros((3, 4)), task)
    with pytest.raises(TypeError, match="task"):
        creativity_score(np.zeros((3, 4), np.int64), "sibling")


def test_triangle_checks_follow_the_official_evaluator_on_malformed_answers(
    triangle_with_far_vertex,
):
    # the official check reads a b <sep> b' c <sep> x, overwrites b with b', tests a~b', b'~c,
    # c~a; its canonical triangle sorts the first vertex of each segment (a, b', x)
    tri, (a_, b_, c_, far_) = triangle_with_far_vertex
    assert is_valid((a_, b_, SEP, b_, c_, SEP, c_, a_), tri)
    assert is_valid((a_, far_, SEP, b_, c_, SEP, c_, a_), tri)  # b is never tested
    assert not is_valid((a_, b_, SEP, far_, c_, SEP, c_, a_), tri)  # a~b' is
    assert is_valid((a_, b_, SEP, b_, c_, SEP), tri)  # the third segment need only exist
    assert canonical_form((a_, b_, SEP, b_, c_, SEP, far_, a_), "triangle") == canonical_form(
        (a_, b_, SEP, b_, far_, SEP, far_, a_), "triangle"
    )
    assert canonical_form((a_, b_, SEP, b_), "triangle") == (a_, b_, SEP, b_)
