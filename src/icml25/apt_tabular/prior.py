"""Random-MLP data makers, the synthetic task prior of APT (Wu & Bergman, ICML 2025, Sec. 3.1;
official code ``apt/data/mlp.py``).

A data maker draws latent rows ``z`` (Gaussian, uniform or categorical), passes them through a
random MLP of depth ``L`` and width ``h`` with activation ``sigma`` and Gaussian noise of scale
``s`` after each layer; the features ``x`` are ``f`` hidden units picked at random among all
layers, the target is one more unit. As the official ``discretize``:

- some feature columns become *integer* (ordinal, 2-20 levels) and some *categorical* (2-10
  levels, the level labels permuted afresh at every draw): each kind is present with probability
  0.65, and then on ``floor(u f)`` columns, ``u ~ U(0, 0.1)`` (integer) or ``U(0, 0.2)``
  (categorical); a column with ``K`` levels is cut at ``mean + z std`` (over the rows drawn) for
  ``K - 1`` sorted ``z ~ N(0, 1)`` fixed per maker, its value the number of cuts exceeded;
- the target is cut the same way into ``K`` classes (``K - 1`` sorted Gaussian cuts, fixed per
  maker), so classes are imbalanced (or empty), and relabelled by a random permutation;
  ``balanced_classes=True`` cuts at the empirical quantiles instead (equal class counts).

Makers are ``nn.Module``s: an *adversarial* maker's weights take gradient ascent on the model's
loss (``pretrain``); a discretised feature passes ``0.01`` of the gradient of the unit it cuts
(the official ``temperature``); a fixed maker is drawn afresh.
"""

from __future__ import annotations

import torch
from torch import nn

from icml25.common.validate import check_int

ACTIVATIONS = {
    "tanh": torch.tanh,
    "relu": torch.relu,
    "sin": torch.sin,
    "identity": lambda t: t,
}
LATENTS = ("gaussian", "uniform", "categorical")
NUMERIC, INTEGER, CATEGORICAL = 0, 1, 2
MAX_LEVELS = {INTEGER: 20, CATEGORICAL: 10}
PRESENT_P = 0.65  # probability that a maker has integer (categorical) columns at all
MAX_FRACTION = {INTEGER: 0.1, CATEGORICAL: 0.2}
GRADIENT_TEMPERATURE = 0.01
MAX_ENTRIES = 2**31  # a tensor of more entries than this is refused: out of memory


def _check_generator(generator) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


def _check_entries(what: str, entries: int) -> None:
    if entries > MAX_ENTRIES:
        raise ValueError(f"{what} = {entries:.3g} entries, more than {MAX_ENTRIES:.3g}: too large")


def _randint(low: int, high: int, generator: torch.Generator) -> int:
    """An integer in ``[low, high]`` from ``generator``."""
    return int(torch.randint(low, high + 1, (1,), generator=generator))


