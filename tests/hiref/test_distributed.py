"""HiRef's levels below a depth as Dask tasks: the same permutation as in one process.

The cluster is a scheduler and two one-thread workers started with the ``dask`` command line
(``conftest.dask_cluster``); this process runs torch on one thread (conftest), as the tasks do,
so the driver and the workers compute every block alike.
"""

import numpy as np
import pytest

from icml25.hiref import hiref, hiref_factored, rank_schedule, sample
from icml25.hiref.distributed import _groups, default_depth

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client(dask_cluster):
    with dask_cluster() as address, distributed.Client(address, timeout=60) as client:
        yield client


def test_n_2_16_on_two_workers_gives_the_single_process_permutation(client):
    X, Y = sample("halfmoon_scurve", 2**16, 3)
    alone, log_alone = hiref(X, Y, seed=3, log=True)
    on_dask, log_dask = hiref(X, Y, seed=3, log=True, client=client)
    assert log_dask["dask_depth"] == default_depth(log_dask["ranks"], 2) == 1  # 4 blocks
    np.testing.assert_array_equal(on_dask, alone)
    assert log_dask["cost"] == log_alone["cost"]
    for here, there in zip(log_alone["levels"], log_dask["levels"], strict=True):
        for key in ("rank", "blocks", "block_size", "iterations", "mean_iterations", "converged"):
            assert here[key] == there[key], key
        # a level's objective and cost are float32 sums over its blocks, here by group
        assert there["lr_objective"] == pytest.approx(here["lr_objective"], rel=1e-6)
        assert there["cost"] == pytest.approx(here["cost"], rel=1e-6)
    assert log_dask["work"] == pytest.approx(log_alone["work"], rel=1e-12)


@pytest.mark.parametrize(
    ("cost", "kwargs"),
    [
        ("sqeuclidean", {"dask_depth": 0}),  # everything on one worker
        ("sqeuclidean", {"dask_depth": 2, "restarts": 2}),  # only the leaves on the workers
        ("euclidean", {"dask_depth": 1}),
    ],
)
def test_any_depth_and_cost_gives_the_single_process_permutation(client, cost, kwargs):
    X, Y = sample("moons_rings", 3001, 1)  # blocks of 1001 and 1000, leaves of 251 and 250
    assert rank_schedule(3001)[0] == (3, 4)
    alone = hiref(X, Y, seed=1, cost=cost, restarts=kwargs.get("restarts", 1))
    np.testing.assert_array_equal(hiref(X, Y, seed=1, cost=cost, client=client, **kwargs), alone)


def test_a_factored_cost_gives_the_single_process_permutation(client):
    X, Y = sample("gaussians", 3001, 2)
    A, B = -X, Y  # maximise the inner product
    alone = hiref_factored(A, B, seed=2)
    np.testing.assert_array_equal(hiref_factored(A, B, seed=2, client=client, dask_depth=1), alone)


def test_groups_cover_the_blocks_in_order():
    assert _groups(16, 4) == [(0, 4), (4, 8), (8, 12), (12, 16)]
    assert _groups(3, 8) == [(0, 1), (1, 2), (2, 3)]
    edges = _groups(10, 4)
    assert edges[0][0] == 0 and edges[-1][1] == 10
    assert all(a[1] == b[0] for a, b in zip(edges, edges[1:], strict=False))


def test_default_depth_gives_two_blocks_per_thread():
    assert default_depth((4, 4, 4), 2) == 1
    assert default_depth((4, 4, 4), 8) == 2
    assert default_depth((4, 4, 4), 128) == 3  # never deeper than the levels


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"client": object()}, "client"),
        ({"dask_depth": 1}, "dask_depth"),
    ],
)
def test_bad_client_arguments_are_named(kwargs, name):
    X, Y = sample("gaussians", 256, 0)
    with pytest.raises(ValueError, match=name):
        hiref(X, Y, **kwargs)


def test_a_depth_beyond_the_levels_is_named(client):
    X, Y = sample("gaussians", 1024, 0)
    with pytest.raises(ValueError, match="dask_depth"):
        hiref(X, Y, client=client, dask_depth=5)
