"""Validity, memorisation and creativity of generated answers, as the official evaluation
(``eval_qa.py`` of ChenWu98/algorithmic-creativity) scores them.

For N test prompts with answers ``y_1..y_N`` (the tokens after the prompt, up to the first
``</a>``), the paper's *algorithmic creativity* is

    creativity = |unique{ y_i : y_i valid and y_i not memorised }| / N,

unique over the answers themselves; *memorised* means that the answer's canonical form is the
canonical form of some training answer: circle and line relabel the entities by first
appearance (so a known shape on new entities is still memorised), triangles sort their three
vertices, sibling answers are compared as they are.

Validity (the official checks): sibling, ``b1 b2 a`` with ``b1`` a ``b1``-child and ``b2`` a
``b2``-child of the parent ``a``; circle, ``u v`` segments joined by ``<sep>`` in which every
node appears exactly twice and that are connected (one cycle, of any length); line, segments in
which two nodes appear once, the rest twice, connected (one path, of any length); triangle,
``a b <sep> b' c <sep> x`` with ``a~b'``, ``b'~c`` and ``c~a`` edges of the graph (the official
check parses ``b`` and then overwrites it with ``b'``, so ``b`` is never tested, and it only
requires a third segment to exist). For memorisation the official canonical triangle sorts the
first vertex of each of the first three segments, ``a``, ``b'`` and ``x``. On well-formed
answers (``b = b'``, ``x c`` ... ``c a``) these are the plain triangle checks.

Parsing is a short loop per answer: answers are short and N is at most a few thousand, off the
decoding hot path.
"""

from __future__ import annotations

import numpy as np

from icml25.common.arrays import int_array
from icml25.creativity.tasks import END, ENTITY0, SEP, TASKS, TaskData, _check_task


def answer_tokens(row: np.ndarray) -> tuple[int, ...] | None:
    """The tokens of one generated row up to its first ``</a>``.

    Parameters
    ----------
    row : ndarray of int, shape (A,)
        One generated answer, a vector of integer tokens (may be empty).

    Returns
    -------
    answer : tuple of int or None
        The tokens before the first ``END`` (``</a>``), or None if the row has none.
    """
    int_array("row", row, ndim=1, nonempty=False)
    return _answer_tokens(np.asarray(row))


def _answer_tokens(row: np.ndarray) -> tuple[int, ...] | None:
    stop = np.flatnonzero(row == END)
    return None if stop.size == 0 else tuple(int(t) for t in row[: stop[0]])


def _segments(answer: tuple[int, ...]) -> list[tuple[int, ...]]:
    out, cur = [], []
    for t in answer:
        if t == SEP:
            out.append(tuple(cur))
            cur = []
        else:
            cur.append(t)
    out.append(tuple(cur))
    return out


def _edges(answer, n_entities):
    """The ``u v`` segments as entity pairs, or None if one is not two entities."""
    segs = _segments(answer)
    if not all(len(s) == 2 and all(ENTITY0 <= t < ENTITY0 + n_entities for t in s) for s in segs):
        return None
    return segs


def _connected(edges) -> bool:
    nodes = {u for e in edges for u in e}
    adj: dict[int, set[int]] = {u: set() for u in nodes}
    for u, v in edges:
        adj[u].add(v)
        adj[v].add(u)
    seen, stack = set(), [next(iter(nodes))]
    while stack:
        u = stack.pop()
        if u not in seen:
            seen.add(u)
            stack.extend(adj[u] - seen)
    return len(seen) == len(nodes)


def _degrees(edges) -> dict[int, int]:
    deg: dict[int, int] = {}
    for u, v in edges:
        deg[u] = deg.get(u, 0) + 1
        deg[v] = deg.get(v, 0) + 1
    return deg


def is_valid(answer: tuple[int, ...] | None, task: TaskData) -> bool:
    """The official validity check of one answer (see the module docstring).

    Parameters
    ----------
    answer : tuple of int or None
        Tokens before ``</a>``, as :func:`answer_tokens` returns them; None or empty is invalid.
    task : TaskData
        The task whose name picks the check and whose ``structure`` (parents and kinds,
        adjacency, ``n_entities``) it reads.

    Returns
    -------
    valid : bool
        True when the answer is a valid sibling triple, triangle, cycle or path of the task.
    """
    _check_task(task)
    if answer is None or len(answer) == 0:
        return False
    s = task.structure
    if task.name == "sibling":
        if len(answer) != 3:
            return False
        b1, b2, a = (t - ENTITY0 for t in answer)
        n, kind, parent = s["n_entities"], s["kind"], s["parent"]
        if not all(0 <= x < n for x in (b1, b2, a)):
            return False
        return bool(
            kind[a] == 0 and kind[b1] == 1 and kind[b2] == 2 and parent[b1] == parent[b2] == a
        )
    if task.name == "triangle":
        segs = _segments(answer)
        if len(segs) != 3 or len(segs[0]) != 2 or len(segs[1]) != 2:
            return False
        (a, b), (b2, c) = segs[0], segs[1]
        n = s["n_entities"]
        if not all(0 <= x - ENTITY0 < n for x in (a, b, b2, c)):
            return False
        adj = s["adjacency"]
        a, b2, c = (x - ENTITY0 for x in (a, b2, c))
        return bool(adj[a, b2] and adj[b2, c] and adj[c, a])
    edges = _edges(answer, s["n_entities"])
    if edges is None:
        return False
    deg = np.array(list(_degrees(edges).values()))
    if task.name == "circle":
        shape_ok = bool((deg == 2).all())
    else:
        shape_ok = int((deg == 1).sum()) == 2 and int((deg == 2).sum()) == deg.size - 2
    return shape_ok and _connected(edges)


