"""The four open-ended algorithmic tasks of Nagarajan, Wu, Ding & Raghunathan, *Roll the dice &
look before you leap: Going beyond the creative limits of next-token prediction*, ICML 2025
(Sec. 2 and App. B), as token arrays, laid out as the official code
(ChenWu98/algorithmic-creativity) lays out its text.

Every sequence is ``hash <q> answer </a>`` (triangle: ``hash <tri> answer </a>``), the *hash*
being ``hash_len`` random characters (the seed-conditioning prefix; ``hash_len = 0`` is the
official "no hash" dataset, whose every prompt is the same ``<q>``):

- sibling discovery: parents ``a_i``, each with ``n_children`` children of kind ``b1`` and as
  many of kind ``b2``; an answer is ``b1 b2 a`` with ``b1`` and ``b2`` children of ``a``;
  the training set is a random subset of all such triples;
- triangle discovery: a graph with planted triangles (``generate_triangle_graph``); training
  sequences are triangles ``a b <sep> b c <sep> c a`` and, to teach the graph, edge facts
  ``<edge> u v <sep> v u </a>``;
- circle construction: ``n_nodes`` distinct entities of ``n_entities`` on a cycle, the cycle's
  edges ``u v`` shuffled and joined by ``<sep>``;
- line construction: ``n_nodes + 1`` distinct entities on a path, its ``n_nodes`` edges shuffled.

Token ids: the specials ``SPECIALS`` first, then ``HASH_CHARS`` hash characters, then the
task's entities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.validate import check_int, check_real

PAD, MASK, SEP, Q, END, TRI, EDGE = range(7)
SPECIALS = ("<pad>", "<mask>", "<sep>", "<q>", "</a>", "<tri>", "<edge>")
HASH_CHARS = 36  # a-z and 0-9, as the official hashes
HASH0 = len(SPECIALS)
ENTITY0 = HASH0 + HASH_CHARS
TASKS = ("sibling", "triangle", "circle", "line")
MAX_ENTRIES = 2**31  # an array of more entries than this is refused: out of memory
MAX_HASH_LEN = 1024  # longer hashes are refused (finding repeats grows as hash_len^2)


def _check_rng(rng) -> None:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")


def _check_entries(what: str, entries: int) -> None:
    if entries > MAX_ENTRIES:
        raise ValueError(f"{what} = {entries:.3g} entries, more than {MAX_ENTRIES:.3g}: too large")


@dataclass(frozen=True)
class TaskData:
    """A generated task: training sequences, test prompts and what validity needs.

    Parameters
    ----------
    name : str
        One of ``TASKS``: ``"sibling"``, ``"triangle"``, ``"circle"`` or ``"line"``.
    train : ndarray of int64, shape (n, T)
        Training sequences, right-padded with ``PAD``.
    prompt_len : ndarray of int64, shape (n,)
        Prompt length of each training sequence (hash + ``<q>``, or ``<tri>``; 1 for a triangle
        task's edge facts): the next-token loss is on the tokens after it.
    test_prompts : ndarray of int64, shape (N, P)
        Fresh hashes (never a training hash) followed by ``<q>`` (triangle: ``<tri>``).
    answer_len : int
        Tokens after the prompt of a full answer, ``</a>`` included.
    vocab_size : int
        Number of token ids: the specials, the hash characters, then the entities.
    structure : dict
        What the validity check needs: ``n_entities`` always; for sibling ``parent`` (child
        entity -> parent entity, -1 for parents) and ``kind`` (0 parent, 1 ``b1``, 2 ``b2``);
        for triangle ``adjacency`` (V, V) bool.
    """

    name: str
    train: np.ndarray
    prompt_len: np.ndarray
    test_prompts: np.ndarray
    answer_len: int
    vocab_size: int
    structure: dict


def _check_task(task) -> None:
    """TypeError unless ``task`` is a :class:`TaskData`."""
    if not isinstance(task, TaskData):
        raise TypeError(f"task must be a TaskData, got {type(task).__name__}")


def draw_hashes(n: int, hash_len: int, rng: np.random.Generator) -> np.ndarray:
    """Draw ``n`` distinct random hashes of ``hash_len`` characters as token ids.

    A draw that repeats an earlier one is redrawn (the official code keeps a set of used hashes).

    Parameters
    ----------
    n : int
        Number of hashes, ``>= 0``; at most half of the ``36**hash_len`` possible hashes.
    hash_len : int
        Characters per hash, ``0 <= hash_len <= MAX_HASH_LEN`` (1024); 0 gives empty hashes.
    rng : numpy.random.Generator
        Source of the random characters.

    Returns
    -------
    hashes : ndarray of int64, shape (n, hash_len)
        Distinct rows of token ids in ``[HASH0, HASH0 + 36)``. ``n * hash_len`` above 2**31
        entries is refused.
    """
    check_int("n", n, minimum=0)
    check_int("hash_len", hash_len, minimum=0)
    if hash_len > MAX_HASH_LEN:
        raise ValueError(f"hash_len must be at most {MAX_HASH_LEN}, got {hash_len}")
    _check_rng(rng)
    _check_entries("n x hash_len", n * hash_len)
    if hash_len == 0:
        return np.zeros((n, 0), np.int64)
    if n > HASH_CHARS**hash_len // 2:
        raise ValueError(f"hash_len={hash_len} is too short for n={n} distinct hashes")
    codes = rng.integers(0, HASH_CHARS, (n, hash_len))  # (n, L)
    while True:
        _, first = np.unique(codes, axis=0, return_index=True)
        repeat = np.setdiff1d(np.arange(n), first)
        if repeat.size == 0:
            return (HASH0 + codes).astype(np.int64)
        codes[repeat] = rng.integers(0, HASH_CHARS, (repeat.size, hash_len))


def _prompts(hashes: np.ndarray, start: int) -> np.ndarray:
    """(n, L) hashes -> (n, L + 1) prompts ``hash <q>`` (or ``hash <tri>``)."""
    return np.concatenate([hashes, np.full((len(hashes), 1), start, np.int64)], axis=1)


def _edge_answer(edges: np.ndarray) -> np.ndarray:
    """(n, k, 2) entity edges -> (n, 3k) tokens ``u v <sep> ... u v </a>``."""
    n, k, _ = edges.shape
    cells = np.concatenate([edges, np.full((n, k, 1), SEP)], axis=2).reshape(n, 3 * k)
    cells[:, -1] = END
    return cells


def _split_hashes(n_train, n_test, hash_len, rng):
    hashes = draw_hashes(n_train + n_test, hash_len, rng)
    return hashes[:n_train], hashes[n_train:]


def _random_subsets(n: int, n_entities: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """(n, size): for each row ``size`` distinct entities in random order."""
    return np.argsort(rng.random((n, n_entities)), axis=1)[:, :size]


def _shuffle_rows(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shuffle the second axis of (n, k, ...) independently per row."""
    order = np.argsort(rng.random(x.shape[:2]), axis=1)
    return np.take_along_axis(x, order.reshape(order.shape + (1,) * (x.ndim - 2)), axis=1)


def construction_task(
    name: str,
    n_entities: int,
    n_nodes: int,
    n_train: int,
    n_test: int,
    hash_len: int,
    rng: np.random.Generator,
) -> TaskData:
    """Generate the circle or line construction task (official ``circle.ipynb`` / ``line.ipynb``).

    Each training answer is a random cycle on ``n_nodes`` (line: a path on ``n_nodes + 1``)
    distinct entities, its ``n_nodes`` edges ``u v`` in random order joined by ``<sep>``.

    Parameters
    ----------
    name : str
        ``"circle"`` or ``"line"``.
    n_entities : int
        Entities to draw from, ``>= n_nodes`` (line: ``>= n_nodes + 1``).
    n_nodes : int
        Edges of each answer, ``>= 3``.
    n_train : int
        Training sequences, ``>= 1``.
    n_test : int
        Test prompts, ``>= 1``.
    hash_len : int
        Characters of each hash prefix, ``>= 0`` (see :func:`draw_hashes`).
    rng : numpy.random.Generator
        Source of the entities, the edge orders and the hashes.

    Returns
    -------
    task : TaskData
        ``train`` (n_train, hash_len + 1 + 3 n_nodes), ``answer_len = 3 n_nodes``,
        ``vocab_size = ENTITY0 + n_entities``.

    Notes
    -----
    Paper setting: ``n_entities = 10``, ``n_nodes = 9``, 10,000 training sequences, 1,024 test
    hashes of 10 characters.
    """
    if name not in ("circle", "line"):
        raise ValueError(f"name must be 'circle' or 'line', got {name!r}")
    check_int("n_nodes", n_nodes, minimum=3)
    check_int("n_entities", n_entities, minimum=n_nodes + (name == "line"))
    check_int("n_train", n_train, minimum=1)
    check_int("n_test", n_test, minimum=1)
    _check_rng(rng)
    _check_entries("n_train x n_entities", n_train * n_entities)
    size = n_nodes + 1 if name == "line" else n_nodes
    nodes = ENTITY0 + _random_subsets(n_train, n_entities, size, rng)  # (n, size)
    ends = nodes if name == "circle" else nodes[:, :-1]
    edges = np.stack([ends, np.roll(nodes, -1, axis=1)[:, : ends.shape[1]]], axis=2)  # (n, k, 2)
    train_hash, test_hash = _split_hashes(n_train, n_test, hash_len, rng)
    prompts = _prompts(train_hash, Q)
    answers = _edge_answer(_shuffle_rows(edges, rng))
    return TaskData(
        name=name,
        train=np.concatenate([prompts, answers], axis=1),
        prompt_len=np.full(n_train, prompts.shape[1], np.int64),
        test_prompts=_prompts(test_hash, Q),
        answer_len=answers.shape[1],
        vocab_size=ENTITY0 + n_entities,
        structure={"n_entities": n_entities},
    )


def sibling_task(
    n_parents: int,
    n_children: int,
    n_train: int,
    n_test: int,
    hash_len: int,
    rng: np.random.Generator,
) -> TaskData:
    """Generate the sibling discovery task (the official ``sibling.ipynb``).

    Entities are the parents, then the ``b1`` children (``n_children`` per parent, parent ``i``
    owning the ``i``-th block), then the ``b2`` children; the training answers ``b1 b2 a`` are
    ``n_train`` distinct triples drawn from all ``n_parents n_children^2``.

    Parameters
    ----------
    n_parents : int
        Parent entities, ``>= 1``.
    n_children : int
        Children of each kind per parent, ``>= 1``.
    n_train : int
        Training sequences, ``1 <= n_train <= n_parents * n_children**2``.
    n_test : int
        Test prompts, ``>= 1``.
    hash_len : int
        Characters of each hash prefix, ``>= 0`` (see :func:`draw_hashes`).
    rng : numpy.random.Generator
        Source of the triples and the hashes.

    Returns
    -------
    task : TaskData
        ``train`` (n_train, hash_len + 5), ``answer_len = 4``, ``vocab_size = ENTITY0 +
        n_parents (1 + 2 n_children)``; ``structure`` holds ``parent`` and ``kind``.

    Notes
    -----
    Paper setting: 5 parents, 500 children of each kind, 50,000 training sequences, 3,000 test
    hashes.
    """
    check_int("n_parents", n_parents, minimum=1)
    check_int("n_children", n_children, minimum=1)
    total = n_parents * n_children**2
    check_int("n_train", n_train, minimum=1)
    if n_train > total:
        raise ValueError(f"n_train must be at most n_parents * n_children**2 = {total}")
    check_int("n_test", n_test, minimum=1)
    _check_rng(rng)
    _check_entries("n_train x 4 tokens", n_train * 4)
    _check_entries("n_parents x (1 + 2 n_children) entities", n_parents * (1 + 2 * n_children))
    flat = rng.choice(total, size=n_train, replace=False)  # (n,) distinct triples
    a, rest = np.divmod(flat, n_children**2)
    j1, j2 = np.divmod(rest, n_children)
    b1 = n_parents + a * n_children + j1
    b2 = n_parents * (1 + n_children) + a * n_children + j2
    answers = ENTITY0 + np.stack([b1, b2, a, np.full(n_train, END - ENTITY0)], axis=1)
    train_hash, test_hash = _split_hashes(n_train, n_test, hash_len, rng)
    prompts = _prompts(train_hash, Q)
    n_ent = n_parents * (1 + 2 * n_children)
    parent = np.full(n_ent, -1, np.int64)
    kids = np.arange(n_parents * n_children)
    parent[n_parents + kids] = kids // n_children
    parent[n_parents * (1 + n_children) + kids] = kids // n_children
    kind = np.zeros(n_ent, np.int64)  # 0 parent, 1 b1, 2 b2
    kind[n_parents : n_parents * (1 + n_children)] = 1
    kind[n_parents * (1 + n_children) :] = 2
    return TaskData(
        name="sibling",
        train=np.concatenate([prompts, answers.astype(np.int64)], axis=1),
        prompt_len=np.full(n_train, prompts.shape[1], np.int64),
        test_prompts=_prompts(test_hash, Q),
        answer_len=4,
        vocab_size=ENTITY0 + n_ent,
        structure={"n_entities": n_ent, "parent": parent, "kind": kind},
    )


def generate_triangle_graph(
    n_nodes: int, degree: int, flex: float, triangles: int, rng: np.random.Generator
) -> np.ndarray:
    """Random graph with planted triangles (the official ``generate_graph_with_triangles``).

    Connect each vertex to ``degree`` random non-neighbours whose degree is at most
    ``flex * degree``, then plant ``triangles`` triangles per vertex by joining two of its
    neighbours. Sequential by nature (each step depends on the degrees so far): a loop over
    vertices, run once per task.

    Parameters
    ----------
    n_nodes : int
        Vertices ``V``, ``>= 3``.
    degree : int
        Target degree of the first pass, ``2 <= degree < n_nodes``.
    flex : float
        A vertex of degree above ``flex * degree`` takes no new edge in the first pass, ``>= 0``.
    triangles : int
        Triangles planted per vertex, ``>= 0`` (fewer where a vertex has under two neighbours).
    rng : numpy.random.Generator
        Source of the edges.

    Returns
    -------
    adjacency : ndarray of bool, shape (V, V)
        Symmetric adjacency matrix with a false diagonal.
    """
    check_int("n_nodes", n_nodes, minimum=3)
    check_int("degree", degree, minimum=2)
    if degree >= n_nodes:
        raise ValueError(f"degree must be less than n_nodes = {n_nodes}, got {degree}")
    check_real("flex", flex, low=0.0, high=float("inf"), high_open=True)
    check_int("triangles", triangles, minimum=0)
    _check_rng(rng)
    _check_entries("n_nodes^2 of the adjacency", n_nodes * n_nodes)
    adj = np.zeros((n_nodes, n_nodes), bool)
    for v in range(n_nodes):
        deg = adj.sum(axis=1)
        pool = np.flatnonzero(~adj[v] & (deg <= flex * degree) & (np.arange(n_nodes) != v))
        need = max(0, degree - int(deg[v]))
        pick = rng.choice(pool, size=min(need, pool.size), replace=False)
        adj[v, pick] = adj[pick, v] = True
    added = np.zeros(n_nodes, np.int64)
    for u in range(n_nodes):
        while added[u] < triangles:
            nbrs = np.flatnonzero(adj[u])
            if nbrs.size < 2:
                break
            v, w = rng.choice(nbrs, size=2, replace=False)
            adj[v, w] = adj[w, v] = True
            added[[u, v, w]] += 1
    return adj


def triangle_task(
    n_nodes: int,
    n_samples: int,
    n_test: int,
    hash_len: int,
    rng: np.random.Generator,
    *,
    degree: int = 3,
    flex: float = 1.2,
    triangles: int = 6,
    triangle_prob: float = 1 / 3,
) -> TaskData:
    """Generate the triangle discovery task (the official ``triangle.ipynb``).

    A fraction ``triangle_prob`` of the ``n_samples`` training sequences are triangles
    ``hash <tri> a b <sep> b c <sep> c a </a>`` (``b, c`` two neighbours of a random ``a`` that
    are themselves adjacent), the rest edge facts ``<edge> u v <sep> v u </a>`` (no hash, padded
    with ``PAD``), on one graph from :func:`generate_triangle_graph`.

    Parameters
    ----------
    n_nodes : int
        Vertices of the graph, ``>= 3``.
    n_samples : int
        Training sequences, ``>= 1``.
    n_test : int
        Test prompts, ``>= 1``.
    hash_len : int
        Characters of each triangle sequence's hash, ``>= 0`` (see :func:`draw_hashes`).
    rng : numpy.random.Generator
        Source of the graph, the samples and the hashes.
    degree : int, default 3
        Target degree of the graph, ``2 <= degree < n_nodes``.
    flex : float, default 1.2
        Degree slack of the graph, ``>= 0`` (see :func:`generate_triangle_graph`).
    triangles : int, default 6
        Triangles planted per vertex, ``>= 0``.
    triangle_prob : float, default 1/3
        Probability that a training sequence is a triangle rather than an edge fact, in
        ``[0, 1]``.

    Returns
    -------
    task : TaskData
        ``train`` (n_samples, hash_len + 10), ``answer_len = 9``, ``vocab_size = ENTITY0 +
        n_nodes``; ``structure`` holds ``adjacency``. ValueError if triangles are to be drawn
        and the graph has none.

    Notes
    -----
    Paper setting: 999 vertices, degree 3, 6 triangles per vertex, 15,000 samples, 1,024 test
    hashes.
    """
    check_int("n_samples", n_samples, minimum=1)
    check_int("n_test", n_test, minimum=1)
    check_real("triangle_prob", triangle_prob, low=0.0, high=1.0)
    _check_entries("n_samples x 9 tokens", n_samples * 9)
    adj = generate_triangle_graph(n_nodes, degree, flex, triangles, rng)
    tri = np.argwhere(np.triu(adj, 1))  # (E, 2)
    common = adj[tri[:, 0]] & adj[tri[:, 1]]  # (E, V): third vertices
    ab, c = np.nonzero(common)
    # every ordered (u; v, w) with u adjacent to both and v ~ w, as in the official rejection loop
    triples = np.stack([c, tri[ab, 0], tri[ab, 1]], axis=1)  # (K, 3): a, b, c
    triples = np.concatenate([triples, triples[:, [0, 2, 1]]])
    is_tri = rng.random(n_samples) < triangle_prob
    n_tri, n_edge = int(is_tri.sum()), int((~is_tri).sum())
    if n_tri and not len(triples):
        raise ValueError("the graph has no triangle to sample: raise triangles (or degree)")
    t = ENTITY0 + triples[rng.integers(0, len(triples), n_tri)]  # (n_tri, 3)
    train_hash, test_hash = _split_hashes(n_tri, n_test, hash_len, rng)
    a, b, c3 = t.T
    tri_answer = np.stack(
        [a, b, np.full(n_tri, SEP), b, c3, np.full(n_tri, SEP), c3, a, np.full(n_tri, END)], 1
    )
    tri_seq = np.concatenate([_prompts(train_hash, TRI), tri_answer], axis=1)
    edges = np.argwhere(adj)  # (2E, 2) both orientations
    uv = ENTITY0 + edges[rng.integers(0, len(edges), n_edge)]
    u, v = uv.T
    edge_seq = np.stack(
        [np.full(n_edge, EDGE), u, v, np.full(n_edge, SEP), v, u, np.full(n_edge, END)], 1
    )
    width = tri_seq.shape[1]
    edge_seq = np.pad(edge_seq, ((0, 0), (0, width - edge_seq.shape[1])), constant_values=PAD)
    train = np.empty((n_samples, width), np.int64)
    train[is_tri], train[~is_tri] = tri_seq, edge_seq
    prompt_len = np.where(is_tri, hash_len + 1, 1)
    return TaskData(
        name="triangle",
        train=train,
        prompt_len=prompt_len.astype(np.int64),
        test_prompts=_prompts(test_hash, TRI),
        answer_len=9,
        vocab_size=ENTITY0 + n_nodes,
        structure={"n_entities": n_nodes, "adjacency": adj},
    )


def strip_hash(task: TaskData) -> TaskData:
    """The official "no hash" dataset of a task.

    The same training answers with the hash removed, and test prompts that are all the bare
    ``<q>`` (greedy decoding then gives one output).

    Parameters
    ----------
    task : TaskData
        A sibling, circle or line task (not triangle).

    Returns
    -------
    task : TaskData
        ``train`` (n, T - hash_len) starting with ``<q>``, ``prompt_len`` all 1,
        ``test_prompts`` (N, 1) all ``Q``; the other fields as in ``task``.
    """
    _check_task(task)
    if task.name == "triangle":
        raise ValueError("task must be a construction or sibling task, got 'triangle'")
    p = int(task.prompt_len[0])
    train = task.train[:, p - 1 :]
    n_test = len(task.test_prompts)
    return TaskData(
        name=task.name,
        train=train,
        prompt_len=np.ones(len(train), np.int64),
        test_prompts=np.full((n_test, 1), Q, np.int64),
        answer_len=task.answer_len,
        vocab_size=task.vocab_size,
        structure=task.structure,
    )
