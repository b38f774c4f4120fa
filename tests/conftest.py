"""Shared test set-up: matplotlib never opens a window, and torch runs on one thread (small
models on these shared 2-core machines run several times slower with two)."""

import matplotlib
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)
