"""ipd_pavlov: vectorised self-play against the anchor, one run at a time in a Python loop;
and deep Q-learning self-play by counts against the official code's per-game, per-transition way.

Tabular: the anchor is what a user of the paper's notebook runs: a scalar loop over steps, one
run after another, drawing each player's exploration flip with a separate call to the generator.
Ours simulates all runs at once (numpy over runs), as ``self_play`` does for the reproduction.

Deep: the anchor plays every game and stores every transition (one-hot states in tensors, a
ring buffer, a minibatch of ``games`` transitions drawn with replacement and one forward pass per
transition), the official code's way in torch tensors (the official keeps Python lists in a
deque, slower still). Ours (``deep_self_play``) keeps counts per state and per kind of transition.

    python benchmarks/bench_ipd_pavlov.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import torch  # noqa: E402
from harness import measure, table  # noqa: E402

from icml25.ipd_pavlov import PAVLOV, initial_q, payoffs, policy, self_play  # noqa: E402
from icml25.ipd_pavlov.deep import DQN_PAYOFFS, deep_self_play  # noqa: E402


def anchor(alpha: float, epsilon: float, steps: int, runs: int, seed: int = 0) -> np.ndarray:
    """The notebook's way: one run at a time, one step at a time, flips drawn one by one."""
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
        finals.append(q.reshape(4, 2))
    return np.stack(finals)


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


def main() -> None:
    rows = []
    for alpha, steps, runs in [(1e-2, 2_000, 100), (1e-3, 20_000, 100)]:
        args = (alpha, 0.05, steps, runs)
        t_anchor, _, q_anchor = measure(lambda args=args: anchor(*args), repeat=1)
        t_ours, m_ours, q_ours = measure(lambda args=args: self_play(*args), repeat=3)
        rows.append(
            [
                alpha,
                steps,
                runs,
                t_anchor,
                t_ours,
                t_anchor / t_ours,
                m_ours,
                float(np.mean(policy(q_anchor) == PAVLOV)),
                float(np.mean(policy(q_ours) == PAVLOV)),
            ]
        )
    torch.set_num_threads(1)
    deep_rows = []
    for iterations, pretrain, games in [(300, 100, 16_384)]:
        t_anchor, m_anchor, gap_anchor = measure(
            lambda args=(iterations, pretrain, games): anchor_deep(*args), repeat=1
        )
        kwargs = {"iterations": iterations, "pretrain_iterations": pretrain, "games": games}
        t_ours, m_ours, out = measure(lambda kwargs=kwargs: deep_self_play(**kwargs), repeat=3)
        deep_rows.append(
            [
                iterations + pretrain,
                games,
                t_anchor,
                t_ours,
                t_anchor / t_ours,
                m_anchor,
                m_ours,
                np.array2string(gap_anchor, precision=2),
                np.array2string(out["q_gap"][-1], precision=2),
            ]
        )
    print(
        table(
            [
                "iterations",
                "games",
                "anchor s",
                "ours s",
                "speed-up",
                "anchor peak MB",
                "ours peak MB",
                "anchor Q(s,C)-Q(s,D)",
                "ours Q(s,C)-Q(s,D)",
            ],
            deep_rows,
        )
    )
    print(
        table(
            [
                "alpha",
                "steps",
                "runs",
                "anchor s",
                "ours s",
                "speed-up",
                "ours peak MB",
                "anchor Pavlov rate",
                "ours Pavlov rate",
            ],
            rows,
        )
    )


if __name__ == "__main__":
    main()
