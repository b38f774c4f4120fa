import numpy as np
import pytest
import torch

from icml25.common.transformer import Transformer, TransformerConfig
from icml25.creativity import (
    IGNORE,
    MASK,
    PAD,
    TrainConfig,
    construction_task,
    generate,
    mdm_generate,
    mdm_loss,
    ntp_pairs,
    sibling_task,
    strip_hash,
    teacherless_pairs,
    train,
)


def test_ntp_labels_skip_the_prompt():
    task = construction_task("line", 6, 5, 20, 4, 3, np.random.default_rng(0))
    x, y = ntp_pairs(task)
    assert (y[:, :4] == IGNORE).all() and (y[:, 4:] == x[:, 4:]).all()


def test_teacherless_sibling_targets_as_the_official_hybrid():
    task = sibling_task(3, 4, 30, 4, 2, np.random.default_rng(0))
    x, y = teacherless_pairs(task)
    assert x.shape == (90, task.train.shape[1])
    p = 3  # hash (2) + <q>
    b1, b2, a = task.train[:, p], task.train[:, p + 1], task.train[:, p + 2]
    first, second = slice(30, 60), slice(60, 90)
    # prompt <pad> -> b2
    assert (x[first, :p] == task.train[:, :p]).all() and (x[first, p] == PAD).all()
    assert (y[first, p + 1] == b2).all() and ((y[first] != IGNORE).sum(1) == 1).all()
    # prompt <pad> <pad> -> a
    assert (x[second, p : p + 2] == PAD).all() and (y[second, p + 2] == a).all()
    assert ((y[second] != IGNORE).sum(1) == 1).all()
    assert (y[:30, p] == b1).all()  # the NTP copy is kept


def test_teacherless_construction_is_one_ntp_copy_and_three_dummy_copies():
    task = construction_task("circle", 6, 5, 10, 4, 3, np.random.default_rng(0))
    x, y = teacherless_pairs(task)
    assert x.shape[0] == 40
    assert (x[:10] == task.train).all()
    assert (x[10:, 4:] == PAD).all() and (x[10:, :4] == np.tile(task.train[:, :4], (3, 1))).all()
    assert (y[10:] == np.tile(y[:10], (3, 1))).all()  # the labels stay the answer


class _Oracle(torch.nn.Module):
    """Perfect logits for ``x0`` except at ``wrong`` positions (a stand-in network)."""

    def __init__(self, x0, wrong, vocab):
        super().__init__()
        self.x0, self.wrong, self.vocab = x0, wrong, vocab

    def forward(self, xt):
        logits = torch.full(xt.shape + (self.vocab,), -30.0)
        target = torch.where(self.wrong, (self.x0 + 1) % self.vocab, self.x0)
        return logits.scatter(-1, target[..., None], 30.0)


def test_mdm_loss_counts_masked_positions_only():
    x0 = torch.randint(7, 20, (8, 10), generator=torch.Generator().manual_seed(0))
    answer = torch.zeros(8, 10, dtype=torch.bool)
    answer[:, 4:] = True
    wrong = ~answer  # wrong only where nothing is ever masked
    gen = torch.Generator().manual_seed(1)
    loss = mdm_loss(_Oracle(x0, wrong, 20), x0, answer, gen)
    assert float(loss) < 1e-6
    loss = mdm_loss(_Oracle(x0, answer, 20), x0, answer, torch.Generator().manual_seed(1))
    assert float(loss) > 10  # wrong on the maskable positions: counted
    none = torch.zeros_like(answer)
    assert float(mdm_loss(_Oracle(x0, answer, 20), x0, none, gen)) == 0.0


def _tiny(causal=True, vocab=60, block=40):
    cfg = TransformerConfig(vocab, block, n_layer=1, n_head=2, n_embd=16, causal=causal)
    return Transformer(cfg, seed=0).eval()


def test_generate_shapes_and_determinism():
    model = _tiny()
    prompts = np.tile(np.array([[7, 8, 3]]), (5, 1))
    greedy = generate(model, prompts, 6)
    assert greedy.shape == (5, 6) and (greedy == greedy[0]).all()  # same prompt, same answer
    a = generate(model, prompts, 6, temperature=1.0, seed=3)
    b = generate(model, prompts, 6, temperature=1.0, seed=3)
    assert (a == b).all()
    assert not (generate(model, prompts, 6, temperature=5.0, seed=4) == a).all()


def test_mdm_generate_reveals_everything_and_is_seeded():
    model = _tiny(causal=False)
    prompts = np.full((6, 1), 3)
    out = mdm_generate(model, prompts, 9, steps=5, seed=2)
    assert out.shape == (6, 9) and not np.isin(out, [MASK, PAD]).any()
    assert (out == mdm_generate(model, prompts, 9, steps=5, seed=2)).all()


def test_training_lowers_the_loss_and_is_deterministic():
    task = construction_task("line", 6, 4, 100, 8, 2, np.random.default_rng(0))
    cfg = TrainConfig(steps=30, batch=16, warmup=5, log_every=10)
    net = TransformerConfig(1, 1, n_layer=1, n_head=2, n_embd=32)
    for obj, data in (("ntp", task), ("teacherless", task), ("mdm", strip_hash(task))):
        a = train(data, obj, net, cfg, seed=1)
        assert a.losses[-1] < a.losses[0], obj
        b = train(data, obj, net, cfg, seed=1)
        assert np.array_equal(a.losses, b.losses), obj
    assert not a.model.config.causal


def test_bad_inputs_name_the_argument():
    task = construction_task("line", 6, 4, 10, 4, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="objective"):
        train(task, "bert", seed=0)
    with pytest.raises(ValueError, match="steps"):
        train(task, "ntp", config=TrainConfig(steps=0))
    with pytest.raises(ValueError, match="prompts"):
        generate(_tiny(), np.zeros((0, 2), np.int64), 3)
    with pytest.raises(ValueError, match="temperature"):
        generate(_tiny(), np.zeros((2, 2), np.int64), 3, temperature=-1.0)
    with pytest.raises(ValueError, match="causal"):
        mdm_generate(_tiny(), np.zeros((2, 2), np.int64), 3, steps=2)
    with pytest.raises(ValueError, match="n_new"):
        generate(_tiny(), np.zeros((2, 2), np.int64), 0)
