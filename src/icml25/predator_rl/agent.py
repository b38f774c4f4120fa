"""The two risk-averse mechanisms of Han et al., *Of Mice and Machines* (ICML 2025), as parts of a
DQN-style agent with an ensemble of Q heads.

1. Variance-penalised TD target (official ``VP-TDMPC-2/tdmpc2.py::_td_target``):

       y = r + gamma (1 - done) [ min_k Qbar_k(s', a*) - lambda clip(Var_{k,a} Q_k(s', a)) ],

   with K heads ``Q_k``, their Polyak-averaged copies ``Qbar_k``, ``a*`` the greedy action of the
   heads' mean at s', and ``Var_{k,a}`` the sample variance (ddof 1, as the official
   ``torch.var(..., dim=(0, 2))``) of the online network's values over the K heads and the A
   actions together (the official code takes it over the heads and a grid of actions), clipped
   to [0, 1000] as the official code does. ``lambda = 0`` gives the plain target (ensemble
   minimum), so the control differs only in the penalty.

2. Amplified negative memories (official ``VP-TDMPC-2/common/buffer.py::PTSDBuffer2.sample``): a
   fraction ``rho`` of every batch is drawn from transitions of episodes that ended in capture
   (the rest from the other episodes; when one pool is empty the other fills the batch), and
   negative rewards are multiplied by ``kappa`` (official: ``rho`` = 0.35, ``kappa`` = 200).

Shapes: B batch, K heads, A actions, D observation size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml25.common.arrays import int_array, real_array
from icml25.common.validate import check_int, check_real

VARIANCE_CLIP = 1000.0  # the official clip of the variance penalty
MAX_FLOATS = 2**30  # an array of more floats is refused as a size typo
INF = float("inf")


def _check_size(name: str, floats: int) -> None:
    """ValueError naming ``name`` when an array it sizes would hold more than 2**30 floats."""
    if floats > MAX_FLOATS:
        raise ValueError(f"{name} is too large: an array of {floats} floats (at most 2**30)")


def _kind(value) -> str:
    """A short description of ``value`` for an error message: its type and dtype."""
    return f"{type(value).__name__} of dtype {getattr(value, 'dtype', None)}"


def _check_tensor(name: str, value, ndim: int) -> None:
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point torch.Tensor, got {type(value).__name__}")
    if value.ndim != ndim or value.numel() == 0:
        raise ValueError(f"{name} must be a non-empty {ndim}-D tensor, got {tuple(value.shape)}")
    if not torch.isfinite(value).all():
        raise ValueError(f"{name} must be finite: it holds NaN or inf")


def variance_penalised_target(
    reward: torch.Tensor,
    done: torch.Tensor,
    q_next_online: torch.Tensor,
    q_next_target: torch.Tensor,
    gamma: float,
    penalty: float,
) -> torch.Tensor:
    """Variance-penalised TD target of a batch of transitions (the equation of the module).

    ``y = r + gamma (1 - done) [min_k Qbar_k(s', a*) - lambda clip(Var_{k,a} Q_k(s', a))]``,
    with ``a*`` the greedy action of the online heads' mean and the variance (ddof 1) taken over
    heads and actions together, clipped to ``[0, 1000]``. With K = A = 1 the variance term is
    taken as 0.

    Parameters
    ----------
    reward : torch.Tensor
        Rewards ``r`` (B,), floating point and finite.
    done : torch.Tensor
        Termination flags (B,), floating point, each 0 or 1.
    q_next_online : torch.Tensor
        Online heads' values ``Q_k(s', a)`` (K, B, A) at the next states, finite.
    q_next_target : torch.Tensor
        Target heads' values ``Qbar_k(s', a)`` (K, B, A), same shape, finite.
    gamma : float
        Discount factor, in ``[0, 1]``.
    penalty : float
        Weight ``lambda`` of the variance penalty, ``>= 0`` and finite; 0 gives the plain
        ensemble-minimum target.

    Returns
    -------
    torch.Tensor
        Targets ``y`` (B,).
    """
    check_real("penalty (lambda)", penalty, low=0.0, high=INF)
    check_real("gamma", gamma, low=0.0, high=1.0)
    for name, value in (("q_next_online", q_next_online), ("q_next_target", q_next_target)):
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor (K, B, A), got {type(value).__name__}")
    if q_next_online.shape != q_next_target.shape or q_next_online.ndim != 3:
        raise ValueError(
            "q_next_online and q_next_target must both be (K, B, A), got "
            f"{tuple(q_next_online.shape)} and {tuple(q_next_target.shape)}"
        )
    _check_tensor("q_next_online", q_next_online, 3)
    _check_tensor("q_next_target", q_next_target, 3)
    B = q_next_online.shape[1]
    for name, value in (("reward", reward), ("done", done)):
        _check_tensor(name, value, 1)
        if value.shape != (B,):
            raise ValueError(f"{name} must have shape ({B},), one per transition")
    if not ((done == 0) | (done == 1)).all():
        raise ValueError("done must hold 0 or 1")
    return _vp_target(reward, done, q_next_online, q_next_target, gamma, penalty)


def _vp_target(reward, done, q_next_online, q_next_target, gamma, penalty) -> torch.Tensor:
    K, B, _ = q_next_online.shape
    greedy = q_next_online.mean(0).argmax(-1)  # (B,)
    idx = greedy.view(1, B, 1).expand(K, B, 1)
    q_min = q_next_target.gather(2, idx).squeeze(2).min(0).values  # (B,)
    if K * q_next_online.shape[2] > 1:  # over heads and actions together
        var = q_next_online.var(dim=(0, 2)).clamp(0.0, VARIANCE_CLIP)  # (B,)
    else:
        var = torch.zeros_like(q_min)
    return reward + gamma * (1.0 - done) * (q_min - penalty * var)


class EnsembleQ(nn.Module):
    """K independent MLPs (D -> hidden -> hidden -> A) evaluated as one batched product.

    Two ReLU hidden layers; every weight and bias starts uniform in
    ``[-1/sqrt(fan_in), 1/sqrt(fan_in)]``. ``forward`` maps observations (B, D) to values
    (K, B, A).

    Parameters
    ----------
    obs_dim : int
        Observation size ``D``, ``>= 1``.
    n_actions : int
        Number of actions ``A``, ``>= 1``.
    heads : int
        Number of heads ``K``, ``>= 1``.
    hidden : int
        Width of both hidden layers, ``>= 1``.
    seed : int
        Seed of the torch generator of the initial weights.
    """

    def __init__(self, obs_dim: int, n_actions: int, heads: int, hidden: int, seed: int) -> None:
        super().__init__()
        for name, value in (
            ("obs_dim", obs_dim),
            ("n_actions", n_actions),
            ("heads", heads),
            ("hidden", hidden),
        ):
            check_int(name, value, minimum=1)
        _check_size("hidden", heads * hidden * (obs_dim + hidden + n_actions))
        gen = torch.Generator().manual_seed(seed)
        sizes = [obs_dim, hidden, hidden, n_actions]
        self.weights = nn.ParameterList()
        self.biases = nn.ParameterList()
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            bound = 1.0 / np.sqrt(fan_in)
            w = (torch.rand(heads, fan_in, fan_out, generator=gen) * 2 - 1) * bound
            b = (torch.rand(heads, 1, fan_out, generator=gen) * 2 - 1) * bound
            self.weights.append(nn.Parameter(w))
            self.biases.append(nn.Parameter(b))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """obs (B, D) -> Q (K, B, A)."""
        if not isinstance(obs, torch.Tensor) or obs.ndim != 2:
            raise TypeError(f"obs must be a (B, D) torch.Tensor, got {_kind(obs)}")
        D = self.weights[0].shape[1]
        if obs.shape[1] != D:
            raise ValueError(f"obs must have D = {D} columns, got {obs.shape[1]}")
        h = obs.unsqueeze(0).expand(self.weights[0].shape[0], -1, -1)  # (K, B, D)
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.baddbmm(b, h, w)
            if i < last:
                h = torch.relu(h)
        return h


class AmplifiedReplayBuffer:
    """A ring buffer of transitions that knows which episode each came from and whether that
    episode ended in capture.

    Each pool is sampled uniformly with replacement; when one pool is empty the other fills the
    batch.

    Parameters
    ----------
    capacity : int
        Most transitions held, ``>= 1``; the oldest are overwritten first.
    obs_dim : int
        Observation size ``D``, ``>= 1``.
    negative_fraction : float or None, default None
        Share ``rho`` of each batch drawn from capture episodes, in ``[0, 1]``; None means plain
        uniform sampling over all stored transitions.
    negative_scale : float, default 1.0
        Factor ``kappa`` on negative rewards at sampling time, ``>= 1``.
    seed : int, numpy.random.Generator or None, default None
        Seed of the sampling generator, or the generator itself.
    """

    def __init__(
        self,
        capacity: int,
        obs_dim: int,
        negative_fraction: float | None = None,
        negative_scale: float = 1.0,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        if negative_fraction is not None and not 0.0 <= negative_fraction <= 1.0:
            raise ValueError(
                f"negative_fraction must be in [0, 1] or None, got {negative_fraction}"
            )
        check_real("negative_scale", negative_scale, low=1.0, high=INF)
        check_int("capacity", capacity, minimum=1)
        check_int("obs_dim", obs_dim, minimum=1)
        _check_size("capacity", 2 * capacity * obs_dim)
        self.capacity, self.size, self.pos = int(capacity), 0, 0
        self.negative_fraction, self.negative_scale = negative_fraction, float(negative_scale)
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.obs = np.zeros((capacity, obs_dim), np.float32)
        self.next_obs = np.zeros((capacity, obs_dim), np.float32)
        self.action = np.zeros(capacity, np.int64)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, np.float32)
        self.episode = np.zeros(capacity, np.int64)
        self.captured = np.zeros(1024, bool)  # per episode id

    def add(self, obs, action, reward, next_obs, done, episode) -> None:
        """Add a batch of transitions (E, ...) with their episode ids (E,): ``obs`` and
        ``next_obs`` (E, obs_dim), ``action`` ints >= 0, finite ``reward``, ``done`` 0 or 1,
        episode ids in ``[0, 2**30)``; ``E`` at most the capacity."""
        n = int_array("action", action, ndim=1, low=0).shape[0]
        if n > self.capacity:
            raise ValueError(f"action must hold at most capacity = {self.capacity} transitions")
        shape = (n, self.obs.shape[1])
        for name, value in (("obs", obs), ("next_obs", next_obs)):
            if real_array(name, value).shape != shape:
                raise ValueError(f"{name} must have shape {shape}, got {np.shape(value)}")
        if real_array("reward", reward, ndim=1).shape != (n,):
            raise ValueError(f"reward must have shape ({n},), one per transition")
        is_bool = isinstance(done, np.ndarray) and done.dtype == np.bool_
        flags = done if is_bool else real_array("done", done, ndim=1)
        if np.shape(flags) != (n,) or not np.isin(flags, (0, 1)).all():
            raise ValueError(f"done must have shape ({n},) and hold 0 or 1")
        if int_array("episode", episode, ndim=1, low=0, high=MAX_FLOATS - 1).shape != (n,):
            raise ValueError(f"episode must have shape ({n},), one id per transition")
        self._add(obs, action, reward, next_obs, done, episode)

    def _add(self, obs, action, reward, next_obs, done, episode) -> None:
        n = len(action)
        idx = (self.pos + np.arange(n)) % self.capacity
        self.obs[idx], self.next_obs[idx] = obs, next_obs
        self.action[idx], self.reward[idx], self.done[idx] = action, reward, done
        self.episode[idx] = episode
        self.pos = (self.pos + n) % self.capacity
        self.size = min(self.size + n, self.capacity)
        top = int(np.max(episode)) + 1
        if top > len(self.captured):
            self.captured = np.concatenate([self.captured, np.zeros(2 * top, bool)])

    def mark_captured(self, episodes: np.ndarray) -> None:
        """Episodes (ids) that ended in capture: their transitions join the negative pool."""
        high = len(self.captured) - 1
        int_array("episodes", episodes, ndim=1, low=0, high=high, nonempty=False)
        self.captured[np.asarray(episodes, int)] = True

    def from_capture(self) -> np.ndarray:
        """(size,) bool: the stored transitions that belong to capture episodes."""
        return self.captured[self.episode[: self.size]]

    def sample_indices(self, batch: int) -> np.ndarray:
        check_int("batch", batch, minimum=1)
        _check_size("batch", batch)
        if self.size == 0:
            raise ValueError("cannot sample from an empty buffer")
        if self.negative_fraction is None:
            return self.rng.integers(0, self.size, batch)
        neg = np.flatnonzero(self.from_capture())
        pos = np.setdiff1d(np.arange(self.size), neg, assume_unique=True)
        n_neg = int(round(batch * self.negative_fraction)) if len(neg) else 0
        n_neg = batch if not len(pos) else n_neg
        picks = [neg[self.rng.integers(0, len(neg), n_neg)]] if n_neg else []
        if batch - n_neg:
            picks.append(pos[self.rng.integers(0, len(pos), batch - n_neg)])
        return np.concatenate(picks)

    def sample(self, batch: int) -> dict[str, torch.Tensor]:
        """A batch as tensors; negative rewards multiplied by ``negative_scale``."""
        idx = self.sample_indices(batch)
        reward = self.reward[idx]
        reward = np.where(reward < 0, reward * self.negative_scale, reward)
        return {
            "obs": torch.from_numpy(self.obs[idx]),
            "action": torch.from_numpy(self.action[idx]),
            "reward": torch.from_numpy(reward.astype(np.float32)),
            "next_obs": torch.from_numpy(self.next_obs[idx]),
            "done": torch.from_numpy(self.done[idx]),
        }


@dataclass(frozen=True)
class AgentConfig:
    """The agent's settings; ``penalty`` (lambda) and ``negative_fraction`` switch the two
    mechanisms.

    Parameters
    ----------
    heads : int, default 5
        Number of Q heads ``K``, ``>= 1``.
    hidden : int, default 64
        Width of the heads' two hidden layers, ``>= 1``.
    gamma : float, default 0.97
        Discount factor, in ``[0, 1]``.
    lr : float, default 1e-3
        Adam learning rate, ``> 0``.
    batch : int, default 128
        Transitions per update, ``>= 1``.
    tau : float, default 0.02
        Polyak rate of the target heads, in ``[0, 1]``.
    penalty : float, default 0.0
        Variance penalty ``lambda``, ``>= 0``; the official VP-TD-MPC2 uses 0.2.
    negative_fraction : float or None, default None
        Share ``rho`` of each batch from capture episodes, in ``[0, 1]``, or None for uniform
        sampling; the official value is 0.35.
    negative_scale : float, default 1.0
        Factor ``kappa`` on negative rewards, ``>= 1``; the official value is 200.
    buffer : int, default 50_000
        Capacity of the replay buffer, ``>= 1``.
    eps_start : float, default 1.0
        Exploration rate epsilon at the start of training, in ``[0, 1]``.
    eps_end : float, default 0.05
        Exploration rate after the decay, in ``[0, 1]``.
    eps_fraction : float, default 0.4
        Share of the training steps over which epsilon falls linearly from ``eps_start`` to
        ``eps_end``, in ``[0, 1]``.
    grad_clip : float, default 10.0
        Largest global gradient norm of an update, ``> 0``.
    """

    heads: int = 5
    hidden: int = 64
    gamma: float = 0.97
    lr: float = 1e-3
    batch: int = 128
    tau: float = 0.02  # Polyak rate of the target heads
    penalty: float = 0.0  # lambda; the official VP-TD-MPC2 uses 0.2
    negative_fraction: float | None = None  # rho; official 0.35
    negative_scale: float = 1.0  # kappa; official 200
    buffer: int = 50_000
    eps_start: float = 1.0
    eps_end: float = 0.05
    eps_fraction: float = 0.4  # of the training steps
    grad_clip: float = 10.0

    def __post_init__(self) -> None:
        check_real("penalty (lambda)", self.penalty, low=0.0, high=INF)
        for name in ("hidden", "batch", "buffer"):
            check_int(name, getattr(self, name), minimum=1)
        for name in ("gamma", "tau", "eps_start", "eps_end", "eps_fraction"):
            check_real(name, getattr(self, name), low=0.0, high=1.0)
        check_real("lr", self.lr, low=0.0, high=INF, low_open=True)
        check_real("grad_clip", self.grad_clip, low=0.0, high=INF, low_open=True)
        check_real("negative_scale", self.negative_scale, low=1.0, high=INF)
        if self.negative_fraction is not None and not 0.0 <= self.negative_fraction <= 1.0:
            raise ValueError(
                f"negative_fraction must be in [0, 1] or None, got {self.negative_fraction}"
            )
        check_int("heads", self.heads, minimum=1)


class EnsembleDQN:
    """A DQN with K Q heads: epsilon-greedy on the heads' mean, one update per call of
    ``update`` (Huber loss of every head to the same target, Adam, Polyak target heads).

    Parameters
    ----------
    obs_dim : int
        Observation size ``D``, ``>= 1``.
    n_actions : int
        Number of actions ``A``, ``>= 1``.
    config : AgentConfig
        Heads, widths, rates and the two risk-averse mechanisms.
    seed : int
        Seed of the initial weights; the target heads start as a copy of the online ones.

    Notes
    -----
    Attributes: ``q`` and ``q_target`` (:class:`EnsembleQ`), ``optim`` (Adam on ``q``).
    ``act(obs, epsilon, rng)`` maps observations (E, D) to actions (E,); ``update(batch)``
    makes one gradient step on a batch from :meth:`AmplifiedReplayBuffer.sample` and returns
    the loss.
    """

    def __init__(self, obs_dim: int, n_actions: int, config: AgentConfig, seed: int) -> None:
        if not isinstance(config, AgentConfig):
            raise TypeError(f"config must be an AgentConfig, got {type(config).__name__}")
        self.config, self.n_actions = config, n_actions
        self.q = EnsembleQ(obs_dim, n_actions, config.heads, config.hidden, seed)
        self.q_target = EnsembleQ(obs_dim, n_actions, config.heads, config.hidden, seed)
        self.q_target.load_state_dict(self.q.state_dict())
        self.q_target.requires_grad_(False)
        self.optim = torch.optim.Adam(self.q.parameters(), lr=config.lr, foreach=True)

    def act(self, obs: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        """obs (E, D) float32, finite -> actions (E,); ``epsilon`` in [0, 1]."""
        D = self.q.weights[0].shape[1]
        if not isinstance(obs, np.ndarray) or obs.dtype != np.float32:
            raise TypeError(f"obs must be a float32 numpy array (E, {D}), got {_kind(obs)}")
        if obs.ndim != 2 or obs.shape[1] != D or len(obs) == 0:
            raise ValueError(f"obs must have shape (E, {D}) with E >= 1, got {obs.shape}")
        if not np.isfinite(obs).all():
            raise ValueError("obs must be finite: it holds NaN or inf")
        check_real("epsilon", epsilon, low=0.0, high=1.0)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        return self._act(obs, epsilon, rng)

    @torch.no_grad()
    def _act(self, obs: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
        greedy = self.q(torch.from_numpy(obs)).mean(0).argmax(-1).numpy()
        explore = rng.random(len(obs)) < epsilon
        return np.where(explore, rng.integers(0, self.n_actions, len(obs)), greedy)

    def update(self, batch: dict[str, torch.Tensor]) -> float:
        """One gradient step on ``batch`` (``AmplifiedReplayBuffer.sample``'s dict)."""
        keys = ("obs", "action", "reward", "next_obs", "done")
        if not isinstance(batch, dict) or any(k not in batch for k in keys):
            raise TypeError(f"batch must be a dict of tensors with keys {keys}")
        action = batch["action"]
        if not isinstance(action, torch.Tensor) or action.dtype != torch.long or action.ndim != 1:
            raise TypeError("batch['action'] must be a 1-D torch.long tensor")
        if len(action) == 0 or action.min() < 0 or action.max() >= self.n_actions:
            raise ValueError(f"batch['action'] must hold actions in [0, {self.n_actions})")
        D, B = self.q.weights[0].shape[1], len(action)
        for name in ("obs", "next_obs", "reward", "done"):
            _check_tensor(f"batch['{name}']", batch[name], 2 if "obs" in name else 1)
            shape = (B, D) if "obs" in name else (B,)
            if tuple(batch[name].shape) != shape:
                raise ValueError(f"batch['{name}'] must have shape {shape}")
        if not ((batch["done"] == 0) | (batch["done"] == 1)).all():
            raise ValueError("batch['done'] must hold 0 or 1")
        return self._update(batch)

    def _update(self, batch: dict[str, torch.Tensor]) -> float:
        cfg = self.config
        with torch.no_grad():
            target = _vp_target(
                batch["reward"],
                batch["done"],
                self.q(batch["next_obs"]),
                self.q_target(batch["next_obs"]),
                cfg.gamma,
                cfg.penalty,
            )  # (B,)
        q = self.q(batch["obs"])  # (K, B, A)
        idx = batch["action"].view(1, -1, 1).expand(q.shape[0], -1, 1)
        q_taken = q.gather(2, idx).squeeze(2)  # (K, B)
        loss = nn.functional.smooth_l1_loss(q_taken, target.expand_as(q_taken))
        self.optim.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(self.q.parameters(), cfg.grad_clip)
        self.optim.step()
        with torch.no_grad():
            for p, p_t in zip(self.q.parameters(), self.q_target.parameters(), strict=True):
                p_t.lerp_(p, cfg.tau)
        return loss.item()
