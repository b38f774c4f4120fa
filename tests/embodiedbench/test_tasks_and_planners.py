"""Task subsets, the planners that are not language models, and the planner loop."""

import numpy as np
import pytest

from icml25.embodiedbench import objects as ob
from icml25.embodiedbench.env import NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.planners import (
    HeuristicPlanner,
    OraclePlanner,
    Plan,
    RandomPlanner,
    read_target,
)
from icml25.embodiedbench.render import render
from icml25.embodiedbench.route import shortest_moves
from icml25.embodiedbench.tasks import SUBSETS, base_tasks, subset


@pytest.fixture(scope="module")
def tasks():
    return base_tasks(6, np.random.default_rng(0))


def test_base_tasks_start_with_the_target_in_view_and_within_reach(tasks):
    for t in tasks:
        kind = t.target_type
        assert (render(t.room, t.start) == kind.rgb).all(axis=-1).sum() >= 6
        assert len(shortest_moves(t.room, t.start, t.room.positions[t.target])) <= 14
        assert kind.name in t.instruction


def test_subsets_reword_or_turn_the_same_tasks(tasks):
    rng = np.random.default_rng(1)
    by = {name: subset(tasks, name, rng) for name in SUBSETS}
    for k, base in enumerate(tasks):
        kind = base.target_type
        long = by["long_horizon"][k]
        assert long.room is base.room and long.instruction == base.instruction
        assert long.start.heading == (base.start.heading + 180) % 360
        assert not (render(long.room, long.start) == kind.rgb).all(axis=-1).any()
        assert kind.name not in by["common_sense"][k].instruction
        visual = by["visual_appearance"][k].instruction
        assert kind.name not in visual and kind.colour_name in visual
        assert kind.name in by["complex_instruction"][k].instruction
    with pytest.raises(ValueError, match="name"):
        subset(tasks, "spatial", rng)


@pytest.mark.parametrize(
    "text, name",
    [
        ("navigate to the Mug in the room", "Mug"),
        ("Go to the small red round object.", "Apple"),
        ("I left the Book by the Lamp. Please go to the Lamp.", "Book"),  # first word wins
        ("I am looking for something to drink my hot coffee from.", None),
    ],
)
def test_read_target_reads_words_not_sentences(text, name):
    found = read_target(text)
    assert (found.name if found else None) == name


def test_oracle_solves_every_task_and_random_rarely_does(tasks):
    env = NavigationEnv()
    for t in tasks:
        episode = run_episode(env, OraclePlanner(env), t)
        assert episode.success and episode.steps == len(
            shortest_moves(t.room, t.start, t.room.positions[t.target])
        )
    random = [run_episode(env, RandomPlanner(np.random.default_rng(0)), t) for t in tasks]
    assert all(e.steps == 20 for e in random if not e.success)


def test_heuristic_reaches_a_visible_target_and_fails_without_a_name(tasks):
    env = NavigationEnv()
    assert np.mean([run_episode(env, HeuristicPlanner(), t).success for t in tasks]) >= 0.5
    rng = np.random.default_rng(2)
    for t in subset(tasks, "common_sense", rng):
        assert read_target(t.instruction) is None


def test_episode_stops_at_the_step_limit_and_rejects_empty_plans(tasks):
    class Stuck:
        def reset(self, instruction, actions):
            pass

        def plan(self, image, history):
            return Plan([4])  # turn forever

    episode = run_episode(NavigationEnv(max_steps=7), Stuck(), tasks[0])
    assert (episode.success, episode.steps) == (False, 7)

    class Empty(Stuck):
        def plan(self, image, history):
            return Plan([])

    with pytest.raises(ValueError, match="no action"):
        run_episode(NavigationEnv(), Empty(), tasks[0])


def test_env_rejects_bad_input(tasks):
    env = NavigationEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(tasks[0])
    for bad in (8, -1, 1.5, True):
        with pytest.raises(ValueError, match="action"):
            env.step(bad)
    with pytest.raises(TypeError, match="task"):
        env.reset("task")
    with pytest.raises(ValueError, match="width"):
        NavigationEnv(width=4)
    with pytest.raises(ValueError, match="n must"):
        base_tasks(0, np.random.default_rng(0))


def test_catalogue_objects_named_by_complex_instructions_are_in_the_room(tasks):
    rng = np.random.default_rng(5)
    for t in subset(tasks, "complex_instruction", rng):
        named = [k.name for k in ob.CATALOGUE if k.name in t.instruction]
        room_names = {ob.CATALOGUE[i].name for i in t.room.objects}
        assert set(named) <= room_names


def test_the_explanation_cells_vary_the_heuristic_on_a_batch():
    from icml25.embodiedbench.explain import explain
    from icml25.embodiedbench.reproduce import SCALES, benchmark

    config = SCALES["smoke"]
    out = explain(benchmark(config, 0), config.width, config.height, settings=((20, 3), (20, 0)))
    assert list(out) == ["steps=20,turns=3", "steps=20,turns=0"]
    assert out["steps=20,turns=3"]["base"].shape == (config.tasks_per_batch,)
    # never turning, it never sees a target behind it
    assert out["steps=20,turns=0"]["long_horizon"].sum() == 0
