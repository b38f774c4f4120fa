import numpy as np
import pytest

from icml25.creativity import ENTITY0
from icml25.creativity.tasks import triangle_task


@pytest.fixture
def triangle_with_far_vertex():
    """A 60-vertex triangle task, the entity tokens of one of its triangles ``a -> b -> c -> a``
    and of a vertex ``far`` not adjacent to ``a``: ``(task, (a, b, c, far))``."""
    tri = triangle_task(60, 900, 30, 4, np.random.default_rng(2))
    adj = tri.structure["adjacency"]
    a, b, c = next(
        (i, j, k)
        for i, j, k in zip(*np.nonzero(adj[:, :, None] & adj[None, :, :]), strict=False)
        if adj[k, i] and len({i, j, k}) == 3
    )
    far = next(v for v in range(60) if not adj[a, v] and v != a)
    return tri, tuple(ENTITY0 + int(x) for x in (a, b, c, far))
