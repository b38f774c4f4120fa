"""The vectorised scoring (numpy over all answers) against the per-answer checks it replaced:
``is_valid`` and ``canonical_form`` on each answer, in a plain loop, on well-formed and
malformed answers of every task."""

import numpy as np
import pytest

from icml25.creativity import (
    END,
    ENTITY0,
    PAD,
    SEP,
    canonical_form,
    construction_task,
    creativity_score,
    is_valid,
    sibling_task,
    training_canonical_forms,
    triangle_task,
)
from icml25.creativity.metrics import (
    _answer_arrays,
    _canonical_keys,
    _segments,
    _valid,
    answer_tokens,
)


def _task(name):
    rng = np.random.default_rng(3)
    if name == "sibling":
        return sibling_task(5, 20, 300, 40, 4, rng)
    if name == "triangle":
        return triangle_task(30, 400, 40, 4, rng)
    return construction_task(name, 8, 6, 300, 40, 4, rng)


def _slow_score(samples, task, forms):
    """The per-answer loop that ``creativity_score`` ran before it was vectorised."""
    creative, valid_set = set(), set()
    n_valid = n_mem = n_novel = 0
    for row in samples:
        answer = answer_tokens(row)
        valid = is_valid(answer, task)
        memorised = answer is not None and canonical_form(answer, task.name) in forms
        n_valid += valid
        n_mem += memorised
        if valid:
            valid_set.add(answer)
            if not memorised:
                n_novel += 1
                creative.add(answer)
    n = len(samples)
    return {
        "creativity": len(creative) / n,
        "memorised": n_mem / n,
        "valid": n_valid / n,
        "novel_valid": n_novel / n,
        "diversity": len(valid_set) / n,
    }


def _messy_answers(task, n, rng):
    """(n, A) rows: training answers (some kept, some edited: a token replaced, deleted or
    duplicated, a <sep> inserted, segments shuffled or reversed, cut short) and random strings
    of entities, <sep>, padding and other tokens; ``</a>`` where the answer stops, sometimes
    missing, followed by random tokens."""
    answers = [
        answer_tokens(r[p:])
        for r, p in zip(task.train, task.prompt_len, strict=True)
        if task.name != "triangle" or p > 1
    ]
    n_ent = task.structure["n_entities"]
    width = max(len(a) for a in answers) + 6
    out = rng.integers(0, task.vocab_size, size=(n, width))  # junk after </a>
    for i in range(n):
        a = list(answers[rng.integers(len(answers))])
        kind = rng.integers(8)
        if kind == 1:  # replace one token by any token but </a>
            a[rng.integers(len(a))] = int(rng.choice([SEP, PAD, ENTITY0 + rng.integers(n_ent)]))
        elif kind == 2 and len(a) > 1:  # delete one token
            del a[rng.integers(len(a))]
        elif kind == 3:  # duplicate one token, or insert a <sep>
            k = int(rng.integers(len(a) + 1))
            a.insert(k, SEP if rng.random() < 0.5 else a[min(k, len(a) - 1)])
        elif kind == 4:  # shuffle and reverse segments
            segs = [s[::-1] if rng.random() < 0.5 else s for s in _segments(tuple(a))]
            segs = [segs[k] for k in rng.permutation(len(segs))]
            a = [t for s in segs for t in (*s, SEP)][:-1]
        elif kind == 5:  # cut short (possibly empty)
            a = a[: rng.integers(len(a) + 1)]
        elif kind == 6:  # a random string of entities and <sep>
            a = [SEP if rng.random() < 0.3 else ENTITY0 + int(rng.integers(n_ent)) for _ in a]
        elif kind == 7:  # small entities only: many repeats
            a = [SEP if t == SEP else ENTITY0 + int(rng.integers(3)) for t in a]
        a = [t for t in a if t != END][: width - 1]
        out[i, : len(a)] = a
        if rng.random() < 0.95:
            out[i, len(a)] = END
        else:
            out[i, len(a) :] = np.where(out[i, len(a) :] == END, PAD, out[i, len(a) :])
    return out


@pytest.mark.parametrize("name", ["sibling", "triangle", "circle", "line"])
def test_vectorised_checks_equal_the_per_answer_ones(name):
    task = _task(name)
    samples = _messy_answers(task, 3000, np.random.default_rng(0))
    tok, length, ended = _answer_arrays(samples)
    answers = [answer_tokens(r) for r in samples]
    assert [(tuple(t[:k]) if e else None) for t, k, e in zip(tok, length, ended, strict=True)] == (
        answers
    )
    valid = [is_valid(a, task) for a in answers]
    assert _valid(tok, length, ended, task).tolist() == valid
    assert 0.05 < np.mean(valid) < 0.95  # both branches are exercised
    forms = [None if a is None else canonical_form(a, name) for a in answers]
    assert _canonical_keys(tok, length, ended, name) == forms
    train = training_canonical_forms(task)
    slow = {
        canonical_form(answer_tokens(r[p:]), name)
        for r, p in zip(task.train, task.prompt_len, strict=True)
        if name != "triangle" or p > 1
    }
    assert train == slow
    for forms_given in (None, train, frozenset(train | {None})):
        got = creativity_score(samples, task, forms_given)
        assert got == _slow_score(samples, task, train if forms_given is None else forms_given)


def test_vectorised_triangle_checks_on_hand_made_malformed_answers(triangle_with_far_vertex):
    tri, (a_, b_, c_, f_) = triangle_with_far_vertex
    answers = [
        (a_, b_, SEP, b_, c_, SEP, c_, a_),  # well formed
        (a_, f_, SEP, b_, c_, SEP, c_, a_),  # b is never tested
        (a_, b_, SEP, f_, c_, SEP, c_, a_),  # a~b' is
        (a_, b_, SEP, b_, c_, SEP),  # an empty third segment
        (a_, b_, SEP, b_, c_, SEP, c_, a_, SEP, a_),  # a fourth segment
        (a_, b_, SEP, b_, c_),  # two segments
        (a_, b_, b_, SEP, c_, SEP, c_, a_),  # a first segment of three
        (SEP, SEP, SEP, a_),  # segments without an entity
        (PAD, a_, SEP, END - 1, b_, SEP, c_),  # entities after other tokens
        (),
    ]
    samples = np.full((len(answers) + 1, 12), PAD)
    for i, ans in enumerate(answers):
        samples[i, : len(ans) + 1] = [*ans, END]
    samples[-1, :4] = [a_, b_, SEP, b_]  # no </a>
    tok, length, ended = _answer_arrays(samples)
    want = [is_valid(x, tri) for x in answers] + [False]
    assert want[:5] == [True, True, False, True, False]
    assert _valid(tok, length, ended, tri).tolist() == want
    keys = _canonical_keys(tok, length, ended, "triangle")
    assert keys == [canonical_form(x, "triangle") for x in answers] + [None]
    forms = training_canonical_forms(tri)
    assert creativity_score(samples, tri, forms) == _slow_score(samples, tri, forms)


def test_answer_arrays_read_from_each_prompt_end():
    rows = np.array([[9, 9, SEP, END, 7], [9, 11, 12, 13, 14], [END, 5, 5, 5, 5]])
    tok, length, ended = _answer_arrays(rows, np.array([1, 1, 0]))
    assert tok.shape == (3, 8) and length.tolist() == [2, 0, 0]
    assert ended.tolist() == [True, False, True]
    assert tok[0].tolist() == [9, SEP] + [-1] * 6 and (tok[1:] == -1).all()
