"""The arena and the environment: Gymnasium's checker, lines of sight, the predator, capture,
seeding, bad layouts."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from icml25.predator_rl import (
    ArenaConfig,
    Layout,
    PreyArenaEnv,
    VecPreyArena,
    line_of_sight,
    make_layout,
)

pytestmark = pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes")


def grid(rows):
    """A layout from strings: '#' obstacle, 'S' start, 'G' goal, '.' free."""
    walls = np.array([[ch == "#" for ch in row] for row in rows])
    find = {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in "SG"}
    return Layout(walls, find["S"], find["G"])


@pytest.mark.parametrize("kind", ["occluded", "open", "random"])
def test_check_env_passes(kind):
    env = PreyArenaEnv(kind, render_mode="rgb_array", layout_seed=3)
    check_env(env, skip_render_check=False)
    env.reset(seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.shape == (11 * 16, 11 * 16, 3)


def test_line_of_sight_on_hand_made_layouts():
    walls = np.zeros((5, 5), bool)
    walls[2, 2] = True
    cells = np.array([[2, 0], [2, 4], [0, 0], [0, 4], [4, 4], [1, 0], [1, 4]])
    vis = line_of_sight(walls, cells, cells)
    assert not vis[0, 1]  # along the middle row, through the obstacle
    assert vis[2, 3] and vis[5, 6]  # rows 0 and 1 are clear
    assert not vis[2, 4]  # the diagonal through the centre
    assert (vis == vis.T).all() and vis.diagonal().all()
    # two obstacles touching at a corner block the diagonal between them
    corner = np.zeros((3, 3), bool)
    corner[0, 1] = corner[1, 0] = True
    assert not line_of_sight(corner, np.array([[0, 0]]), np.array([[1, 1]]))[0, 0]
    assert line_of_sight(np.zeros((3, 3), bool), np.array([[0, 0]]), np.array([[1, 1]]))[0, 0]


def test_predator_chases_what_it_sees_and_patrols_otherwise():
    layout = grid(["S.......G"])
    env = VecPreyArena(layout, 1, ArenaConfig(predator_speed=1.0), seed=0)
    env.prey[:] = layout.index[0, 1]
    env.predator[:] = env.destination[:] = layout.index[0, 6]
    env.step(np.array([0]))  # wait: the predator sees the prey and comes one cell closer
    assert layout.cells[env.predator[0]].tolist() == [0, 5]
    # behind a wall the predator does not head for the prey: it patrols to a cell it cannot see
    hidden = grid(["S.#...", "..#..G", "......"])
    env = VecPreyArena(hidden, 1, ArenaConfig(predator_speed=0.0), seed=0)
    env.prey[:] = hidden.index[0, 0]
    env.predator[:] = env.destination[:] = hidden.index[0, 4]
    env.step(np.array([0]))
    assert not hidden.visibility[hidden.index[0, 4], env.destination[0]]


def test_capture_ends_the_episode_with_the_capture_reward():
    env = PreyArenaEnv(grid(["S....", ".....", "....G"]), ArenaConfig(capture_reward=-3.0))
    env.reset(seed=0)
    core = env._core
    core.predator[:] = core.destination[:] = env.layout.index[1, 1]
    _, reward, terminated, truncated, info = env.step(4)  # right, next to the predator
    assert terminated and not truncated
    assert reward == -3.0 and info["outcome"] == -1 and not info["is_success"]


def test_goal_ends_the_episode_with_the_goal_reward():
    env = PreyArenaEnv(grid(["#####", "S.G..", "#####", ".....", "....."]))
    env.reset(seed=0)
    env._core.predator[:] = env._core.destination[:] = env.layout.index[4, 4]
    env.step(4)
    _, reward, terminated, _, info = env.step(4)
    assert terminated and reward == 1.0 and info["is_success"]


def test_seeding_gives_identical_episodes():
    def episode(seed):
        env = PreyArenaEnv("occluded")
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(7)
        trace = [obs]
        for _ in range(60):
            obs, reward, terminated, truncated, _ = env.step(int(rng.integers(5)))
            trace.append(np.append(obs, reward))
            if terminated or truncated:
                obs, _ = env.reset()
        return np.concatenate(trace)

    np.testing.assert_array_equal(episode(3), episode(3))
    assert not np.array_equal(episode(3), episode(4))


def test_vectorised_arenas_match_one_at_a_time():
    layout = make_layout("occluded")
    config = ArenaConfig(random_start=0.5)
    many = VecPreyArena(layout, 8, config, seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = rng.integers(0, 5, 8)
        before = many.prey.copy(), many.predator.copy()
        obs, reward, terminated, truncated, _ = many.step(actions)
        for i in range(8):  # the prey's move is the transition table's, per arena
            assert many.prey[i] == layout.transitions[before[0][i], actions[i]]
        assert obs.shape == (8, many.obs_dim) and obs[:, -1].tolist() == [
            bool(layout.visibility[p, q]) for p, q in zip(many.prey, many.predator, strict=True)
        ]
        many.reset(terminated | truncated)


def test_bad_layouts_and_arguments_raise():
    with pytest.raises(ValueError, match="no path"):
        grid(["S.#..", "..#.G", "..#.."])
    with pytest.raises(ValueError, match="start"):
        Layout(np.ones((3, 3), bool), (0, 0), (2, 2))
    with pytest.raises(ValueError, match="kind"):
        make_layout("maze")
    with pytest.raises(ValueError, match="actions"):
        VecPreyArena(num_envs=2).step(np.array([0, 7]))
    with pytest.raises(ValueError, match="random_start"):
        ArenaConfig(random_start=1.5)
    with pytest.raises(ValueError, match="num_envs"):
        VecPreyArena(num_envs=0)


def _orient(p, q, r):
    return np.sign((q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
                   - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0]))  # fmt: skip


def _on_segment(p, q, r):
    """r (collinear with p, q) lies within the bounding box of p, q."""
    return ((np.minimum(p, q) <= r) & (r <= np.maximum(p, q))).all(-1)


def _edge_line_of_sight(walls, a, b):
    """Reference in exact integer arithmetic (doubled coordinates): the segment meets an
    obstacle's closed square when it meets one of its four edges (a cell centre is never inside
    an obstacle)."""
    p, q = 2 * a[:, None, None, None], 2 * b[None, :, None, None]  # (A, 1, 1, 1, 2), (1, B, ...)
    corners = 2 * np.argwhere(walls)[:, None] + np.array([[-1, -1], [-1, 1], [1, 1], [1, -1]])
    e0, e1 = corners, np.roll(corners, -1, axis=1)  # (O, 4, 2): the edges of each square
    o1, o2, o3, o4 = _orient(p, q, e0), _orient(p, q, e1), _orient(e0, e1, p), _orient(e0, e1, q)
    meets = ((o1 * o2 < 0) & (o3 * o4 < 0)) | ((o1 == 0) & _on_segment(p, q, e0))
    meets |= (o2 == 0) & _on_segment(p, q, e1)
    meets |= ((o3 == 0) & _on_segment(e0, e1, p)) | ((o4 == 0) & _on_segment(e0, e1, q))
    return ~meets.any((-1, -2))


def test_line_of_sight_is_exact_on_the_arena():
    layout = make_layout("occluded")
    cells = layout.cells
    exact = line_of_sight(layout.walls, cells, cells)
    np.testing.assert_array_equal(exact, _edge_line_of_sight(layout.walls, cells, cells))
    np.testing.assert_array_equal(exact, exact.T)