def canonical_form(answer: tuple[int, ...] | None, task_name: str) -> tuple[int, ...] | None:
    """The official canonical form of one answer, used to decide memorisation.

    Circle and line relabel entities by first appearance (``<sep>`` kept, as -1), triangles sort
    the first entity of each of the first three segments (``a, b, c`` in
    ``a b <sep> b c <sep> c a``) into ``i j <sep> j k <sep> k i`` with ``i < j < k`` (an answer
    with fewer segments, or one without an entity, stays as it is), sibling answers stay as
    they are.

    Parameters
    ----------
    answer : tuple of int or None
        Tokens before ``</a>``, as :func:`answer_tokens` returns them.
    task_name : str
        One of ``TASKS``.

    Returns
    -------
    form : tuple of int or None
        The canonical form; None when ``answer`` is None or, for circle and line, when a
        segment is not two tokens long.
    """
    if task_name not in TASKS:
        raise ValueError(f"task_name must be one of {TASKS}, got {task_name!r}")
    if answer is None:
        return None
    if task_name in ("circle", "line"):
        if not all(len(seg) == 2 for seg in _segments(answer)):
            return None
        names: dict[int, int] = {}
        out = []
        for t in answer:
            if t == SEP:
                out.append(-1)
            else:
                out.append(names.setdefault(t, len(names)))
        return tuple(out)
    if task_name == "triangle":
        segs = _segments(answer)
        firsts = [next((t for t in seg if t >= ENTITY0), None) for seg in segs[:3]]
        if len(firsts) < 3 or None in firsts:
            return answer
        i, j, k = sorted(firsts)
        return (i, j, SEP, j, k, SEP, k, i)
    return answer


def training_canonical_forms(task: TaskData) -> set:
    """Canonical forms of the training answers of a task.

    Parameters
    ----------
    task : TaskData
        The task; for triangle only its triangle sequences count (edge facts are skipped).

    Returns
    -------
    forms : set
        The :func:`canonical_form` of each training answer (None for an answer without
        ``</a>``).
    """
    _check_task(task)
    forms = set()
    for row, p in zip(task.train, task.prompt_len, strict=True):
        answer = _answer_tokens(row[p:])
        if task.name == "triangle" and p == 1:  # an edge fact
            continue
        forms.add(canonical_form(answer, task.name))
    return forms


def creativity_score(samples: np.ndarray, task: TaskData, train_forms: set | None = None) -> dict:
    """Algorithmic creativity of generated answers (see the module docstring).

    For N test prompts with answers ``y_1..y_N`` (the tokens up to the first ``</a>``),
    ``creativity = |unique{ y_i : y_i valid and y_i not memorised }| / N`` (Nagarajan, Wu, Ding
    & Raghunathan, ICML 2025).

    Parameters
    ----------
    samples : numpy.ndarray
        (N, A) integer array, N >= 1: the tokens each test prompt generated after its prompt.
        Each row is read up to its first ``</a>`` (``END``); a row without one is an invalid,
        unmemorised answer. Every token must lie in ``[0, task.vocab_size)``.
    task : TaskData
        The task (from :func:`construction_task`, :func:`sibling_task` or
        :func:`triangle_task`) whose training set defines memorisation and whose structure
        defines validity.
    train_forms : set or frozenset, optional
        The canonical forms of the training answers, as :func:`training_canonical_forms`
        returns them, if already computed; None (the default) computes them from ``task``.

    Returns
    -------
    dict
        Five floats in [0, 1]: ``creativity`` (unique valid not-memorised answers / N),
        ``memorised`` (fraction of the N answers whose canonical form is a training one),
        ``valid`` (fraction valid), ``novel_valid`` (fraction valid and not memorised, repeats
        counted), ``diversity`` (unique valid answers / N, the official "diversity score").

    Raises
    ------
    ValueError
        If ``samples`` is not a non-empty (N, A) integer array or holds tokens outside the
        task's vocabulary ``[0, vocab_size)``.
    TypeError
        If ``task`` is not a :class:`TaskData` or ``train_forms`` is not a set.
    """
    samples = np.asarray(samples)
    if samples.ndim != 2 or samples.shape[0] == 0 or not np.issubdtype(samples.dtype, np.integer):
        raise ValueError(f"samples must be a non-empty (N, A) integer array, got {samples.shape}")
    if not isinstance(task, TaskData):
        raise TypeError(f"task must be a TaskData, got {type(task).__name__}")
    if samples.min() < 0 or samples.max() >= task.vocab_size:
        raise ValueError(
            f"samples must hold tokens in [0, {task.vocab_size - 1}] (the task's vocabulary), "
            f"got values in [{samples.min()}, {samples.max()}]"
        )
    if train_forms is not None and not isinstance(train_forms, set | frozenset):
        raise TypeError(f"train_forms must be a set, got {type(train_forms).__name__}")
    forms = training_canonical_forms(task) if train_forms is None else train_forms
    n = len(samples)
    creative, valid_set = set(), set()
    n_valid = n_mem = n_novel = 0
    for row in samples:
        answer = _answer_tokens(row)
        valid = is_valid(answer, task)
        memorised = answer is not None and canonical_form(answer, task.name) in forms
        n_valid += valid
        n_mem += memorised
        if valid:
            valid_set.add(answer)
            if not memorised:
                n_novel += 1
                creative.add(answer)
    return {
        "creativity": len(creative) / n,
        "memorised": n_mem / n,
        "valid": n_valid / n,
        "novel_valid": n_novel / n,
        "diversity": len(valid_set) / n,
    }
