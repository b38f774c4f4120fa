import numpy as np
import pytest

from icml25.mdm_order import (
    augment,
    check_grids,
    count_solutions,
    make_puzzles,
    propagate,
    random_solutions,
    search_effort,
    singles_rounds,
    singles_solvable,
    solve_exact,
    to_candidates,
)
from icml25.mdm_order.sudoku import PEERS, UNITS

# a classic puzzle solved by singles (Wikipedia's example), and its solution
EASY = "530070000600195000098000060800060003400803001700020006060000280000419005000080079"
EASY_SOL = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def grid(text: str) -> np.ndarray:
    return np.array([int(c) for c in text])


def is_valid_solution(grids: np.ndarray) -> bool:
    units = np.sort(grids[:, UNITS], axis=2)  # (N, 27, 9)
    return bool((units == np.arange(1, 10)).all())


def test_units_and_peers():
    assert UNITS.shape == (27, 9) and PEERS.shape == (81, 20)
    assert (np.bincount(UNITS.ravel()) == 3).all()  # each cell in one row, column, box
    assert not (PEERS == np.arange(81)[:, None]).any()


def test_singles_solve_the_classic_and_exact_solver_agrees():
    cand, dead = propagate(to_candidates(grid(EASY)[None]))
    assert not dead[0]
    assert singles_solvable(grid(EASY))[0]
    np.testing.assert_array_equal(solve_exact(grid(EASY))[0], grid(EASY_SOL))


def deadly_rectangle(sol: np.ndarray) -> list[int] | None:
    """Four cells in two rows of one band and two columns of two stacks holding a b / b a:
    blanking them leaves exactly two solutions."""
    g = sol.reshape(9, 9)
    for r1 in range(9):
        for r2 in range(r1 + 1, 3 * (r1 // 3) + 3):
            for c1 in range(9):
                for c2 in range(3 * (c1 // 3) + 3, 9):
                    if g[r1, c1] == g[r2, c2] and g[r1, c2] == g[r2, c1]:
                        return [9 * r1 + c1, 9 * r1 + c2, 9 * r2 + c1, 9 * r2 + c2]
    return None


def test_count_solutions_counts_to_the_limit():
    sol = grid(EASY_SOL)
    counts, first = count_solutions(sol[None], limit=2)
    assert counts[0] == 1 and (first[0] == sol).all()
    assert count_solutions(np.zeros((1, 81), dtype=int), limit=5)[0][0] == 5
    for s in random_solutions(40, seed=3, pool=8):
        cells = deadly_rectangle(s)
        if cells is not None:
            break
    p = s.copy()
    p[cells] = 0
    assert count_solutions(p[None], limit=5)[0][0] == 2
    assert count_solutions(p[None], limit=1)[0][0] == 1


def test_unsolvable_puzzle_has_zero_solutions():
    p = np.zeros(81, dtype=int)
    p[0:8] = np.arange(1, 9)  # row 0: 1..8, cell 8 must be 9
    p[9 * 4 + 8] = 9  # but a 9 sits in column 8
    counts, first = count_solutions(p[None])
    assert counts[0] == 0 and (first[0] == 0).all()


def test_random_solutions_are_valid_and_diverse():
    sols = random_solutions(50, seed=0, pool=4)
    assert is_valid_solution(sols)
    assert len({s.tobytes() for s in sols}) == 50


@pytest.mark.parametrize("kind", ["singles", "hard"])
def test_generated_puzzles_are_unique_and_split_by_difficulty(kind):
    p, s = make_puzzles(6, (30, 36), kind, seed=1, pool=4)
    assert p.shape == s.shape == (6, 81)
    assert ((p == 0) | (p == s)).all()  # clues agree with the solution
    counts, first = count_solutions(p, limit=2)
    assert (counts == 1).all() and (first == s).all()
    assert (singles_solvable(p) == (kind == "singles")).all()
    if kind == "singles":
        assert ((p > 0).sum(1) >= 30).all()


def test_augment_keeps_validity_and_pairs():
    p, s = make_puzzles(8, (30, 36), "singles", seed=2, pool=4)
    p2, s2 = augment(p, s, np.random.default_rng(0))
    assert is_valid_solution(s2)
    assert ((p2 == 0) | (p2 == s2)).all() and ((p2 == 0).sum(1) == (p == 0).sum(1)).all()
    assert singles_solvable(p2).all()


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (np.zeros(80, dtype=int), "shape"),
        (np.full(81, 10), "digits"),
        (np.full(81, -1), "digits"),
        (np.full(81, 0.5), "integers"),
        (np.r_[1, 1, np.zeros(79, dtype=int)], "contradicts"),
        (np.zeros((0, 81), dtype=int), "shape"),
    ],
)
def test_bad_grids(value, match):
    with pytest.raises(ValueError, match=match):
        check_grids("puzzles", value)


def test_bad_arguments():
    with pytest.raises(ValueError, match="blanks|digits 1-9"):
        check_grids("solutions", np.zeros(81, dtype=int), blanks=False)
    with pytest.raises(ValueError, match="limit"):
        count_solutions(np.zeros(81, dtype=int), limit=0)
    with pytest.raises(ValueError, match="kind"):
        make_puzzles(2, (30, 36), "medium", seed=0)
    with pytest.raises(ValueError, match="givens"):
        make_puzzles(2, (36, 30), "singles", seed=0)
    with pytest.raises(ValueError, match="min_guesses"):
        make_puzzles(2, (30, 36), "hard", seed=0, min_guesses=0)
    with pytest.raises(ValueError, match="n must"):
        make_puzzles(0, (30, 36), "singles", seed=0)
    with pytest.raises(ValueError, match="exactly one"):
        solve_exact(np.zeros(81, dtype=int))


@pytest.fixture(scope="module")
def hard2():
    return make_puzzles(4, (30, 36), "hard", seed=4, pool=4, min_guesses=2)


def test_search_effort_measures_difficulty(hard2):
    easy, _ = make_puzzles(6, (30, 36), "singles", seed=4, pool=4)
    assert (search_effort(easy) == 0).all()  # singles alone: no guess
    hard, sol = hard2
    assert (search_effort(hard) >= 2).all()
    counts, first = count_solutions(hard, limit=2)
    assert (counts == 1).all() and (first == sol).all()
    # an empty grid has many solutions: proving a second one takes at least one guess
    assert search_effort(np.zeros(81, dtype=int))[0] >= 1


def test_singles_rounds_give_a_deducible_order(hard2):
    """Every blank of a singles puzzle gets a round, and with every cell of the earlier rounds
    filled in, one more round of singles fixes it (the analytic model is sure of it)."""
    from icml25.mdm_order import legal_candidates

    p, s = make_puzzles(8, (30, 36), "singles", seed=5, pool=4)
    rounds = singles_rounds(p)
    assert ((rounds == 0) == (p > 0)).all() and (rounds[p == 0] >= 1).all()
    for k in range(1, rounds.max() + 1):
        visible = np.where((rounds < k) & (rounds >= 0), s, 0)
        probs = legal_candidates(visible)  # (8, 81, 9)
        sure = np.take_along_axis(probs, (s - 1)[..., None], -1)[..., 0]
        assert (sure[rounds == k] == 1.0).all()
    assert (singles_rounds(hard2[0]) == -1).any(1).all()  # singles stall: some cells never fixed
