"""Training DeFoG: the denoiser learns ``p_theta(x_1 | G_t)`` by cross-entropy.

Qin, Madeira et al., ICML 2025, Sec. 3.1: draw ``t ~ U(0, 1)`` (optionally through a time
distortion), noise each node and edge independently with ``p_t(x | x_1) = t delta(x, x_1) +
(1 - t) p_0(x)`` (edges sampled on the upper triangle and mirrored), and minimise

    L = E_{t, G_1, G_t} [ sum_i CE(x_1^i, p_theta^i(G_t))
                          + lambda sum_{i != j} CE(e_1^ij, p_theta^ij(G_t)) ]

with ``lambda = 5`` (the official ``lambda_train``). The loss does not depend on the sampler:
the number of steps, the time distortion, ``eta`` and ``omega`` are chosen after training.
"""

from __future__ import annotations

import dataclasses
import numbers
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from icml25.common.progress import report_progress
from icml25.common.validate import check_int, check_real
from icml25.defog.data import GraphDataset
from icml25.defog.model import GraphTransformer, ModelConfig
from icml25.defog.noise import DISTORTIONS, NOISES, _distort, _p_t, limit_distribution

__all__ = ["DeFoGConfig", "DeFoGModel", "fit", "noisy_graph", "sample_edges"]


@dataclass(frozen=True)
class DeFoGConfig:
    """Everything training needs: model sizes, optimisation, noise and seed.

    Parameters
    ----------
    model : ModelConfig, default ModelConfig()
        The transformer's sizes; its defaults are our CPU scale (3 layers, ``dx = 64``,
        ``de = 16``, RRWP ``k = 8``; the paper: 5-10 layers, 256, 64, ``k = 12``).
    train_steps : int, default 2000
        Number of AdamW steps, ``>= 0``.
    batch_size : int, default 32
        Graphs per step, drawn with replacement, ``>= 1``.
    lr : float, default 2e-4
        AdamW learning rate, in ``(0, 10]``; ``2e-4`` is the paper's, the reproduction trains
        3000 steps at ``1e-3``.
    weight_decay : float, default 1e-12
        AdamW weight decay.
    grad_clip : float, default 1.0
        Largest gradient norm, ``>= 0``; ``0`` does not clip.
    noise : {"marginal", "uniform", "absorbing"}, default "marginal"
        The prior ``p_0`` (``limit_distribution``).
    train_distortion : {"identity", "polydec", "polyinc", "cos"}, default "identity"
        The distortion of the training times ``t``.
    lambda_edge : float, default 5.0
        Weight of the edge cross-entropy, in ``[0, 1e6]`` (the official ``lambda_train``).
    max_nodes : int or None, default None
        Padded size ``n_max``, ``>= 1`` (None: the largest training graph).
    node_attr : str or None, default None
        Name of the categorical node attribute; ``None``: one node type.
    edge_attr : str or None, default None
        Name of the categorical edge attribute; ``None``: plain graphs.
    seed : int, default 0
        Seed of the initial weights and of every draw of training, ``>= 0``.
    """

    model: ModelConfig = ModelConfig()
    train_steps: int = 2000
    batch_size: int = 32
    lr: float = 2e-4
    weight_decay: float = 1e-12
    grad_clip: float = 1.0
    noise: str = "marginal"
    train_distortion: str = "identity"
    lambda_edge: float = 5.0
    max_nodes: int | None = None
    node_attr: str | None = None
    edge_attr: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.model, ModelConfig):
            raise ValueError(f"model must be a ModelConfig, got {self.model!r}")
        check_int("train_steps", self.train_steps, minimum=0)
        check_int("batch_size", self.batch_size, minimum=1)
        check_int("seed", self.seed, minimum=0)
        check_real("lr", self.lr, low=0.0, high=10.0, low_open=True)
        check_real("lambda_edge", self.lambda_edge, low=0.0, high=1e6)
        clip = self.grad_clip
        if isinstance(clip, bool) or not isinstance(clip, numbers.Real) or not clip >= 0:
            raise ValueError(f"grad_clip must be a number >= 0 (0: no clipping), got {clip!r}")
        if self.noise not in NOISES:
            raise ValueError(f"noise must be one of {NOISES}, got {self.noise!r}")
        if self.train_distortion not in DISTORTIONS:
            raise ValueError(
                f"train_distortion must be one of {DISTORTIONS}, got {self.train_distortion!r}"
            )
        if self.max_nodes is not None:
            check_int("max_nodes", self.max_nodes, minimum=1)


