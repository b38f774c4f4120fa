import numpy as np
import pytest
import torch

from icml25.mdm_order import (
    MDMConfig,
    SudokuMDM,
    accuracy,
    adaptive_decode,
    decode,
    legal_candidates,
    load_model,
    make_puzzles,
    mdm_loss,
    solve,
    state_dict_numpy,
    train_mdm,
    unmask_counts,
)
from icml25.mdm_order.subproblems import order_losses
from icml25.mdm_order.sudoku import PEERS

TINY = MDMConfig(d_model=16, n_layer=1, n_head=2, d_ff=32)


@pytest.fixture(scope="module")
def data():
    return make_puzzles(16, (30, 36), "singles", seed=0, pool=4)


def constant_model(probs: np.ndarray):
    """A fake model returning ``probs`` (81, 9) for every grid."""
    return lambda tokens: np.broadcast_to(probs, (len(tokens), 81, 9)).copy()


def test_unmask_counts_follow_the_linear_schedule():
    masked = np.array([0, 1, 47, 81])
    K = unmask_counts(masked, 50)  # (50, 4)
    assert (K >= 0).all() and (K.sum(0) == masked).all()
    # K = M_t (alpha_s - alpha_t) / (1 - alpha_t) with M_t = M_0 (1 - alpha_t): M_0 / steps
    remaining = masked - np.vstack([np.zeros(4), K.cumsum(0)[:-1]])  # masked before each step
    t = 1 - np.arange(50) / 50
    ideal = remaining * (1 / 50) / t[:, None]
    assert np.abs(K - ideal).max() <= 1.0 + 1e-9
    np.testing.assert_array_equal(unmask_counts(masked, 1), masked[None])


def test_legal_candidates_is_uniform_over_legal_digits():
    tokens = np.zeros((1, 81), dtype=int)
    tokens[0, :8] = np.arange(1, 9)  # row 0: cell 8 must be 9
    p = legal_candidates(tokens)[0]  # (81, 9)
    np.testing.assert_allclose(p.sum(-1), 1.0)
    np.testing.assert_allclose(p[8], np.eye(9)[8])  # naked single
    np.testing.assert_allclose(p[0], np.eye(9)[0])  # filled cell keeps its digit
    # cell 9 (row 1, box 0) cannot hold 1, 2, 3 (its box): uniform over 4..9
    np.testing.assert_allclose(p[9], np.r_[np.zeros(3), np.full(6, 1 / 6)])


@pytest.mark.parametrize("strategy", ["vanilla", "top_prob", "top_margin"])
def test_clues_never_change_and_every_cell_is_filled(data, strategy):
    puzzles, _ = data
    rng = np.random.default_rng(0)
    noisy = lambda tokens: rng.dirichlet(np.ones(9), size=(len(tokens), 81))  # noqa: E731
    d = decode(puzzles, noisy, strategy, steps=7, seed=1)
    assert (d.grids[puzzles > 0] == puzzles[puzzles > 0]).all()
    assert (d.grids > 0).all()
    assert ((d.step >= 0) == (puzzles == 0)).all() and d.step.max() <= 6


def test_adaptive_orders_pick_the_right_cell():
    probs = np.full((81, 9), 1 / 9)
    probs[3] = [0.5, 0.5, 0, 0, 0, 0, 0, 0, 0]  # top probability .5, margin 0
    probs[7] = [0.45, 0.05, 0.5 / 7, *[0.5 / 7] * 6]  # top probability .45, margin .4
    puzzle = np.zeros((1, 81), dtype=int)
    # 81 steps: one cell per step; step 0 takes the best-scored cell
    first = {
        s: decode(puzzle, constant_model(probs), s, 81, 0).step[0]
        for s in ("top_prob", "top_margin")
    }
    assert first["top_prob"][3] == 0 and first["top_margin"][7] == 0


def test_gumbel_top_1_is_a_softmax_of_the_log_scores_at_the_annealed_temperature():
    """The official scheme: log-score plus gumbel * (fraction still masked after the step) * G,
    so the first cell is chosen with probability softmax(log p / tau_i), tau_i = tau (1 - 1/2)
    at the first of 2 steps."""
    probs = np.full((81, 9), 1 / 9)
    probs[0] = np.eye(9)[0]  # max prob 1
    probs[1] = np.r_[0.5, np.full(8, 0.5 / 8)]  # max prob .5
    puzzle = np.zeros((4000, 81), dtype=int)
    puzzle[:, 2:] = np.tile(  # fill every other cell with a valid full grid
        np.array([int(c) for c in
                  "534678912672195348198342567859761423426853791713924856961537284287419635345286179"])[2:],
        (4000, 1),
    )  # fmt: skip
    tau = 2.0
    d = decode(puzzle, constant_model(probs), "top_prob", 2, seed=0, gumbel=tau)
    picked_first = (d.step[:, 0] == 0).mean()
    expected = 1 / (1 + 0.5 ** (1 / (tau / 2)))  # softmax of (log 1, log .5) at temperature 1
    assert abs(picked_first - expected) < 0.03  # 4000 draws: std 0.007
    d = decode(puzzle, constant_model(probs), "top_prob", 2, seed=0, gumbel=0.0)
    assert (d.step[:, 0] == 0).all()


