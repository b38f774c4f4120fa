"""predator_rl: environment steps per second and training throughput.

The anchor is what a user would write first: a per-step Python arena that computes the
predator's line of sight by walking along the segment and its path by breadth-first search at
every step (the same rules as ``VecPreyArena``). Ours precomputes the visibility and next-hop
tables once per layout and steps E arenas in one numpy call; ``PreyArenaEnv`` is the same core
with E = 1 behind Gymnasium's API. Training throughput: transitions and gradient updates per
second of ``train`` at the reproduction's sizes. If Stable-Baselines3 is importable, its DQN is
trained briefly on ``PreyArenaEnv`` unchanged (not run in CI).

    OMP_NUM_THREADS=1 python benchmarks/bench_predator_rl.py
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.predator_rl import (  # noqa: E402
    AgentConfig,
    PreyArenaEnv,
    TrainConfig,
    VecPreyArena,
    make_layout,
    train,
)

MOVES = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)]


class NaiveArena:
    """One arena, pure Python, everything computed when needed."""

    def __init__(self, walls: np.ndarray, start, goal, seed: int) -> None:
        self.walls = walls.tolist()
        self.H, self.W = walls.shape
        self.start, self.goal = start, goal
        self.free = [(r, c) for r in range(self.H) for c in range(self.W) if not self.walls[r][c]]
        self.rng = random.Random(seed)

    def sees(self, a, b) -> bool:
        steps = 4 * max(self.H, self.W) + 1
        for k in range(steps):
            t = k / (steps - 1)
            y, x = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            for r in {int(np.ceil(y - 0.5 - 1e-9)), int(np.floor(y + 0.5 + 1e-9))}:
                for c in {int(np.ceil(x - 0.5 - 1e-9)), int(np.floor(x + 0.5 + 1e-9))}:
                    if 0 <= r < self.H and 0 <= c < self.W and self.walls[r][c]:
                        return False
        return True

    def next_hop(self, a, b):
        """Breadth-first search from b; the neighbour of a closest to b."""
        dist = {b: 0}
        queue = deque([b])
        while queue:
            r, c = queue.popleft()
            for dr, dc in MOVES[1:]:
                n = (r + dr, c + dc)
                if (
                    0 <= n[0] < self.H
                    and 0 <= n[1] < self.W
                    and not self.walls[n[0]][n[1]]
                    and n not in dist
                ):
                    dist[n] = dist[(r, c)] + 1
                    queue.append(n)
        if a == b:
            return a
        options = [(a[0] + dr, a[1] + dc) for dr, dc in MOVES[1:]]
        return min((n for n in options if n in dist), key=lambda n: dist[n])

    def reset(self):
        self.prey = self.start
        hidden = [c for c in self.free if not self.sees(self.start, c)]
        self.predator = self.destination = self.rng.choice(hidden)
        self.t = 0

    def step(self, action: int):
        r, c = self.prey[0] + MOVES[action][0], self.prey[1] + MOVES[action][1]
        if 0 <= r < self.H and 0 <= c < self.W and not self.walls[r][c]:
            self.prey = (r, c)
        self.t += 1
        if self.prey == self.goal:
            return 1.0, True
        near = abs(self.prey[0] - self.predator[0]) + abs(self.prey[1] - self.predator[1]) <= 1
        if near:
            return -1.0, True
        if self.sees(self.predator, self.prey):
            self.destination = self.prey
        elif self.predator == self.destination:
            hidden = [x for x in self.free if not self.sees(self.predator, x)]
            self.destination = self.rng.choice(hidden or self.free)
        self.predator = self.next_hop(self.predator, self.destination)
        near = abs(self.prey[0] - self.predator[0]) + abs(self.prey[1] - self.predator[1]) <= 1
        return (-1.0, True) if near else (0.0, self.t >= 100)


def naive_steps(n: int) -> int:
    layout = make_layout("occluded")
    arena = NaiveArena(layout.walls, layout.start, layout.goal, seed=0)
    rng = random.Random(1)
    arena.reset()
    for _ in range(n):
        _, done = arena.step(rng.randrange(5))
        if done:
            arena.reset()
    return n


def single_steps(n: int) -> int:
    env = PreyArenaEnv("occluded")
    env.reset(seed=0)
    rng = np.random.default_rng(1)
    actions = rng.integers(0, 5, n)
    for a in actions:
        _, _, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            env.reset()
    return n


def vector_steps(n: int, envs: int) -> int:
    env = VecPreyArena(make_layout("occluded"), envs, seed=0)
    rng = np.random.default_rng(1)
    for _ in range(n):
        _, _, terminated, truncated, _ = env.step(rng.integers(0, 5, envs))
        env.reset(terminated | truncated)
    return n * envs


def sb3_dqn() -> str:
    if importlib.util.find_spec("stable_baselines3") is None:
        return "stable-baselines3 not installed: skipped (pip install stable-baselines3)"
    from stable_baselines3 import DQN

    begin = time.perf_counter()
    model = DQN("MlpPolicy", PreyArenaEnv("occluded"), learning_starts=500, seed=0, verbose=0)
    model.learn(total_timesteps=5000)
    return (
        f"stable-baselines3 DQN: 5000 steps on PreyArenaEnv in {time.perf_counter() - begin:.1f} s"
    )


def main() -> None:
    torch.set_num_threads(1)
    rows = []
    t, m, n = measure(lambda: naive_steps(2000), repeat=1)
    rows.append(["naive Python, 1 arena", n / t, 1.0, m])
    base = n / t
    t, m, n = measure(lambda: single_steps(20000), repeat=2)
    rows.append(["PreyArenaEnv (Gymnasium), 1 arena", n / t, n / t / base, m])
    for envs in (16, 256, 4096):
        t, m, n = measure(lambda envs=envs: vector_steps(200, envs), repeat=2)
        rows.append([f"VecPreyArena, {envs} arenas", n / t, n / t / base, m])
    print(table(["environment", "steps/s", "speed-up vs naive", "peak MB"], rows), flush=True)

    layout = make_layout("occluded")
    config = TrainConfig(steps=600, warmup=100, eval_episodes=50)
    for name, agent in (
        ("plain", AgentConfig()),
        ("both", AgentConfig(penalty=0.2, negative_fraction=0.35, negative_scale=200.0)),
    ):
        begin, cpu = time.perf_counter(), time.process_time()
        train(layout, agent, config, seed=0)
        seconds, cpu = time.perf_counter() - begin, time.process_time() - cpu
        transitions, updates = config.steps * config.num_envs, config.steps - config.warmup
        print(
            f"training ({name}, 16 arenas, 1 thread, 600 vector steps + 50 evaluation "
            f"episodes): {transitions / seconds:.0f} transitions/s and {updates / seconds:.0f} "
            f"updates/s of wall time; {transitions / cpu:.0f} and {updates / cpu:.0f} per CPU "
            "second (batch 128, 5 heads)",
            flush=True,
        )
    print(sb3_dqn())


if __name__ == "__main__":
    main()
