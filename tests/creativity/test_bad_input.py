"""Bad input to the task generators, the metrics, the losses and the decoders is refused early,
naming the argument."""

import numpy as np
import pytest
import torch

from icml25.common.transformer import Transformer, TransformerConfig
from icml25.creativity import (
    IGNORE,
    TrainConfig,
    answer_tokens,
    canonical_form,
    construction_task,
    creativity_score,
    draw_hashes,
    generate,
    generate_triangle_graph,
    mdm_generate,
    mdm_loss,
    ntp_loss,
    ntp_pairs,
    sibling_task,
    strip_hash,
    train,
    triangle_task,
)

NAN = float("nan")
TASK = construction_task("line", 8, 5, 20, 4, 2, np.random.default_rng(0))
V = TASK.vocab_size
CAUSAL = Transformer(TransformerConfig(V, 32, n_layer=1, n_head=2, n_embd=8), seed=0)
BIDIR = Transformer(TransformerConfig(V, 32, n_layer=1, n_head=2, n_embd=8, causal=False))
INPUTS, LABELS = (torch.from_numpy(a[:2]) for a in ntp_pairs(TASK))
ANSWER = LABELS != IGNORE
GEN = torch.Generator().manual_seed(0)


def rng():
    return np.random.default_rng(0)


CASES = [
    (lambda: draw_hashes(10**12, 4, rng()), "too large"),
    (lambda: draw_hashes(2, 10**8, rng()), "hash_len must be at most"),
    (lambda: construction_task("line", 8, 5, 10**12, 4, 2, rng()), "too large"),
    (lambda: sibling_task(10, 10**5, 10**11, 4, 2, rng()), "too large"),
    (lambda: generate_triangle_graph(10, 3, NAN, 2, rng()), "flex must be"),
    (lambda: generate_triangle_graph(10, 3, -1.0, 2, rng()), "flex must be"),
    (lambda: generate_triangle_graph(10, 3, 1.2, -1, rng()), "triangles must be"),
    (lambda: generate_triangle_graph(10, 3, 1.2, 1.5, rng()), "triangles must be"),
    (lambda: generate_triangle_graph(5, 10, 1.2, 1, rng()), "degree must be less than"),
    (lambda: generate_triangle_graph(10**6, 3, 1.2, 2, rng()), "too large"),
    (lambda: triangle_task(12, 20, 4, 2, rng(), triangle_prob=2.0), "triangle_prob must be"),
    (lambda: triangle_task(12, 20, 4, 2, rng(), triangle_prob=NAN), "triangle_prob must be"),
    (lambda: triangle_task(12, 20, 4, 2, rng(), degree=2, triangles=0), "no triangle"),
    (lambda: answer_tokens(np.array([[1, 4], [2, 4]])), "row must have 1 dimensions"),
    (lambda: answer_tokens(np.array(["a", "b"])), "row must be a numeric array"),
    (lambda: answer_tokens(np.array([NAN, 4.0])), "row must hold integers"),
    (lambda: answer_tokens(np.array([1.5, 4.0])), "row must hold integers"),
    (lambda: canonical_form((50, 51, 2, 51, 52), "foo"), "task_name must be one of"),
    (lambda: creativity_score(-np.ones((2, 3), int), TASK), "samples must hold tokens"),
    (lambda: creativity_score(np.full((2, 3), 10**6), TASK), "samples must hold tokens"),
    (lambda: ntp_loss(CAUSAL, INPUTS + V, LABELS), "inputs must hold tokens"),
    (lambda: ntp_loss(CAUSAL, INPUTS, torch.full_like(LABELS, -5)), "labels must hold tokens"),
    (lambda: ntp_loss(CAUSAL, INPUTS, LABELS[:1]), "labels must have the shape of inputs"),
    (lambda: ntp_loss(CAUSAL, INPUTS, torch.full_like(LABELS, IGNORE)), "labels must hold a token"),
    (lambda: mdm_loss(BIDIR, INPUTS, ANSWER, GEN, eps=NAN), "eps must be"),
    (lambda: mdm_loss(BIDIR, INPUTS, ANSWER, GEN, eps=-1.0), "eps must be"),
    (lambda: mdm_loss(BIDIR, INPUTS, ANSWER[:1], GEN), "answer must have the shape of x0"),
    (lambda: mdm_loss(BIDIR, INPUTS + V, ANSWER, GEN), "x0 must hold tokens"),
    (lambda: generate(CAUSAL, TASK.test_prompts + V, 3), "prompts must hold tokens"),
    (lambda: generate(CAUSAL, TASK.test_prompts, 3, temperature=1.0, seed=-1), "seed must be"),
    (lambda: generate(CAUSAL, TASK.test_prompts, 10**9), "n_new is too large"),
    (lambda: generate(CAUSAL, [[1, 2], [3]], 3), "prompts must be a non-empty"),
    (lambda: mdm_generate(BIDIR, TASK.test_prompts - 100, 3, 3), "prompts must hold tokens"),
    (lambda: mdm_generate(BIDIR, TASK.test_prompts, 3, 10**9), "too large"),
    (lambda: train(TASK, "ntp", config=TrainConfig(steps=2, batch=2, warmup=-5)), "warmup must"),
    (lambda: train(TASK, "ntp", config=TrainConfig(steps=2, batch=2, log_every=0)), "log_every"),
    (lambda: train(TASK, "ntp", config=TrainConfig(steps=1, batch=10**10)), "too large"),
]


@pytest.mark.parametrize(("call", "message"), CASES)
def test_bad_input_is_refused_by_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: draw_hashes(3, 2, 0), "rng must be a numpy.random.Generator"),
        (lambda: construction_task("line", 8, 5, 20, 4, 2, None), "rng must be"),
        (lambda: strip_hash(3), "task must be a TaskData"),
        (lambda: ntp_pairs(3), "task must be a TaskData"),
        (lambda: train(3, "ntp"), "task must be a TaskData"),
        (lambda: train(TASK, "ntp", config=3), "config must be a TrainConfig"),
        (lambda: creativity_score(np.ones((2, 3), int), TASK, train_forms=[1]), "train_forms"),
        (lambda: mdm_loss(BIDIR, INPUTS, ANSWER.long(), GEN), "answer must be a torch bool"),
        (lambda: generate(3, TASK.test_prompts, 3), "model must be a Transformer"),
    ],
)
def test_a_wrong_type_is_refused_by_name(call, message):
    with pytest.raises(TypeError, match=message):
        call()