class DataMaker(nn.Module):
    """One random MLP data maker; its structure is drawn from ``generator`` at construction.

    ``sample(n_rows, generator)`` returns ``x`` ``(n_rows, f)`` float and ``y`` ``(n_rows,)``
    long in ``[0, K)``; gradients flow from ``x`` to the MLP's weights (the labels, being
    quantile bins, carry none). Refused: ``max_features < 2``, fewer than 2 classes,
    ``min_classes > max_classes``, widths whose weight matrices exceed 2**31 entries.

    Parameters
    ----------
    generator : torch.Generator
        Source of the maker's random structure and weights.
    max_features : int, default 30
        Most features ``f`` (drawn in ``[2, max_features]``).
    min_classes : int, default 2
        Fewest classes ``K`` when ``n_classes`` is None.
    max_classes : int, default 10
        Most classes ``K`` when ``n_classes`` is None.
    n_classes : int, optional
        A fixed number of classes (at least 2) instead of a draw.
    balanced_classes : bool, default False
        Cut the target at its empirical quantiles (equal class counts) rather than at
        Gaussian cuts.

    Raises
    ------
    TypeError
        If ``generator`` is not a torch.Generator.
    ValueError
        If a size is out of range or too large.
    """

    def __init__(
        self,
        generator: torch.Generator,
        max_features: int = 30,
        min_classes: int = 2,
        max_classes: int = 10,
        n_classes: int | None = None,
        balanced_classes: bool = False,
    ):
        super().__init__()
        _check_generator(generator)
        check_int("max_features", max_features, minimum=2)
        _check_entries("(max_features + 33)^2 of a weight matrix", (max_features + 33) ** 2)
        if n_classes is None:
            check_int("min_classes", min_classes, minimum=2)
            check_int("max_classes", max_classes, minimum=min_classes)
        else:
            check_int("n_classes", n_classes, minimum=2)
        g = generator
        self.n_features = _randint(2, max_features, g)
        self.n_classes = (
            n_classes if n_classes is not None else _randint(min_classes, max_classes, g)
        )
        self.depth = _randint(1, 3, g)
        self.width = _randint(max(self.n_features + 1, 8), max(self.n_features + 1, 8) + 32, g)
        self.latent_dim = _randint(2, 16, g)
        self.activation = list(ACTIVATIONS)[_randint(0, len(ACTIVATIONS) - 1, g)]
        self.latent = LATENTS[_randint(0, len(LATENTS) - 1, g)]
        self.noise = float(torch.rand((), generator=g)) * 0.3
        dims = [self.latent_dim] + [self.width] * self.depth
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(a, b, generator=g) / a**0.5)
            for a, b in zip(dims, dims[1:], strict=False)
        )
        self.biases = nn.ParameterList(
            nn.Parameter(torch.randn(b, generator=g) * 0.5) for b in dims[1:]
        )
        # pick f feature units and one target unit among all hidden units, without repeats
        units = torch.randperm(self.width * self.depth, generator=g)[: self.n_features + 1]
        self.register_buffer("feature_units", units[:-1])
        self.register_buffer("target_unit", units[-1:])
        self.balanced_classes = balanced_classes
        self._draw_column_kinds(g)
        self.register_buffer("class_cuts", _sorted_cuts(self.n_classes, g))  # (K - 1,)

    def _draw_column_kinds(self, g: torch.Generator) -> None:
        """Which feature columns are integer / categorical, their levels and Gaussian cuts."""
        f = self.n_features
        kinds = torch.full((f,), NUMERIC, dtype=torch.long)
        order = torch.randperm(f, generator=g)
        taken = 0
        for kind in (INTEGER, CATEGORICAL):
            present = float(torch.rand((), generator=g)) < PRESENT_P
            fraction = float(torch.rand((), generator=g)) * MAX_FRACTION[kind]
            count = min(int(fraction * f) if present else 0, f - taken)
            kinds[order[taken : taken + count]] = kind
            taken += count
        levels = torch.ones(f, dtype=torch.long)
        cuts = torch.full((f, max(MAX_LEVELS.values()) - 1), float("inf"))  # (f, 19), inf = none
        for j in torch.nonzero(kinds != NUMERIC).flatten().tolist():
            levels[j] = _randint(2, MAX_LEVELS[int(kinds[j])], g)
            cuts[j, : levels[j] - 1] = _sorted_cuts(int(levels[j]), g)
        self.register_buffer("column_kinds", kinds)
        self.register_buffer("column_levels", levels)
        self.register_buffer("column_cuts", cuts)

    def _latent(self, n_rows: int, g: torch.Generator) -> torch.Tensor:
        if self.latent == "gaussian":
            return torch.randn(n_rows, self.latent_dim, generator=g)
        if self.latent == "uniform":
            return torch.rand(n_rows, self.latent_dim, generator=g) * 2 - 1
        levels = torch.randint(2, 6, (self.latent_dim,), generator=g)  # categorical latents
        u = torch.rand(n_rows, self.latent_dim, generator=g)
        return torch.floor(u * levels) / (levels - 1).clamp(min=1) * 2 - 1

    def sample(self, n_rows: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """``n_rows >= 2`` rows (the cuts need a standard deviation)."""
        check_int("n_rows", n_rows, minimum=2)
        _check_entries("n_rows x hidden units", n_rows * self.width * self.depth)
        _check_generator(generator)
        act = ACTIVATIONS[self.activation]
        h = self._latent(n_rows, generator)  # (n, latent_dim)
        layers = []
        for w, b in zip(self.weights, self.biases, strict=True):
            h = act(h @ w + b)
            h = h + self.noise * torch.randn(h.shape, generator=generator)  # (n, width)
            layers.append(h)
        units = torch.cat(layers, dim=1)  # (n, width * depth)
        x = self._discretise(units[:, self.feature_units], generator)  # (n, f)
        target = units[:, self.target_unit[0]].detach()  # (n,)
        if self.balanced_classes:
            y = _quantile_classes(target, self.n_classes)
        else:
            y = gaussian_cut_levels(target[:, None], self.class_cuts[None])[:, 0]
        perm = torch.randperm(self.n_classes, generator=generator)
        return x, perm[y]

    def _discretise(self, x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
        """Integer and categorical columns of ``x`` ``(n, f)`` as levels (a straight-through
        ``0.01`` of the gradient); numeric columns unchanged."""
        discrete = self.column_kinds != NUMERIC  # (f,)
        if not bool(discrete.any()):
            return x
        levels = gaussian_cut_levels(x.detach(), self.column_cuts).to(x.dtype)  # (n, f)
        for j in torch.nonzero(self.column_kinds == CATEGORICAL).flatten().tolist():
            perm = torch.randperm(int(self.column_levels[j]), generator=generator)
            levels[:, j] = perm[levels[:, j].long()].to(x.dtype)
        soft = levels + GRADIENT_TEMPERATURE * (x - x.detach())
        return torch.where(discrete[None, :], soft, x)


def _sorted_cuts(levels: int, g: torch.Generator) -> torch.Tensor:
    """``levels - 1`` sorted standard-normal cut points (in units of the column's std)."""
    return torch.sort(torch.randn(levels - 1, generator=g)).values


def gaussian_cut_levels(values: torch.Tensor, cuts: torch.Tensor) -> torch.Tensor:
    """The level of each value: how many of its column's cuts ``mean + z std`` it exceeds.

    ``values`` ``(n, c)``; ``cuts`` ``(c, L)`` standard-normal ``z`` (``inf`` pads unused cuts);
    mean and std are over the ``n`` rows. Returns ``(n, c)`` long in ``[0, L]``."""
    mean, std = values.mean(0), values.std(0)  # (c,)
    thresholds = mean[:, None] + cuts * std[:, None]  # (c, L)
    return (values[:, :, None] > thresholds[None]).sum(-1)


def quantile_classes(target: torch.Tensor, n_classes: int) -> torch.Tensor:
    """Discretise ``target`` ``(n,)`` into ``n_classes`` bins of equal counts (ties broken by
    order), so that every class appears when ``n >= n_classes``. ``target`` must be a finite
    vector, ``n_classes`` an integer ``>= 1``.

    Parameters
    ----------
    target : torch.Tensor, shape (n,)
        Finite values to discretise.
    n_classes : int
        Number of bins (at least 1).

    Returns
    -------
    torch.Tensor of int64, shape (n,)
        Class of each value in ``[0, n_classes)``, increasing with the value.

    Raises
    ------
    TypeError
        If ``target`` is not a 1-d torch tensor.
    ValueError
        If ``target`` holds NaN or inf or ``n_classes`` is below 1.
    """
    if not isinstance(target, torch.Tensor) or target.ndim != 1:
        raise TypeError("target must be a 1-d torch tensor")
    if target.is_floating_point() and not torch.isfinite(target).all():
        raise ValueError("target must be finite: it holds NaN or inf")
    check_int("n_classes", n_classes, minimum=1)
    return _quantile_classes(target, n_classes)


def _quantile_classes(target: torch.Tensor, n_classes: int) -> torch.Tensor:
    ranks = torch.argsort(torch.argsort(target, stable=True), stable=True)  # (n,)
    return (ranks * n_classes // target.shape[0]).long()


def make_batch(
    makers: list[DataMaker], n_rows: int, n_train: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample one dataset from each maker and stack them: ``x`` ``(B, n_rows, F)`` (features
    standardised by the first ``n_train`` rows, zero-padded to the widest ``F``) and ``y``
    ``(B, n_rows)``. Each dataset's rows are shuffled, so the first ``n_train`` are a random
    training split. Refused: no makers, ``n_train`` outside ``[2, n_rows]``.

    Parameters
    ----------
    makers : list of DataMaker
        One maker per dataset of the batch (``B = len(makers)``).
    n_rows : int
        Rows per dataset (at least 2).
    n_train : int
        Training rows per dataset, in ``[2, n_rows]``.
    generator : torch.Generator
        Source of the samples and the shuffles.

    Returns
    -------
    x : torch.Tensor, shape (B, n_rows, F)
        Standardised features, zero-padded to the widest maker's ``F``.
    y : torch.Tensor of int64, shape (B, n_rows)
        Class labels.

    Raises
    ------
    ValueError
        If ``makers`` is empty or holds a non-DataMaker, or ``n_rows``/``n_train`` is out of
        range.
    TypeError
        If ``generator`` is not a torch.Generator.
    """
    if not makers or not all(isinstance(m, DataMaker) for m in makers):
        raise ValueError("makers must be a non-empty list of DataMaker")
    check_int("n_rows", n_rows, minimum=2)
    check_int("n_train", n_train, minimum=2)
    if n_train > n_rows:
        raise ValueError(f"n_train must be at most n_rows = {n_rows}, got {n_train}")
    _check_generator(generator)
    xs, ys = [], []
    width = max(m.n_features for m in makers)
    for maker in makers:
        x, y = maker.sample(n_rows, generator)
        order = torch.randperm(n_rows, generator=generator)
        x, y = x[order], y[order]
        mean, std = x[:n_train].mean(0), x[:n_train].std(0)
        x = (x - mean) / (std + 1e-6)
        xs.append(nn.functional.pad(x, (0, width - x.shape[1])))
        ys.append(y)
    return torch.stack(xs), torch.stack(ys)


def synthetic_task(
    seed: int, n_classes: int, n_rows: int, max_features: int = 30
) -> tuple[torch.Tensor, torch.Tensor]:
    """One held-out task from the same prior with ``n_classes`` balanced classes (cut at the
    target's quantiles, so that chance is ``1 / n_classes``): ``x`` ``(n_rows, f)``, ``y``
    ``(n_rows,)``, rows in random order. ``n_classes`` and ``n_rows`` must be at least 2.

    Parameters
    ----------
    seed : int
        Seed of the task's maker and rows.
    n_classes : int
        Number of balanced classes (at least 2).
    n_rows : int
        Number of rows (at least 2).
    max_features : int, default 30
        Most features ``f`` of the task (drawn in ``[2, max_features]``).

    Returns
    -------
    x : torch.Tensor, shape (n_rows, f)
        Features (some columns integer or categorical levels).
    y : torch.Tensor of int64, shape (n_rows,)
        Class labels in ``[0, n_classes)``.

    Raises
    ------
    ValueError
        If an argument is below 2 or the task would be too large.
    """
    check_int("n_classes", n_classes, minimum=2)
    check_int("n_rows", n_rows, minimum=2)
    check_int("max_features", max_features, minimum=2)
    _check_entries("n_rows x hidden units", n_rows * 3 * (max_features + 33))
    g = torch.Generator().manual_seed(seed)
    maker = DataMaker(g, max_features=max_features, n_classes=n_classes, balanced_classes=True)
    with torch.no_grad():
        x, y = maker.sample(n_rows, g)
    order = torch.randperm(n_rows, generator=g)
    return x[order], y[order]
