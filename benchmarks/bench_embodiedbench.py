"""embodiedbench: the oracle's lattice search against networkx, and the renderer's frame rate.

The oracle needs, at each planning step, the number of moves from every lattice point to the
goal region. What a user would write: a networkx grid graph of the free lattice points and a
multi-source breadth-first search from the goal (``multi_source_dijkstra_path_length`` with unit
weights). Ours dilates boolean arrays (:func:`icml25.embodiedbench.route.moves_to_goal`). The
two distance maps must be equal. The renderer is timed per frame at our 128 x 96 and at the
official 500 x 500. One thread; best of 3; peak traced memory (numpy allocations).

    python benchmarks/bench_embodiedbench.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.embodiedbench.render import render  # noqa: E402
from icml25.embodiedbench.route import moves_to_goal  # noqa: E402
from icml25.embodiedbench.world import STEP, SUCCESS_DISTANCE, Pose, generate_room  # noqa: E402


def anchor(room, pose, target):
    """networkx: graph of free lattice points, multi-source BFS from the goal. -> (2N+1, 2N+1)"""
    n = int(np.ceil(max(room.size) / STEP)) + 1
    offsets = STEP * np.arange(-n, n + 1)
    points = np.stack(np.meshgrid(pose.x + offsets, pose.y + offsets, indexing="ij"), axis=-1)
    free = room.free(points)
    graph = nx.grid_2d_graph(2 * n + 1, 2 * n + 1)
    graph.remove_nodes_from([tuple(p) for p in np.argwhere(~free)])
    near = np.hypot(*(points - target).transpose(2, 0, 1)) <= SUCCESS_DISTANCE
    goal = [tuple(p) for p in np.argwhere(free & near)]
    lengths = nx.multi_source_dijkstra_path_length(graph, goal)
    dist = np.full(free.shape, -1)
    for (i, j), k in lengths.items():
        dist[i, j] = k
    return dist


def main() -> None:
    rows = []
    for seed in range(3):
        room = generate_room(np.random.default_rng(seed))
        pose = Pose(room.size[0] / 2, 0.5, 0.0)
        target = room.positions[0]
        t_anchor, m_anchor, d_anchor = measure(lambda: anchor(room, pose, target))  # noqa: B023
        t_ours, m_ours, (d_ours, _) = measure(lambda: moves_to_goal(room, pose, target))  # noqa: B023
        assert np.array_equal(d_anchor, d_ours), "the two searches disagree"
        rows.append(
            [
                f"room {seed} ({room.size[0]:.1f} x {room.size[1]:.1f} m)",
                d_ours.size,
                1e3 * t_anchor,
                1e3 * t_ours,
                t_anchor / t_ours,
                m_anchor,
                m_ours,
            ]
        )
    print(
        table(
            [
                "search",
                "lattice points",
                "networkx ms",
                "ours ms",
                "speed-up",
                "networkx MB",
                "ours MB",
            ],
            rows,
        )
    )
    room = generate_room(np.random.default_rng(0))
    pose = Pose(room.size[0] / 2, 0.5, 0.0)
    frames = []
    for w, h in ((128, 96), (500, 500)):
        t, mem, _ = measure(lambda: render(room, pose, w, h))  # noqa: B023
        frames.append([f"{w} x {h}", 1e3 * t, 1 / t, mem])
    print()
    print(table(["frame", "ms per frame", "frames per s", "peak MB"], frames))


if __name__ == "__main__":
    main()
