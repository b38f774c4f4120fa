import numpy as np
import pytest

from icml25.gpt_causal.othello import (
    SQUARES,
    flips,
    initial_boards,
    legal_moves,
    play_games,
    popcount,
    to_mask,
)
from icml25.gpt_causal.othello_reference import ReferenceOthello


def _bits(squares) -> np.ndarray:
    return np.array([sum(1 << s for s in squares)], dtype=np.uint64)


def test_opening_moves_and_flips():
    own, opp = initial_boards(1)
    # black (2,3), (3,2) against white (2,2), (3,3): four bracketing moves
    assert set(np.flatnonzero(to_mask(legal_moves(own, opp))[0])) == {8, 13, 22, 27}
    assert set(ReferenceOthello().legal_moves()) == {8, 13, 22, 27}
    assert set(np.flatnonzero(to_mask(flips(own, opp, np.array([8])))[0])) == {14}
    assert ReferenceOthello().flips(8) == [14]


def test_pass_and_game_end_positions():
    # the side to move holds (1,1) and cannot bracket (0,0); the opponent can, by (2,2)
    own, opp = _bits([7]), _bits([0])
    assert legal_moves(own, opp)[0] == 0
    assert set(np.flatnonzero(to_mask(legal_moves(opp, own))[0])) == {14}
    # nobody can move: the opponent owns nothing to bracket
    assert legal_moves(_bits([0, 1]), _bits([]))[0] == 0
    ref = ReferenceOthello()
    ref.board = [[0] * 6 for _ in range(6)]
    ref.board[1][1], ref.board[0][0] = 1, -1
    assert ref.legal_moves() == []
    ref.player = -1
    assert ref.legal_moves() == [14]


def _replay(moves: np.ndarray):
    """Boards after every ply with the engine's primitives: (own black, opp white) per ply."""
    n = len(moves)
    own, opp = initial_boards(n)
    black_to_move = np.ones(n, dtype=bool)
    boards = []
    for t in range(moves.shape[1]):
        stuck = legal_moves(own, opp) == 0
        own, opp = np.where(stuck, opp, own), np.where(stuck, own, opp)
        black_to_move ^= stuck
        m = moves[:, t]
        alive = m >= 0
        f = flips(own, opp, np.maximum(m, 0))
        bit = np.left_shift(np.uint64(1), np.maximum(m, 0).astype(np.uint64))
        own = np.where(alive, own | f | bit, own)
        opp = np.where(alive, opp & ~f, opp)
        own, opp = np.where(alive, opp, own), np.where(alive, own, opp)
        black_to_move ^= alive
        black = np.where(black_to_move, own, opp)
        white = np.where(black_to_move, opp, own)
        boards.append((to_mask(black), to_mask(white)))
    return boards


@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_random_games_agree_with_the_reference_engine(policy):
    moves, legal = play_games(40, np.random.default_rng(1), policy)
    boards = _replay(moves)
    for g in range(len(moves)):
        ref = ReferenceOthello()
        for t in range(moves.shape[1] + 1):
            assert set(np.flatnonzero(legal[g, t])) == set(ref.legal_moves()), (g, t)
            if t == moves.shape[1] or moves[g, t] < 0:
                assert ref.legal_moves() == []  # the game ended: nobody can move
                break
            ref.play(int(moves[g, t]))
            black, white = boards[t]
            assert set(np.flatnonzero(black[g])) == ref.stones(1), (g, t)
            assert set(np.flatnonzero(white[g])) == ref.stones(-1), (g, t)


def test_greedy_player_without_noise_maximises_flips():
    moves, _ = play_games(20, np.random.default_rng(2), "greedy", epsilon=0.0)
    for g in range(len(moves)):
        ref = ReferenceOthello()
        for m in moves[g][moves[g] >= 0]:
            best = max(len(ref.flips(s)) for s in ref.legal_moves())
            assert len(ref.flips(int(m))) == best
            ref.play(int(m))


def test_popcount_and_mask():
    b = np.array([0, 1, (1 << SQUARES) - 1], dtype=np.uint64)
    assert popcount(b).tolist() == [0, 1, SQUARES]
    assert to_mask(b).sum(axis=1).tolist() == [0, 1, SQUARES]


@pytest.mark.parametrize(
    "kwargs, match",
    [({"policy": "smart"}, "policy"), ({"epsilon": 1.5}, "epsilon"), ({"n": 0}, "n must")],
)
def test_bad_inputs(kwargs, match):
    args = {"n": 2, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(ValueError, match=match):
        play_games(**args)


def test_reference_rejects_an_illegal_move():
    with pytest.raises(ValueError, match="not a legal move"):
        ReferenceOthello().play(0)


def test_an_occupied_square_flips_nothing():
    ref = ReferenceOthello()
    for square in (27, 16, 11):
        ref.play(square)
    own = _bits([s for s in range(SQUARES) if ref.board[s // 6][s % 6] == ref.player])
    opp = _bits([s for s in range(SQUARES) if ref.board[s // 6][s % 6] == -ref.player])
    assert ref.board[27 // 6][27 % 6] != 0 and ref.flips(27) == []
    for square in range(SQUARES):  # occupied squares, and every other, agree with the reference
        got = np.flatnonzero(to_mask(flips(own, opp, np.array([square])))[0])
        assert sorted(got.tolist()) == sorted(ref.flips(square)), square