class DeFoGModel(nn.Module):
    """A trained DeFoG: the denoiser, the priors ``p_0`` and the node-count distribution.

    Built by :func:`fit` (or ``from_state``); the network's weights are drawn from the global
    torch random state.

    Parameters
    ----------
    config : DeFoGConfig
        The training configuration; ``config.model`` sizes the network.
    p0_x : array_like, shape (Sx,)
        Prior over the node states (stored as float32).
    p0_e : array_like, shape (Se,)
        Prior over the edge states (stored as float32).
    node_counts : array_like, shape (n_max + 1,)
        Distribution of the number of nodes of the training graphs (stored as float64).
    node_classes : sequence
        The node category values.
    edge_classes : sequence
        The edge category values, the first being ``None`` (no edge).
    node_attr : str or None, default None
        The node attribute name the categories were read from, and are written back to in
        generated graphs; ``None`` for plain graphs.
    edge_attr : str or None, default None
        The same for edges.

    Notes
    -----
    Attributes: ``net`` (:class:`GraphTransformer`), the buffers ``p0_x`` (Sx,), ``p0_e``
    (Se,), ``node_counts`` (n_max + 1,), ``max_nodes``, ``config``, ``node_classes``,
    ``edge_classes``, ``node_attr``, ``edge_attr``, ``loss`` (training loss per step) and
    ``train_seconds``.
    """

    def __init__(self, config, p0_x, p0_e, node_counts, node_classes, edge_classes,
                 node_attr=None, edge_attr=None):  # fmt: skip
        super().__init__()
        self.config = config
        self.node_classes, self.edge_classes = list(node_classes), list(edge_classes)
        self.node_attr, self.edge_attr = node_attr, edge_attr
        self.register_buffer("p0_x", torch.as_tensor(p0_x, dtype=torch.float32))
        self.register_buffer("p0_e", torch.as_tensor(p0_e, dtype=torch.float32))
        self.register_buffer("node_counts", torch.as_tensor(node_counts, dtype=torch.float64))
        self.max_nodes = len(node_counts) - 1
        self.net = GraphTransformer(
            config.model, len(p0_x), len(p0_e), len(node_classes),
            len(edge_classes), self.max_nodes,
        )  # fmt: skip
        self.loss: list[float] = []
        self.train_seconds = 0.0

    def forward(self, X_t, E_t, t, node_mask):
        return self.net(X_t, E_t, t, node_mask)

    def weights_hash(self) -> str:
        """A short sha256 of the parameters and buffers (claim (d): no retraining)."""
        import hashlib

        digest = hashlib.sha256()
        for name, tensor in sorted(self.state_dict().items()):
            digest.update(name.encode())
            digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
        return digest.hexdigest()[:16]

    def state(self) -> dict:
        """A dict of plain values and tensors, for ``torch.save``."""
        return {
            "config": dataclasses.asdict(self.config),
            "node_classes": self.node_classes,
            "edge_classes": self.edge_classes,
            "node_attr": self.node_attr, "edge_attr": self.edge_attr,
            "p0_x": self.p0_x, "p0_e": self.p0_e, "node_counts": self.node_counts,
            "state_dict": self.state_dict(),
            "loss": list(self.loss),
        }  # fmt: skip

    @classmethod
    def from_state(cls, state: dict) -> DeFoGModel:
        model = cls(
            DeFoGConfig(**{**state["config"], "model": ModelConfig(**state["config"]["model"])}),
            state["p0_x"], state["p0_e"],
            state["node_counts"], state["node_classes"], state["edge_classes"],
            state.get("node_attr"), state.get("edge_attr"),
        )  # fmt: skip
        model.load_state_dict(state["state_dict"])
        model.loss = list(state.get("loss", []))
        return model.eval()


