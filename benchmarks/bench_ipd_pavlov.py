"""ipd_pavlov: against the official notebook's loop (QB3/cooperation-prisoners-dilemma,
``coop_rl_self_play_tabular_qlearning.ipynb``), and deep Q-learning against the official DQN code
(small size) and its way re-written in torch tensors (the reproduction's size).

Tabular anchor: the notebook's own cells, read from ``--official-src`` at run time and executed
as they are (never copied here): cell 2 (the rewards), cell 4 (``Q0``), and the self-play loop of
cell 5. Row "fig3" runs cell 5 unchanged (alpha = 0.001, 2000 steps, epsilon in {.01, .05, .1},
10 curves each); the other rows drop cell 5's three setting lines (``max_iter``,
``list_epsilon``, ``n_curves``) and set those names (and ``alpha``) to the row's values before
running the rest of the cell. The notebook's ``rng`` (``check_random_state(6)`` in cell 1, which
also imports a plotting module the repository lacks) is set to ``RandomState(seed)``. Ours:
``self_play`` with the same alpha, epsilon, steps and number of runs. The random draws cannot be
matched (the notebook draws one number per player per step, ours a block per step for all runs),
so results are compared through their spread over seeds (the repeats use seeds 0, 1, ...).

The notebook's player 2 reads the shared table at player 1's state ``(a1, a2)`` (it plays the
same greedy action as player 1); ours reads it at its own view ``(a2, a1)``, a documented
choice (README, "The method"). The row "naive loop (own view)" is our scalar re-write of the
notebook's loop with that one line changed; it is not an anchor, it shows that the view alone
makes the difference.

Deep: the official code (``src/``, which imports hydra, wandb and gym) runs in its own venv
(``--official-python``), driven through its API (``IPD``, ``DQNAgent``, ``RandomAgent``,
``run_dqn``) by the short driver ``DQN_DRIVER`` with ``run_quentin.sh``'s settings, at 40
iterations (about 0.8 CPU s an iteration); at 400 iterations the anchor is its way re-written here
in torch tensors (every game played and every transition stored, one forward pass per sampled
transition). Ours: ``deep_self_play`` (counts per state and per transition).

    python benchmarks/bench_ipd_pavlov.py --official-src /tmp/anchors/ipd_pavlov \\
        --official-python /tmp/anchors/venv-ipd_pavlov/bin/python
    python benchmarks/bench_ipd_pavlov.py --official-src ... --quick     # tabular only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import torch  # noqa: E402
from harness import interleaved, table  # noqa: E402

from icml25.ipd_pavlov import PAVLOV, initial_q, payoffs, policy, self_play  # noqa: E402
from icml25.ipd_pavlov.deep import DQN_PAYOFFS, deep_self_play  # noqa: E402

NOTEBOOK = "coop_rl_self_play_tabular_qlearning.ipynb"
SETTING_LINES = ("max_iter =", "list_epsilon =", "n_curves =")


def notebook_cells(src: Path) -> tuple[str, str, str]:
    """The notebook's rewards cell, ``Q0`` cell and self-play cell, found by their content, with
    the self-play cell's setting lines dropped (the row sets those names)."""
    cells = json.loads((src / NOTEBOOK).read_text())["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    rewards = next(c for c in code if "rewards = np.zeros" in c)
    q0 = next(c for c in code if "Q0 = np.zeros" in c)
    loop = next(c for c in code if "dict_res[epsilon]" in c)
    loop = "\n".join(
        line for line in loop.splitlines() if not line.strip().startswith(SETTING_LINES)
    )
    return rewards, q0, loop


def notebook(cells, alpha: float, epsilon: float, steps: int, runs: int, seed: int) -> np.ndarray:
    """The notebook's loop at these settings: final ``Q(s, C) - Q(s, D)``, shape (runs, 4) over
    DD, DC, CD, CC (its ``diff_Q[a1, a2]`` flattened)."""
    rewards, q0, loop = cells
    ns = {"np": np, "gamma": 0.6, "alpha": alpha, "rng": np.random.RandomState(seed)}
    exec(rewards, ns)  # noqa: S102 - the official notebook's own cells, read at run time
    exec(q0, ns)  # noqa: S102
    ns.update(max_iter=steps, list_epsilon=[epsilon], n_curves=runs)
    exec(loop, ns)  # noqa: S102
    return ns["dict_res"][epsilon][:, -1].reshape(runs, 4)


def naive_own_view(alpha: float, epsilon: float, steps: int, runs: int, seed: int) -> np.ndarray:
    """Naive loop (not an anchor): the notebook's scalar loop with player 2 reading its own view
    ``Q[a2, a1]``, as ours does. Final ``Q(s, C) - Q(s, D)``, shape (runs, 4)."""
    rng = np.random.default_rng(seed)
    r, q0, gamma = payoffs(), initial_q().reshape(2, 2, 2), 0.6
    finals = []
    for _ in range(runs):
        q = q0.copy()
        a1 = a2 = 0
        for _ in range(steps):
            own, other = q[a1, a2].argmax(), q[a2, a1].argmax()
            b1 = own if rng.random() > epsilon else 1 - own
            b2 = other if rng.random() > epsilon else 1 - other
            q[a1, a2, b1] += alpha * (r[b1, b2] + gamma * q[b1, b2].max() - q[a1, a2, b1])
            a1, a2 = b1, b2
        finals.append((q[..., 1] - q[..., 0]).ravel())
    return np.stack(finals)


def ours(alpha: float, epsilon: float, steps: int, runs: int, seed: int) -> np.ndarray:
    q = self_play(alpha, epsilon, steps, runs, seed=seed)  # (runs, 4, 2)
    return q[..., 1] - q[..., 0]


def words(gaps: np.ndarray) -> np.ndarray:
    """Greedy policies of final gaps (..., 4), ties to D as in play."""
    q = np.stack([np.zeros_like(gaps), gaps], axis=-1)  # (..., 4, 2)
    return policy(q)


def tabular(src: Path | None) -> str:
    if src is None:
        print(
            "tabular anchor rows skipped: pass --official-src pointing at a checkout of "
            "github.com/QB3/cooperation-prisoners-dilemma (commit 1b2a919e), e.g. fetch it and "
            "`git archive HEAD | tar -x -C /tmp/anchors/ipd_pavlov`"
        )
        return ""
    cells = notebook_cells(src)
    settings = [  # name, alpha, epsilon, steps, runs, seeds, with the naive loop
        ("fig3", 1e-3, 0.01, 2_000, 10, 5, False),
        ("fig3", 1e-3, 0.05, 2_000, 10, 5, False),
        ("fig3", 1e-3, 0.1, 2_000, 10, 5, False),
        ("alpha T = 20", 1e-2, 0.05, 2_000, 100, 3, True),
        ("long", 5e-2, 0.02, 20_000, 25, 2, True),
    ]
    rows = []
    for name, alpha, epsilon, steps, runs, seeds, naive in settings:
        args = (alpha, epsilon, steps, runs)
        fns = {
            "ours": lambda seed, args=args: ours(*args, seed),
            "notebook": lambda seed, args=args: notebook(cells, *args, seed),
        }
        if naive:
            fns["naive loop (own view)"] = lambda seed, args=args: naive_own_view(*args, seed)
        best, results = interleaved(fns, seeds)
        pavlov = {k: np.array([np.mean(words(g) == PAVLOV) for g in v]) for k, v in results.items()}
        cccc = {
            k: float(np.mean([np.mean(words(g) == "CCCC") for g in v])) for k, v in results.items()
        }
        gap_cc = {k: float(np.mean([g[:, 3].mean() for g in v])) for k, v in results.items()}
        for other in [k for k in fns if k != "ours"]:
            rows.append(
                [
                    f"{name}: alpha {alpha:g}, eps {epsilon:g}, {steps} steps, {runs} runs",
                    other,
                    best["ours"],
                    best[other],
                    best[other] / best["ours"],
                    float(pavlov["ours"].mean()),
                    float(pavlov[other].mean()),
                    float(pavlov["ours"].mean() - pavlov[other].mean()),
                    f"{pavlov['ours'].std():.2f} / {pavlov[other].std():.2f} ({seeds} seeds)",
                    f"{cccc['ours']:.2f} / {cccc[other]:.2f}",
                    f"{gap_cc['ours']:.3f} / {gap_cc[other]:.3f}",
                ]
            )
    header = [
        "setting",
        "anchor",
        "ours CPU s",
        "anchor CPU s",
        "time ratio (anchor / ours)",
        "ours Pavlov rate",
        "anchor Pavlov rate",
        "difference (ours - anchor)",
        "seed spread of the rate (std, ours / anchor)",
        "CCCC rate ours / anchor",
        "mean Q(CC,C) - Q(CC,D) ours / anchor",
    ]
    return table(header, rows)


def anchor_deep(iterations: int, pretrain: int, games: int, seed: int = 0) -> np.ndarray:
    """Deep Q-learning self-play one game and one transition at a time (official settings:
    hidden 32, SGD lr 0.004, Huber, tau 0.01, buffer 1e6, gamma 0.8, epsilon 0.5 -> 0.01).
    Returns the final Q(s, C) - Q(s, D) over DD, DC, CD, CC."""
    gen = torch.Generator().manual_seed(seed)

    def network():  # torch's default initialisation, drawn from the generator
        net = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.ReLU(), torch.nn.Linear(32, 2))
        for layer in (net[0], net[2]):
            for p in (layer.weight, layer.bias):
                bound = layer.in_features**-0.5
                torch.nn.init.uniform_(p, -bound, bound, generator=gen)
        return net

    net, target = network(), network()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.004)
    r = torch.tensor(DQN_PAYOFFS, dtype=torch.float32)
    capacity, size, head = 1_000_000, 0, 0
    buf_s, buf_s2 = torch.zeros(capacity, 4), torch.zeros(capacity, 4)
    buf_a, buf_r = torch.zeros(capacity, dtype=torch.long), torch.zeros(capacity)
    eye = torch.eye(2)

    def act(state, k):
        eps = 0.01 + 0.49 * np.exp(-k / 600)
        greedy = net(state).argmax(dim=1).detach()
        return greedy ^ (torch.rand(games, generator=gen) < eps).long()

    def push(s, a, r_, s2):
        nonlocal size, head
        idx = (head + torch.arange(games)) % capacity
        buf_s[idx], buf_a[idx], buf_r[idx], buf_s2[idx] = s, a, r_, s2
        head, size = (head + games) % capacity, min(size + games, capacity)

    def learn():
        idx = torch.randint(0, size, (games,), generator=gen)
        with torch.no_grad():
            y = buf_r[idx] + 0.8 * target(buf_s2[idx]).max(dim=1).values
        loss = torch.nn.functional.huber_loss(net(buf_s[idx]).gather(1, buf_a[idx, None])[:, 0], y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for p_t, p in zip(target.parameters(), net.parameters(), strict=True):
                p_t.lerp_(p, 0.01)

    for phase, n in (("pretrain", pretrain), ("self-play", iterations)):
        s1 = s2 = torch.zeros(games, 4)
        for k in range(1, n + 1):
            if phase == "pretrain":
                b1, b2 = act(s1, k), torch.randint(0, 2, (games,), generator=gen)
            else:
                b1, b2 = act(s1, 2 * k - 1), act(s2, 2 * k)
            n1, n2 = torch.cat([eye[b1], eye[b2]], 1), torch.cat([eye[b2], eye[b1]], 1)
            push(s1, b1, r[b1, b2], n1)
            if phase == "self-play":
                push(s2, b2, r[b2, b1], n2)
            learn()
            s1, s2 = n1, n2
    states = torch.tensor(
        [[1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 0, 1]], dtype=torch.float
    )
    q = net(states).detach().numpy()
    return q[:, 1] - q[:, 0]


def deep(seeds: int = 2) -> str:
    """Deep Q-learning, 100 pretraining and 300 self-play iterations with 16384 games, official
    settings otherwise; final Q(s, C) - Q(s, D) over DD, DC, CD, CC, per seed."""
    torch.set_num_threads(1)
    iterations, pretrain, games = 300, 100, 16_384
    kwargs = {"iterations": iterations, "pretrain_iterations": pretrain, "games": games}
    best, results = interleaved(
        {
            "ours": lambda seed: deep_self_play(**kwargs, seed=seed)["q_gap"][-1],
            "anchor": lambda seed: anchor_deep(iterations, pretrain, games, seed),
        },
        seeds,
    )
    gaps = {k: np.stack(v) for k, v in results.items()}  # (seeds, 4)
    rows = [
        [
            f"{iterations + pretrain} iterations, {games} games",
            best["ours"],
            best["anchor"],
            best["anchor"] / best["ours"],
            np.array2string(gaps["ours"].mean(0), precision=3, separator=", "),
            np.array2string(gaps["anchor"].mean(0), precision=3, separator=", "),
            np.array2string(
                gaps["ours"].mean(0) - gaps["anchor"].mean(0), precision=3, separator=", "
            ),
            f"{gaps['ours'].std(0).max():.3f} / {gaps['anchor'].std(0).max():.3f} ({seeds} seeds)",
        ]
    ]
    header = [
        "setting",
        "ours CPU s",
        "re-written official way CPU s",
        "time ratio",
        "ours Q(s,C)-Q(s,D)",
        "anchor Q(s,C)-Q(s,D)",
        "difference",
        "seed spread (max std over states, ours / anchor)",
    ]
    return table(header, rows)


DQN_DRIVER = """
import json, random, sys, time
import numpy as np
import torch

root, seed, iterations, pretrain, games, out = sys.argv[1:7]
seed, iterations, pretrain, games = int(seed), int(iterations), int(pretrain), int(games)
sys.path.insert(0, root)
from src.agents import DQNAgent, RandomAgent
from src.algos import run_dqn
from src.ipd import IPD

torch.set_num_threads(1)
random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)  # as its run.py seeds
agent_config = dict(num_actions=2, in_size=4, out_size=2, hidden_size=32, capacity=1_000_000,
                    gamma=0.8, epsilon=0.1, decay_eps=True, eps_start=0.5, eps_end=0.01,
                    eps_decay=600, optim_type="sgd", loss_type="huber")
optim_config = {"lr": 0.004, "momentum": 0.9, "weight_decay": 0}  # its SGD takes no momentum
begin = time.process_time()
env = IPD("cpu", games, True)  # use_ipd_g_param: payoffs [[0, -3], [1, -2]], action 0 = C
agent = DQNAgent(**agent_config, optim_config=optim_config, device="cpu", batch_size=games)
run_dqn(env, agent, RandomAgent(2, "cpu", games), "cpu", games, num_iters=pretrain, tau=0.01,
        enable_wandb=False)
agent.steps_done = 0
run_dqn(env, agent, agent, "cpu", games, num_iters=iterations, tau=0.01, enable_wandb=False,
        do_self_play=True)
seconds = time.process_time() - begin
states = torch.tensor([[0, 1, 0, 1], [0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 1, 0]], dtype=torch.float)
q = agent.q_net(states).detach().numpy()  # DD, DC, CD, CC (own first); its action 0 is C
json.dump({"gap": (q[:, 0] - q[:, 1]).tolist(), "seconds": seconds}, open(out, "w"))
"""


def official_deep(src: Path, python: str, seeds: int = 2) -> str:
    """The official DQN (``src/``: ``DQNAgent``, ``RandomAgent``, ``IPD``, ``run_dqn``) driven
    through its API in its own venv, with ``run_quentin.sh``'s settings, wandb off; against
    ours at the same settings. 10 pretraining and 30 self-play iterations: its per-transition
    Python lists cost about 0.8 CPU s an iteration with 16384 games."""
    iterations, pretrain, games = 30, 10, 16_384
    kwargs = {"iterations": iterations, "pretrain_iterations": pretrain, "games": games}
    ours, theirs, t_ours, t_theirs = [], [], float("inf"), float("inf")
    for seed in range(seeds):
        begin = time.process_time()
        ours.append(deep_self_play(**kwargs, seed=seed)["q_gap"][-1])
        t_ours = min(t_ours, time.process_time() - begin)
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.json"
            args = [str(src), str(seed), str(iterations), str(pretrain), str(games), str(out)]
            env = {**os.environ, "OMP_NUM_THREADS": "1", "WANDB_MODE": "disabled"}
            subprocess.run(
                [python, "-c", DQN_DRIVER, *args], env=env, check=True, capture_output=True
            )
            result = json.loads(out.read_text())
        theirs.append(np.array(result["gap"]))
        t_theirs = min(t_theirs, result["seconds"])
    ours, theirs = np.stack(ours), np.stack(theirs)  # (seeds, 4)
    rows = [
        [
            f"{iterations + pretrain} iterations, {games} games",
            t_ours,
            t_theirs,
            t_theirs / t_ours,
            np.array2string(ours.mean(0), precision=3, separator=", "),
            np.array2string(theirs.mean(0), precision=3, separator=", "),
            np.array2string(ours.mean(0) - theirs.mean(0), precision=3, separator=", "),
            f"{ours.std(0).max():.3f} / {theirs.std(0).max():.3f} ({seeds} seeds)",
        ]
    ]
    header = [
        "setting",
        "ours CPU s",
        "official CPU s",
        "time ratio",
        "ours Q(s,C)-Q(s,D)",
        "official Q(s,C)-Q(s,D)",
        "difference",
        "seed spread (max std over states, ours / official)",
    ]
    return table(header, rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--official-src", type=Path, help="checkout of QB3/cooperation-prisoners-dilemma"
    )
    parser.add_argument(
        "--official-python", help="python with hydra-core, wandb, gym, torch: the official DQN"
    )
    parser.add_argument("--quick", action="store_true", help="tabular rows only")
    args = parser.parse_args()
    print(f"threads: OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, torch 1")
    print(tabular(args.official_src))
    if not args.quick:
        print()
        print(deep(), flush=True)
        if args.official_src and args.official_python:
            print()
            print(official_deep(args.official_src, args.official_python))
        else:
            print(
                "official DQN row skipped: pass --official-src and --official-python (a venv "
                "with torch, hydra-core, omegaconf, wandb, gym, tqdm)"
            )


if __name__ == "__main__":
    main()
