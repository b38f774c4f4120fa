"""Deep Q-learning self-play in the iterated prisoner's dilemma (the paper's Fig. 5).

Bertrand, Duque, Calvano & Gidel, ICML 2025, Section 5: the tabular learner of Theorem 3.3 is
replaced by a deep Q-network (Mnih et al. 2015). Setting of the official code
(``src/run.py``, ``src/agents.py``, ``src/algos.py`` and ``run_quentin.sh`` of
QB3/cooperation-prisoners-dilemma):

- Q-network ``x -> W2 relu(W1 x + b1) + b2`` with 4 inputs, ``hidden`` units, 2 outputs; the input
  is the one-hot of the previous actions (own, other), the zero vector before the first play;
- ``games`` games played side by side; each iteration both players act epsilon-greedily on the
  same network (self-play, player 2 reads its own view), both players' transitions
  ``(s, a, r, s')`` go into one replay buffer of ``capacity`` transitions, and one SGD step
  (no momentum) on a minibatch of ``games`` transitions lowers the Huber loss of
  ``Q(s, a) - (r + gamma max_a' Q_target(s', a'))``; the target network (its own random start)
  follows ``Q_target <- tau Q + (1 - tau) Q_target`` after every step;
- exploration ``epsilon_k = eps_end + (eps_start - eps_end) exp(-k / eps_decay)``, ``k`` counting
  the action choices (two per self-play iteration, as the shared agent is called once per player);
- before self-play, ``pretrain_iterations`` iterations against a uniformly random opponent (only
  the learner's transitions stored), which makes the network's greedy policy always-defect, the
  deep analogue of the tabular start ``Q0``; the epsilon schedule then restarts.

Payoffs of the official code: ``T = 1, R = 0, P = -2, S = -3`` with ``gamma = 0.8``, so Pavlov is a
fixed point (``gamma (R - P) = 1.6 > T - R = 1``).

How it is computed (the process is the official one, in distribution): games are exchangeable
and the network sees only five distinct inputs, so we keep counts rather than lists. The games
are a count per state; each iteration the games in state s move to the four next states by one
multinomial draw with the epsilon-greedy probabilities of both players. A transition
``(s, a, r, s')`` is fixed by ``(s, s')`` (``a`` is the first bit of ``s'``, ``r = r[s']``), so the
replay buffer is a count over 20 kinds of transitions, kept per push in first-in first-out order
(the oldest push loses a uniformly random part when it is partly overwritten); a minibatch is
drawn without replacement by a multivariate hypergeometric draw, as ``random.sample`` does, and
its Huber loss is the count-weighted sum over the 20 kinds of the loss of the network evaluated
on the five inputs. The loss, its gradient and the laws of the games and of the minibatches are
those of the official code; the cost per iteration does not grow with ``games``.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import torch

from icml25.common.arrays import real_array
from icml25.common.validate import check_int, check_real
from icml25.ipd_pavlov.qlearning import _check_size

DRAW_LIMIT = 10**9  # numpy's multivariate hypergeometric draw needs fewer transitions in all

DQN_PAYOFFS = np.array([[-2.0, 1.0], [-3.0, 0.0]])  # r[a_self, a_other], D = 0, C = 1
START = 4  # the state before the first play: the zero input vector
MIRROR = np.array([0, 2, 1, 3, START])  # the other player's view of each state
KIND_STATE = np.repeat(np.arange(5), 4)  # (20,): transition kind 4 s + s' -> s
KIND_NEXT = np.tile(np.arange(4), 5)  # (20,): -> s'


def _features() -> torch.Tensor:
    """The network's input for each state: one-hot (own D, own C, other D, other C); shape (5, 4),
    rows DD, DC, CD, CC (state ``2 a_self + a_other``), then the start state (zeros)."""
    x = torch.zeros(5, 4)
    for s in range(4):
        x[s, s // 2] = 1.0
        x[s, 2 + s % 2] = 1.0
    return x


def _network(hidden: int, generator: torch.Generator) -> list[torch.Tensor]:
    """Weights ``[W1 (hidden, 4), b1 (hidden,), W2 (2, hidden), b2 (2,)]`` of
    Linear(4, hidden) - ReLU - Linear(hidden, 2), drawn as torch's default initialisation
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` from ``generator``."""
    shapes = [((hidden, 4), 4), ((hidden,), 4), ((2, hidden), hidden), ((2,), hidden)]
    return [
        (2.0 * torch.rand(shape, generator=generator) - 1.0) / math.sqrt(fan_in)
        for shape, fan_in in shapes
    ]


def _q(weights: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """The Q-network ``W2 relu(W1 x + b1) + b2`` on inputs ``x`` of shape (n, 4) -> (n, 2)."""
    w1, b1, w2, b2 = weights
    return torch.addmm(b2, torch.relu(torch.addmm(b1, x, w1.T)), w2.T)


def _outcomes(p1: np.ndarray, p2: np.ndarray) -> np.ndarray:
    """Probabilities of the next state ``2 b1 + b2`` given each player's probability of C;
    ``p1``, ``p2`` of shape (5,) -> (5, 4)."""
    q1, q2 = 1.0 - p1, 1.0 - p2
    return np.stack([q1 * q2, q1 * p2, p1 * q2, p1 * p2], axis=1)


def policy_code(q: np.ndarray) -> int:
    """The greedy policy of a (4, 2) table of Q values as 4 bits, bit s set iff C is better."""
    return int(((q[:4, 1] > q[:4, 0]) << np.arange(4)).sum())


def deep_self_play(
    *,
    iterations: int = 10_000,
    pretrain_iterations: int = 600,
    games: int = 16_384,
    hidden: int = 32,
    lr: float = 0.004,
    tau: float = 0.01,
    gamma: float = 0.8,
    capacity: int = 1_000_000,
    eps_start: float = 0.5,
    eps_end: float = 0.01,
    eps_decay: float = 600.0,
    payoff: np.ndarray | None = None,
    seed: int = 0,
) -> dict:
    """Pretrain a deep Q-network against a random opponent, then let it play itself.

    Parameters
    ----------
    iterations : int, default 10_000
        Self-play iterations, ``>= 1``.
    pretrain_iterations : int, default 600
        Pretraining iterations against a random opponent, ``>= 0``.
    games : int, default 16_384
        Games played side by side, also the minibatch size, ``>= 1``.
    hidden : int, default 32
        Hidden units of the Q-network, ``>= 1``.
    lr : float, default 0.004
        SGD step size, ``> 0``.
    tau : float, default 0.01
        Soft target update rate, in ``(0, 1]``.
    gamma : float, default 0.8
        Discount factor, in ``[0, 1)``.
    capacity : int, default 1_000_000
        Replay buffer size in transitions, ``>= 2 * games``.
    eps_start : float, default 0.5
        Flip probability at the start of the exploration schedule, in ``[0, 0.5]``.
    eps_end : float, default 0.01
        Flip probability the schedule decays to, in ``[0, 0.5]``.
    eps_decay : float, default 600.0
        Decay scale of the schedule, ``> 0``, counted in action choices.
    payoff : ndarray, shape (2, 2), optional
        ``r[a_self, a_other]``, D = 0, C = 1; default ``DQN_PAYOFFS``.
    seed : int, default 0
        Seeds a ``torch.Generator`` (the networks' starts) and a numpy ``Generator`` (the
        games and the minibatches).

    Returns
    -------
    dict
        Per self-play iteration ``t = 1..iterations`` (after its update): ``"policy"``
        (iterations,) int codes of the greedy policy, bit s set iff C in state s (states DD,
        DC, CD, CC); ``"q_gap"`` (iterations, 4) ``Q(s, C) - Q(s, D)``; ``"cooperation"``
        (iterations, 4) the share of plays that were C, per state played in (NaN where no game
        was in that state); ``"epsilon"`` (iterations,), player 1's; and
        ``"pretrain_policy"``, the greedy policy code after pretraining.
    """
    iterations = check_int("iterations", iterations, minimum=1)
    pretrain_iterations = check_int("pretrain_iterations", pretrain_iterations, minimum=0)
    games = check_int("games", games, minimum=1)
    hidden = check_int("hidden", hidden, minimum=1)
    capacity = check_int("capacity", capacity, minimum=2 * games)
    _check_size("iterations", 4 * iterations)
    _check_size("hidden", 4 * hidden)
    if min(capacity, games * (pretrain_iterations + 2 * iterations)) >= DRAW_LIMIT:
        raise ValueError(
            f"games is too large: the replay buffer would hold {DRAW_LIMIT} transitions or "
            f"more (games x iterations, at most capacity), which numpy's draw refuses"
        )
    lr = check_real("lr", lr, low=0.0, high=math.inf, low_open=True, high_open=True)
    tau = check_real("tau", tau, low=0.0, high=1.0, low_open=True)
    gamma = check_real("gamma", gamma, low=0.0, high=1.0, high_open=True)
    eps_start = check_real("eps_start", eps_start, low=0.0, high=0.5)
    eps_end = check_real("eps_end", eps_end, low=0.0, high=0.5)
    eps_decay = check_real("eps_decay", eps_decay, low=0.0, high=math.inf, low_open=True)
    payoff = DQN_PAYOFFS if payoff is None else real_array("payoff", payoff)
    if payoff.shape != (2, 2) or not np.all(np.isfinite(payoff)):
        raise ValueError(f"payoff must be a finite array of shape (2, 2), got shape {payoff.shape}")
    seed = check_int("seed", seed, minimum=0)

    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    net, target = _network(hidden, gen), _network(hidden, gen)  # independent starts, as official
    for p in net:
        p.requires_grad_(True)
    x = _features()  # (5, 4)
    kind_state = torch.from_numpy(KIND_STATE)
    kind_action = torch.from_numpy(KIND_NEXT // 2)
    kind_target = torch.tensor(payoff.ravel()[KIND_NEXT], dtype=torch.float32)  # r[s'], (20,)
    kind_next = torch.from_numpy(KIND_NEXT)
    buffer = _Buffer(capacity, rng)

    def epsilon(k: int) -> float:
        return eps_end + (eps_start - eps_end) * math.exp(-k / eps_decay)

    def cooperate(q: np.ndarray, eps: float) -> np.ndarray:
        """P(C) in each of the 5 states for an epsilon-greedy player; (5,)."""
        return np.where(q[:, 1] > q[:, 0], 1.0 - eps, eps)  # ties to D

    def learn() -> None:
        weights = torch.from_numpy(buffer.sample(games) / games).float()  # (20,)
        with torch.no_grad():
            best_next = _q(target, x).max(dim=1).values[kind_next]  # (20,)
        q_sa = _q(net, x)[kind_state, kind_action]  # (20,)
        losses = torch.nn.functional.huber_loss(
            q_sa, kind_target + gamma * best_next, reduction="none"
        )
        (weights * losses).sum().backward()
        with torch.no_grad():
            for p, p_target in zip(net, target, strict=True):
                p.sub_(lr * p.grad)  # plain SGD, as the official optimizer (no momentum)
                p.grad = None
                p_target.lerp_(p, tau)  # tau p + (1 - tau) p_target

    def q_values() -> np.ndarray:
        with torch.no_grad():
            return _q(net, x).double().numpy()  # (5, 2)

    # pretraining against a uniformly random opponent: only the learner's transitions are kept
    n = np.zeros(5, dtype=np.int64)  # games per state (player 1's view)
    n[START] = games
    for k in range(1, pretrain_iterations + 1):
        p1 = cooperate(q_values(), epsilon(k))
        moves = rng.multinomial(n, _outcomes(p1, np.full(5, 0.5)))  # (5, 4): s -> s'
        buffer.push(moves.ravel())  # kind 4 s + s'
        learn()
        n = np.append(moves.sum(axis=0), 0)
    pretrain_policy = policy_code(q_values())

    policy = np.empty(iterations, dtype=np.int64)
    q_gap = np.empty((iterations, 4))
    cooperation = np.empty((iterations, 4))
    eps_trace = np.empty(iterations)
    n = np.zeros(5, dtype=np.int64)
    n[START] = games
    q = q_values()
    for t in range(iterations):
        e1, e2 = epsilon(2 * t + 1), epsilon(2 * t + 2)
        p1, p2 = cooperate(q, e1), cooperate(q, e2)[MIRROR]  # player 2 reads its own view
        moves = rng.multinomial(n, _outcomes(p1, p2))  # (5, 4)
        mirrored = np.zeros_like(moves)  # player 2's transitions, in its own view
        mirrored[MIRROR[:, None], MIRROR[None, :4]] = moves
        buffer.push(moves.ravel())  # kind 4 s + s'
        buffer.push(mirrored.ravel())
        learn()
        both = moves + mirrored  # (5, 4)
        played = both[:4].sum(axis=1)  # plays per state, both players
        with np.errstate(invalid="ignore", divide="ignore"):
            cooperation[t] = both[:4, 2:].sum(axis=1) / played  # own action C: s' in {2, 3}
        q = q_values()
        q_gap[t] = q[:4, 1] - q[:4, 0]
        policy[t] = policy_code(q)
        eps_trace[t] = e1
        n = np.append(moves.sum(axis=0), 0)
    return {
        "policy": policy,
        "q_gap": q_gap,
        "cooperation": cooperation,
        "epsilon": eps_trace,
        "pretrain_policy": pretrain_policy,
    }


class _Buffer:
    """First-in first-out replay buffer of ``capacity`` transitions, as counts over the 20 kinds,
    one count vector per push."""

    def __init__(self, capacity: int, rng: np.random.Generator) -> None:
        self.capacity, self.rng = capacity, rng
        self.pushes: deque[np.ndarray] = deque()
        self.total = np.zeros(20, dtype=np.int64)

    def push(self, counts: np.ndarray) -> None:
        self.pushes.append(counts.copy())
        self.total += counts
        excess = int(self.total.sum()) - self.capacity
        while excess > 0:
            oldest = self.pushes[0]
            if oldest.sum() <= excess:  # the whole push is overwritten
                excess -= int(oldest.sum())
                self.total -= self.pushes.popleft()
            else:  # part of it: its first transitions, a uniformly random subset in law
                gone = self.rng.multivariate_hypergeometric(oldest, excess)
                oldest -= gone
                self.total -= gone
                excess = 0

    def sample(self, n: int) -> np.ndarray:
        """Counts per kind of ``n`` transitions drawn without replacement; (20,)."""
        return self.rng.multivariate_hypergeometric(self.total, n)
