"""predator_rl: our DQN against Stable-Baselines3's DQN (and the official negative-memory
buffer) on the same arena and settings; then (``--throughput``) environment steps per second
and training throughput.

Anchor: the official code (hanshuo-shuo/Of-Mice-and-Machines-) trains on CellWorld, whose
package downloads its worlds at run time, and its VP-TD-MPC2 needs that environment too; its
model-free route is Stable-Baselines3 (``Model-free-training/sac_train.py``: SB3 DQN / SAC,
with ``PTSDReplayBuffer`` drawing 70% of each batch from negative-reward transitions). So the
anchor is SB3's ``DQN`` on 16 copies of our ``PreyArenaEnv`` (exploring starts 0.5, as our
training), run in its own interpreter (``--official-python``, a venv with stable-baselines3 and
this repository's ``src`` on its path), with the settings of ours (``anchor_configs``), and, if
``--official-src`` gives a checkout, with the official ``PTSDReplayBuffer`` against ours at
``negative_fraction = 0.7``, ``negative_scale = 1``. Both are evaluated by our ``evaluate``
(200 greedy episodes from the start cell). Our agent runs with one Q head (SB3 has no ensemble).

Throughput (``--throughput``): a per-step Python arena written for the comparison (a naive
loop: it walks each line of sight and runs a breadth-first search at every step, the same
rules as ``VecPreyArena``) against ``PreyArenaEnv`` and ``VecPreyArena``; transitions and
gradient updates per second of ``train`` at the reproduction's sizes.

    OMP_NUM_THREADS=1 python benchmarks/bench_predator_rl.py \\
        --official-python /tmp/anchors/venv-predator_rl/bin/python \\
        --official-src /tmp/anchors/predator_rl
    OMP_NUM_THREADS=1 python benchmarks/bench_predator_rl.py --throughput
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.predator_rl import (  # noqa: E402
    AgentConfig,
    ArenaConfig,
    PreyArenaEnv,
    TrainConfig,
    VecPreyArena,
    make_layout,
    train,
)
from icml25.predator_rl.training import evaluate  # noqa: E402

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


ANCHOR_STEPS = 800  # vector steps of 16 arenas per agent (the reproduction: 6000)


def anchor_configs(steps: int):
    """The shared settings: the reproduction's arena and training, one Q network (SB3's DQN has
    no ensemble), Huber loss, Adam 1e-3, gamma 0.97, batch 128, buffer 50,000, epsilon 1 ->
    0.05 over 40% of training, Polyak tau 0.02 every vector step, gradient norm clip 10."""
    arena = ArenaConfig(max_steps=100, predator_speed=1.0)
    train_config = TrainConfig(num_envs=16, steps=steps, warmup=100, eval_episodes=200)
    return arena, train_config


class SB3Policy:
    """A trained SB3 model behind our agents' ``act`` (greedy), for our evaluation routine."""

    def __init__(self, model) -> None:
        self.model = model

    def act(self, obs: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        return self.model.predict(obs, deterministic=True)[0]


def sb3_run(seed: int, steps: int, ptsd_src: str | None) -> dict:
    """SB3 DQN (with the official ``PTSDReplayBuffer`` if ``ptsd_src``) on 16 ``PreyArenaEnv``
    with exploring starts; then our greedy evaluation (200 episodes from the start cell)."""
    from stable_baselines3 import DQN  # noqa: PLC0415
    from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: PLC0415

    torch.set_num_threads(1)
    arena, tc = anchor_configs(steps)
    layout = make_layout("occluded", size=11)
    explore = replace(arena, random_start=tc.random_start)
    env = DummyVecEnv([lambda: PreyArenaEnv(layout, explore)] * tc.num_envs)
    env.seed(seed)
    extra = {}
    if ptsd_src:
        sys.path.insert(0, str(Path(ptsd_src) / "Model-free-training"))
        from ptsdbuffer import PTSDReplayBuffer  # noqa: PLC0415  (the official buffer)

        extra["replay_buffer_class"] = PTSDReplayBuffer
    np.random.seed(seed)  # the official buffer samples from numpy's global generator
    model = DQN(
        "MlpPolicy",
        env,
        learning_rate=1e-3,
        buffer_size=50_000,
        learning_starts=tc.warmup * tc.num_envs,
        batch_size=128,
        tau=0.02,
        gamma=0.97,
        train_freq=1,
        gradient_steps=1,
        target_update_interval=1,
        exploration_fraction=0.4,
        exploration_initial_eps=1.0,
        exploration_final_eps=0.05,
        max_grad_norm=10.0,
        policy_kwargs={"net_arch": [64, 64]},
        seed=seed,
        device="cpu",
        verbose=0,
        **extra,
    )
    begin = time.perf_counter()
    model.learn(total_timesteps=steps * tc.num_envs)
    seconds = time.perf_counter() - begin
    final, _ = evaluate(SB3Policy(model), layout, tc.eval_episodes, seed + 1, arena)
    return {"seconds": seconds, **final}


def ours_run(seed: int, steps: int, negative_fraction: float | None) -> dict:
    arena, tc = anchor_configs(steps)
    agent = AgentConfig(heads=1, negative_fraction=negative_fraction, negative_scale=1.0)
    begin = time.perf_counter()
    out = train(make_layout("occluded", size=11), agent, tc, seed=seed, arena_config=arena)
    return {"seconds": time.perf_counter() - begin, **out["final"]}


def anchor(seeds: int, steps: int, python: str, official_src: str | None) -> str:
    """Per setting and seed, ours in this process and SB3 in the anchor's interpreter,
    alternated; mean over seeds and seed spread of the capture and success rates."""
    settings = [("plain DQN", None)]
    if official_src:
        settings.append(("70% negative memories (official PTSDReplayBuffer)", 0.7))
    rows = []
    for label, fraction in settings:
        got = {"ours": [], "sb3": []}
        for seed in range(seeds):
            got["ours"].append(ours_run(seed, steps, fraction))
            if python:
                code = [python, __file__, "--sb3", str(seed), str(steps)]
                code += [official_src] if fraction else []
                env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
                out = subprocess.run(code, capture_output=True, text=True, check=True, env=env)
                got["sb3"].append(json.loads(out.stdout.strip().splitlines()[-1]))
        for key in ("capture_rate", "success_rate"):
            a = np.array([r[key] for r in got["ours"]])
            b = np.array([r[key] for r in got["sb3"]]) if got["sb3"] else np.full(1, np.nan)
            t_a = float(np.mean([r["seconds"] for r in got["ours"]]))
            t_b = float(np.mean([r["seconds"] for r in got["sb3"]])) if got["sb3"] else np.nan
            rows.append(
                [
                    label,
                    key,
                    seeds,
                    t_a,
                    t_b,
                    t_b / t_a,
                    float(a.mean()),
                    float(b.mean()),
                    float(a.mean() - b.mean()),
                    float(a.std()),
                    float(b.std()),
                ]
            )
    return table(ANCHOR_HEADER, rows)


ANCHOR_HEADER = [
    "setting",
    "result",
    "seeds",
    "ours train s",
    "SB3 train s",
    "time ratio (SB3 / ours)",
    "ours",
    "SB3",
    "difference (ours - SB3)",
    "ours seed sd",
    "SB3 seed sd",
]


def throughput() -> None:
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


def main() -> None:
    torch.set_num_threads(1)
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--sb3":
        src = sys.argv[4] if len(sys.argv) == 5 else None
        print(json.dumps(sb3_run(int(sys.argv[2]), int(sys.argv[3]), src)))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\\n")[0])
    parser.add_argument("--official-python", help="an interpreter with stable-baselines3")
    parser.add_argument("--official-src", help="a checkout of the official repository")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=ANCHOR_STEPS)
    parser.add_argument("--throughput", action="store_true", help="the other tables")
    args = parser.parse_args()
    if args.throughput:
        throughput()
        return
    if not args.official_python:
        print(
            "no --official-python: the SB3 columns are NaN; make a venv with stable-baselines3"
            " and pass its python (and --official-src, a checkout of"
            " hanshuo-shuo/Of-Mice-and-Machines-, for the official buffer)",
            flush=True,
        )
    print(f"threads: {torch.get_num_threads()}, {args.steps} vector steps of 16 arenas")
    print(anchor(args.seeds, args.steps, args.official_python, args.official_src))


if __name__ == "__main__":
    main()
