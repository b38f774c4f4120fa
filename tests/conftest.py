"""Shared test set-up: matplotlib never opens a window, and torch runs on one thread (small
models on these shared 2-core machines run several times slower with two)."""

import os

import matplotlib
import pytest
import torch

matplotlib.use("Agg")
torch.set_num_threads(1)


@pytest.fixture
def alive():
    """Whether a process id still names a running (or unreaped) process."""

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True

    return alive