def test_gumbel_noise_vanishes_at_the_last_step():
    """With one step everything is unmasked at once; with 81 steps the last cell is the one
    left, whatever the noise: the annealed temperature there is 0."""
    probs = np.tile(np.r_[0.9, np.full(8, 0.1 / 8)], (81, 1))
    probs[80] = np.r_[0.2, np.full(8, 0.8 / 8)]  # the least confident cell
    puzzle = np.zeros((50, 81), dtype=int)
    d = decode(puzzle, constant_model(probs), "top_prob", 81, seed=0, gumbel=0.5)
    assert (d.step >= 0).all() and (d.step.max(1) == 80).all()


def test_vanilla_order_is_uniform_and_values_follow_p():
    probs = np.tile([0.7, 0.2, 0.1, 0, 0, 0, 0, 0, 0], (81, 1))
    puzzle = np.zeros((400, 81), dtype=int)
    d = decode(puzzle, constant_model(probs), "vanilla", 81, seed=0)
    first = np.flatnonzero(d.step.T == 0) // 400  # the cell taken at step 0 in each row
    assert np.bincount(first, minlength=81).max() < 20  # uniform: mean 4.9 per cell
    freq = np.bincount(d.grids.ravel(), minlength=10)[1:] / d.grids.size
    np.testing.assert_allclose(freq[:3], [0.7, 0.2, 0.1], atol=0.01)


def test_teacher_forcing_with_the_exact_model_costs_nothing(data):
    puzzles, solutions = data

    def exact(tokens):
        return np.eye(9)[solutions[: len(tokens)] - 1]

    d = decode(puzzles, exact, "vanilla", 50, seed=0, answers=solutions)
    assert (d.grids == solutions).all()
    np.testing.assert_allclose(d.loss[puzzles == 0], 0.0, atol=1e-9)
    assert np.isnan(d.loss[puzzles > 0]).all()
    assert accuracy(solve(puzzles, exact, "vanilla", 50, seed=0), solutions) == 1.0


def test_analytic_model_separates_the_orders(data):
    puzzles, solutions = data
    acc = {s: accuracy(solve(puzzles, legal_candidates, s, 50, seed=0), solutions)
           for s in ("vanilla", "top_prob", "top_margin")}  # fmt: skip
    assert acc["top_prob"] >= 0.95 and acc["top_margin"] >= 0.95 and acc["vanilla"] <= 0.2


def test_peer_attention_sees_only_peers():
    torch.manual_seed(0)
    model = SudokuMDM(MDMConfig(d_model=16, n_layer=1, n_head=2, d_ff=32, peer_attention=True))
    x = torch.zeros(1, 81, dtype=torch.long)
    y = x.clone()
    far = [c for c in range(81) if c not in PEERS[0] and c != 0]
    y[0, far] = 5
    with torch.no_grad():
        torch.testing.assert_close(model(x)[0, 0], model(y)[0, 0])
        assert not torch.allclose(model(x)[0, far[0]], model(y)[0, far[0]])


def test_mdm_loss_of_a_uniform_model_is_closed_form(data):
    """T = 1: every blank is masked with weight T - t = 1; uniform logits cost
    alpha (1 - 1/9)^gamma log 9 per masked cell."""
    puzzles, solutions = data
    model = SudokuMDM(TINY)
    with torch.no_grad():
        model.head.weight.zero_()
        model.head.bias.zero_()
    gen = torch.Generator().manual_seed(0)
    loss = mdm_loss(model, torch.as_tensor(puzzles), torch.as_tensor(solutions), gen, T=1)
    expected = 0.25 * (8 / 9) * np.log(9)
    assert abs(loss.item() - expected) < 1e-5


def held_out_loss(model, puzzles, solutions) -> float:
    """The MDM loss averaged over 8 fixed draws of the masks."""
    gen = torch.Generator().manual_seed(123)
    p, s = torch.as_tensor(puzzles), torch.as_tensor(solutions)
    with torch.no_grad():
        return float(np.mean([mdm_loss(model, p, s, gen).item() for _ in range(8)]))


def test_training_lowers_the_loss_and_weights_round_trip(data):
    puzzles, solutions = data
    torch.manual_seed(0)  # train_mdm seeds torch the same way before building its model
    before = held_out_loss(SudokuMDM(TINY), puzzles, solutions)
    log = train_mdm(puzzles, solutions, config=TINY, steps=80, batch=16, lr=3e-3, warmup=5)
    assert held_out_loss(log.model, puzzles, solutions) < 0.97 * before  # measured: 0.94
    assert log.puzzles_per_second > 0 and log.loss.shape == (80,)
    again = load_model(state_dict_numpy(log.model), TINY)
    x = torch.as_tensor(puzzles[:2])
    with torch.no_grad():
        torch.testing.assert_close(again(x), log.model(x))
    assert sum(p.numel() for p in SudokuMDM(MDMConfig.paper()).parameters()) > 5_000_000