def sample_edges(prob_E: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Sample edge states from ``(B, n, n, S)`` probabilities on the upper triangle and mirror
    them: a symmetric ``(B, n, n)`` label tensor with an empty (class 0) diagonal."""
    B, n, _, S = prob_E.shape
    labels = torch.multinomial(prob_E.reshape(-1, S), 1, generator=generator).view(B, n, n)
    upper = torch.triu(labels, diagonal=1)
    return upper + upper.transpose(1, 2)


def noisy_graph(model: DeFoGModel, X1, E1, t, node_mask, generator):
    """``G_t ~ p_t(. | G_1)`` as one-hot tensors, from labels ``X1 (B, n)``, ``E1 (B, n, n)``
    and times ``t (B,)``. Padding nodes and pairs are set to class 0 (no edge)."""
    B, n = X1.shape
    px = _p_t(X1, t[:, None].expand(B, n), model.p0_x)  # (B, n, Sx)
    Xt = torch.multinomial(px.reshape(-1, px.shape[-1]), 1, generator=generator).view(B, n)
    pe = _p_t(E1, t[:, None, None].expand(B, n, n), model.p0_e)  # (B, n, n, Se)
    Et = sample_edges(pe, generator)
    pair = node_mask[:, :, None] & node_mask[:, None, :]
    Xt = Xt * node_mask
    Et = Et * pair
    X_oh = nn.functional.one_hot(Xt, len(model.p0_x)).float() * node_mask[..., None]
    E_oh = nn.functional.one_hot(Et, len(model.p0_e)).float()
    return X_oh, E_oh


def fit(graphs, config: DeFoGConfig | None = None, *, log_every: int = 0) -> DeFoGModel:
    """Train DeFoG on a list of networkx graphs (or a :class:`GraphDataset`).

    Seeded by ``config.seed`` through a ``torch.Generator`` (no global state is touched except
    the parameters' initialisation, done under ``torch.random.fork_rng``). Graphs of which
    none has two nodes are refused (the edges are learned from node pairs).

    Parameters
    ----------
    graphs : list of networkx.Graph or GraphDataset
        Non-empty training graphs. A ``GraphDataset`` is used as it is (its own attribute
        names and ``max_nodes``; those of ``config`` are then not read).
    config : DeFoGConfig or None, default None
        Sizes, optimisation, noise and seed; None: ``DeFoGConfig()``.
    log_every : int, default 0
        Print the mean loss of the last that many steps every that many steps; 0 prints
        nothing.

    Returns
    -------
    DeFoGModel
        The trained model in eval mode; ``model.loss`` holds the loss of every step and
        ``model.train_seconds`` the training time.
    """
    config = DeFoGConfig() if config is None else config
    if not isinstance(config, DeFoGConfig):
        raise ValueError(f"config must be a DeFoGConfig, got {type(config).__name__}")
    if isinstance(graphs, GraphDataset):
        data = graphs
    else:
        if graphs is None or len(list(graphs)) == 0:
            raise ValueError("graphs must be a non-empty list of networkx graphs, got none")
        data = GraphDataset(list(graphs), config.node_attr, config.edge_attr, config.max_nodes)
    if not (data.node_mask.sum(1) >= 2).any():
        raise ValueError("graphs must include a graph with at least 2 nodes (edges need pairs)")
    mx, me = data.marginals()
    p0_x = limit_distribution(config.noise, mx)
    p0_e = limit_distribution(config.noise, me)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(config.seed)
        model = DeFoGModel(
            config,
            p0_x,
            p0_e,
            data.node_counts,
            data.node_classes,
            data.edge_classes,
            data.node_attr,
            data.edge_attr,
        )
    gen = torch.Generator().manual_seed(config.seed + 1)
    opt = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    X1_all, E1_all, mask_all = data.X.argmax(-1), data.E.argmax(-1), data.node_mask
    n_max = data.max_nodes
    off_diag = ~torch.eye(n_max, dtype=torch.bool)
    model.train()
    begin = time.perf_counter()
    for step in range(config.train_steps):
        report_progress(step, config.train_steps)
        idx = torch.randint(len(data), (config.batch_size,), generator=gen)
        X1, E1, mask = X1_all[idx], E1_all[idx], mask_all[idx]
        t = _distort(torch.rand(config.batch_size, generator=gen), config.train_distortion)
        X_t, E_t = noisy_graph(model, X1, E1, t, mask, gen)
        logits_x, logits_e = model(X_t, E_t, t, mask)
        pair = mask[:, :, None] & mask[:, None, :] & off_diag
        loss_x = nn.functional.cross_entropy(logits_x[mask], X1[mask])
        loss_e = nn.functional.cross_entropy(logits_e[pair], E1[pair])
        loss = loss_x + config.lambda_edge * loss_e
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if config.grad_clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        opt.step()
        model.loss.append(loss.item())
        if log_every and (step + 1) % log_every == 0:
            recent = np.mean(model.loss[-log_every:])
            print(f"step {step + 1}: loss {recent:.4f} ({time.perf_counter() - begin:.0f} s)")
    model.train_seconds = time.perf_counter() - begin
    return model.eval()
