"""One object for users: :class:`DeFoG` wraps ``fit`` and ``sample`` (Qin, Madeira et al.,
ICML 2025). Train once; choose the number of steps, the time distortion, ``eta`` and ``omega``
at sampling time, without retraining."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import torch

from icml25.defog.sampler import sample as _sample
from icml25.defog.train import DeFoGConfig, DeFoGModel, fit

__all__ = ["DeFoG"]


class DeFoG:
    """A DeFoG graph generator.

    >>> from icml25.defog import DeFoG, DeFoGConfig, tree_graphs
    >>> gen = DeFoG(DeFoGConfig(train_steps=5)).fit(tree_graphs(8, 6, seed=0))
    >>> graphs = gen.sample(4, steps=5, distortion="polydec", omega=0.05)
    >>> len(graphs)
    4

    Parameters
    ----------
    config : DeFoGConfig or None, default None
        Training configuration; None: ``DeFoGConfig()``.

    Notes
    -----
    scikit-learn: not an estimator: ``fit`` takes graphs and ``sample`` makes new ones, with
    no ``X``, ``y`` or ``predict``, so ``check_estimator`` does not apply.
    """

    def __init__(self, config: DeFoGConfig | None = None):
        config = DeFoGConfig() if config is None else config
        if not isinstance(config, DeFoGConfig):
            raise ValueError(f"config must be a DeFoGConfig, got {type(config).__name__}")
        self.config = config
        self.model: DeFoGModel | None = None

    def fit(self, graphs) -> DeFoG:
        """Train on a non-empty list of networkx graphs; returns ``self``."""
        self.model = fit(graphs, self.config)
        return self

    def _trained(self) -> DeFoGModel:
        if self.model is None:
            raise ValueError("this DeFoG is not trained: call fit(graphs) or DeFoG.load(path)")
        return self.model

    def sample(self, n_graphs: int, **kwargs) -> list[nx.Graph]:
        """``sample(model, n_graphs, steps=..., distortion=..., eta=..., omega=..., seed=...)``."""
        return _sample(self._trained(), n_graphs, **kwargs)

    def to(self, *args, **kwargs) -> DeFoG:
        """Move the trained model, as ``torch.nn.Module.to`` (``gen.to("cuda", torch.float64)``);
        sampling then runs on its device and in its dtype. Returns ``self``."""
        self._trained().to(*args, **kwargs)
        return self

    def save(self, path) -> None:
        """Save the weights, priors and config with ``torch.save``."""
        torch.save(self._trained().state(), Path(path))

    @classmethod
    def load(cls, path) -> DeFoG:
        state = torch.load(Path(path), weights_only=True)
        model = DeFoGModel.from_state(state)
        gen = cls(model.config)
        gen.model = model
        return gen