def test_bad_arguments(data):
    puzzles, solutions = data
    with pytest.raises(ValueError, match="strategy"):
        decode(puzzles, legal_candidates, "random")
    with pytest.raises(ValueError, match="steps"):
        decode(puzzles, legal_candidates, steps=0)
    with pytest.raises(ValueError, match="gumbel"):
        decode(puzzles, legal_candidates, gumbel=-1.0)
    with pytest.raises(ValueError, match="answers"):
        decode(puzzles, legal_candidates, answers=solutions[:3])
    with pytest.raises(ValueError, match="model"):
        solve(puzzles, "not a model")
    with pytest.raises(ValueError, match="puzzles"):
        solve(puzzles[:, :80], legal_candidates)
    with pytest.raises(ValueError, match="predicted"):
        accuracy(solutions[:3], solutions)
    with pytest.raises(ValueError, match="solutions"):
        train_mdm(puzzles, np.roll(solutions, 1, axis=0), config=TINY, steps=1)
    with pytest.raises(ValueError, match="steps"):
        train_mdm(puzzles, solutions, config=TINY, steps=0)
    with pytest.raises(ValueError, match="lr"):
        train_mdm(puzzles, solutions, config=TINY, steps=1, lr=0.0)
    with pytest.raises(ValueError, match="n_head"):
        SudokuMDM(MDMConfig(d_model=10, n_head=3))


def test_adaptive_decode_is_generic():
    """Another vocabulary, length and mask id: 6 tokens, [MASK] = 2, length 12; the model is
    sure of position j's token (j % 5 mapped past the mask) with confidence rising with j."""
    L, V, mask = 12, 6, 2
    conf = np.linspace(0.3, 0.95, L)  # (L,)
    target = np.array([j % 5 if j % 5 < mask else j % 5 + 1 for j in range(L)])  # never 2

    def logits_fn(tokens):
        p = np.full((len(tokens), L, V), 1e-3)
        p[:, np.arange(L), target] = conf
        return np.log(p)

    tokens = np.full((3, L), mask)
    tokens[:, 0] = 5  # given, never changed
    d = adaptive_decode(tokens, logits_fn, mask, "top_prob", steps=L - 1, seed=0, answers=None)
    assert (d.tokens != mask).all() and (d.tokens[:, 0] == 5).all()
    # one position per step, the most confident first: position L-1 at step 0, 1 last
    assert (d.step[:, L - 1] == 0).all() and (d.step[:, 1] == L - 2).all()
    forced = adaptive_decode(tokens, logits_fn, mask, "vanilla", 4, seed=1,
                             answers=np.where(tokens == mask, target, 5))  # fmt: skip
    expected = -np.log(conf / (conf + (V - 2) * 1e-3))  # [MASK] excluded from the softmax
    np.testing.assert_allclose(forced.loss[:, 1:], np.broadcast_to(expected[1:], (3, L - 1)))
    torch_fn = lambda t: torch.as_tensor(logits_fn(t))  # noqa: E731  a torch tensor works too
    again = adaptive_decode(tokens, torch_fn, mask, "top_prob", steps=L - 1, seed=0)
    np.testing.assert_array_equal(again.tokens, d.tokens)
    with pytest.raises(ValueError, match="logits_fn"):
        adaptive_decode(tokens, lambda t: np.zeros((3, L)), mask)
    with pytest.raises(ValueError, match="vocabulary"):
        adaptive_decode(np.where(tokens == 5, 9, tokens), logits_fn, mask)  # 9 >= V
    with pytest.raises(ValueError, match="tokens"):
        adaptive_decode(tokens.astype(float), logits_fn, mask)
    with pytest.raises(ValueError, match="mask_id"):
        adaptive_decode(tokens, logits_fn, -1)
    with pytest.raises(ValueError, match="answers"):
        adaptive_decode(tokens, logits_fn, mask, answers=tokens)


def test_order_losses_of_the_analytic_and_exact_models(data):
    puzzles, solutions = data
    ratios = [0.2, 0.5, 0.9]
    rand, solver = order_losses(legal_candidates, puzzles, solutions, ratios, seed=0)
    # the solver's next round is deducible by one round of singles: the analytic model is sure
    np.testing.assert_allclose(solver, 0.0, atol=1e-9)
    assert rand[-1] > 0.1 and rand[0] < rand[-1]  # random masks hide cells singles cannot fix

    def exact(tokens):
        return np.eye(9)[solutions[: len(tokens)] - 1]

    rand, solver = order_losses(exact, puzzles, solutions, ratios, seed=0)
    np.testing.assert_allclose(np.r_[rand, solver], 0.0, atol=1e-9)
    with pytest.raises(ValueError, match="ratios"):
        order_losses(exact, puzzles, solutions, [0.0, 0.5])
    hard, hard_s = make_puzzles(2, (30, 36), "hard", seed=0, pool=4)
    with pytest.raises(ValueError, match="singles"):
        order_losses(exact, hard, hard_s, ratios)
