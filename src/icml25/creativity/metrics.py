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

:func:`is_valid` and :func:`canonical_form` read one answer (a short loop over its tokens);
:func:`creativity_score` and :func:`training_canonical_forms` apply the same checks to all
answers at once, with numpy over the (N, A) array of answers, and touch each answer in Python
only to look its canonical form up in the set of training forms.
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
    keep = ~((task.name == "triangle") & (task.prompt_len == 1))  # (n,) not an edge fact
    tok, length, ended = _answer_arrays(task.train[keep], task.prompt_len[keep])
    return set(_canonical_keys(tok, length, ended, task.name))


def _answer_arrays(rows: np.ndarray, start: np.ndarray | None = None):
    """Every row's answer (its tokens from ``start`` up to the first ``</a>``) as one array.

    Parameters
    ----------
    rows : ndarray of int, shape (N, T)
        Token rows.
    start : ndarray of int, shape (N,), optional
        Where each row's answer begins (default 0).

    Returns
    -------
    tok : ndarray of int64, shape (N, W)
        Answer tokens, -1 from each answer's end on (``W >= 8``, at least the longest answer).
    length : ndarray of int64, shape (N,)
        Tokens before the first ``</a>`` (0 for a row without one).
    ended : ndarray of bool, shape (N,)
        Whether the row has a ``</a>`` (False: :func:`answer_tokens` gives None).
    """
    n, t = rows.shape
    if start is None:
        tok = rows.astype(np.int64)  # (N, T)
    else:
        idx = start[:, None] + np.arange(t - int(start.min(initial=0)))[None, :]  # (N, W)
        tok = np.take_along_axis(rows, np.minimum(idx, t - 1), 1).astype(np.int64)
        tok[idx >= t] = -1
    is_end = tok == END  # (N, W)
    ended = is_end.any(axis=1)
    length = np.where(ended, is_end.argmax(axis=1), 0)
    width = max(8, int(length.max(initial=0)))
    out = np.full((n, width), -1, np.int64)  # (N, W)
    keep = min(width, tok.shape[1])
    out[:, :keep] = tok[:, :keep]
    out[np.arange(width)[None, :] >= length[:, None]] = -1
    return out, length, ended


def _first_occurrence(a: np.ndarray) -> np.ndarray:
    """(M, L) -> (M, L): for each entry, the position of the first entry of its row that holds
    the same value (a stable sort of each row; no (M, L, L) comparison)."""
    m, width = a.shape
    order = np.argsort(a, axis=1, kind="stable")  # (M, L)
    srt = np.take_along_axis(a, order, 1)
    new = np.ones((m, width), bool)
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]  # a new value starts in the sorted row
    lead = np.maximum.accumulate(np.where(new, np.arange(width), 0), axis=1)
    first = np.empty_like(order)
    np.put_along_axis(first, order, np.take_along_axis(order, lead, 1), 1)
    return first


def _keys(form: np.ndarray, length: np.ndarray, ok: np.ndarray) -> list:
    """Rows of ``form`` (M, W) cut to ``length`` as tuples, None where ``ok`` is False."""
    rows, lens = form.tolist(), np.where(ok, length, -1).tolist()
    return [None if k < 0 else tuple(r[:k]) for r, k in zip(rows, lens, strict=True)]


def _canonical_keys(tok, length, ended, task_name: str) -> list:
    """:func:`canonical_form` of every answer of :func:`_answer_arrays`, as a list of N."""
    pos = np.arange(tok.shape[1])[None, :]  # (1, W)
    inside = pos < length[:, None]  # (N, W)
    is_sep = tok == SEP
    if task_name in ("circle", "line"):
        # two tokens per segment: <sep> exactly at positions 2, 5, 8, ... of a 3k - 1 answer
        two = ended & (length % 3 == 2) & ((is_sep == (pos % 3 == 2)) | ~inside).all(axis=1)
        first = _first_occurrence(tok)  # (N, W)
        new = (first == pos) & inside & ~is_sep  # first appearance of an entity
        rank = np.cumsum(new, axis=1) - 1  # (N, W) how many entities appeared before
        form = np.where(is_sep, -1, np.take_along_axis(rank, first, 1))
        return _keys(form, length, two)
    if task_name == "triangle":
        seg = np.cumsum(is_sep, axis=1) - is_sep  # (N, W) segment index of each token
        ent = (tok >= ENTITY0) & inside
        firsts, found = [], ended & (is_sep.sum(axis=1) >= 2)
        for k in range(3):
            here = ent & (seg == k)  # (N, W)
            found &= here.any(axis=1)
            firsts.append(np.take_along_axis(tok, here.argmax(axis=1)[:, None], 1)[:, 0])
        i, j, k = np.sort(np.stack(firsts, axis=1), axis=1).T  # (N,) each
        sep = np.full_like(i, SEP)
        tri = np.stack([i, j, sep, j, k, sep, k, i], axis=1)  # (N, 8)
        form = np.where(found[:, None], np.pad(tri, ((0, 0), (0, tok.shape[1] - 8))), tok)
        return _keys(form, np.where(found, 8, length), ended)
    return _keys(tok, length, ended)


def _valid(tok, length, ended, task: TaskData) -> np.ndarray:
    """:func:`is_valid` of every answer of :func:`_answer_arrays`, (N,) bool."""
    s = task.structure
    n = s["n_entities"]
    ent = tok - ENTITY0  # (N, W) entity index, out of [0, n) for other tokens
    in_range = (ent >= 0) & (ent < n)
    if task.name == "sibling":
        b1, b2, a = (np.where(in_range[:, k], ent[:, k], 0) for k in range(3))  # (N,) each
        kind, parent = s["kind"], s["parent"]
        shape_ok = ended & (length == 3) & in_range[:, :3].all(axis=1)
        return (
            shape_ok
            & (kind[a] == 0)
            & (kind[b1] == 1)
            & (kind[b2] == 2)
            & (parent[b1] == parent[b2])
            & (parent[b2] == a)
        )
    is_sep = tok == SEP
    if task.name == "triangle":
        # a b <sep> b' c <sep> x: exactly two <sep>, at positions 2 and 5
        shape_ok = ended & (is_sep.sum(axis=1) == 2) & is_sep[:, 2] & is_sep[:, 5]
        shape_ok &= in_range[:, [0, 1, 3, 4]].all(axis=1)
        a, b2, c = (np.where(shape_ok, ent[:, k], 0) for k in (0, 3, 4))  # (N,) each
        adj = s["adjacency"]
        return shape_ok & adj[a, b2] & adj[b2, c] & adj[c, a]
    pos = np.arange(tok.shape[1])[None, :]  # (1, W)
    inside = pos < length[:, None]
    slot_ok = np.where(pos % 3 == 2, is_sep, in_range)  # (N, W) <sep> or an entity
    valid = ended & (length % 3 == 2) & (slot_ok | ~inside).all(axis=1)
    rows = np.flatnonzero(valid)  # (M,) answers made of u v edges
    if rows.size == 0:
        return valid
    n_edges = (length[rows] + 1) // 3  # (M,)
    e = int(n_edges.max())
    ends = np.full((rows.size, 3 * e), -1, np.int64)
    width = min(3 * e, tok.shape[1])
    ends[:, :width] = tok[rows, :width]
    ends = ends.reshape(rows.size, e, 3)[:, :, :2]  # (M, E, 2) the u v of each edge
    real = np.arange(e)[None, :] < n_edges[:, None]  # (M, E)
    ends = np.where(real[:, :, None], ends, ends[:, :1, :]).reshape(rows.size, 2 * e)  # pad: edge 0
    real2 = np.repeat(real, 2, axis=1)  # (M, 2E)
    node = _first_occurrence(ends)  # (M, 2E) the node of each endpoint, by first endpoint
    flat = node + 2 * e * np.arange(rows.size)[:, None]
    deg = np.bincount(flat.ravel(), weights=real2.ravel(), minlength=flat.size)[flat]  # (M, 2E)
    if task.name == "circle":
        shape_ok = ((deg == 2) | ~real2).all(axis=1)
    else:
        one = (deg == 1) & real2  # an end of the path, seen once
        shape_ok = ((deg == 2) | one | ~real2).all(axis=1) & (one.sum(axis=1) == 2)
    # connected: propagate the smallest node label along the edges until nothing changes
    label = np.arange(flat.size)  # (M * 2E,) over node slots; a row's first node is 2E * row
    u, v = flat[:, 0::2].ravel(), flat[:, 1::2].ravel()  # (M * E,)
    while True:
        low = np.minimum(label[u], label[v])
        before = label.copy()
        np.minimum.at(label, u, low)
        np.minimum.at(label, v, low)
        if (label == before).all():
            break
    connected = (label[flat] == 2 * e * np.arange(rows.size)[:, None]).all(axis=1)
    valid[rows] = shape_ok & connected
    return valid


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
    tok, length, ended = _answer_arrays(samples)  # (N, W), (N,), (N,)
    valid = _valid(tok, length, ended, task)  # (N,)
    keys = _canonical_keys(tok, length, ended, task.name)
    memorised = ended & np.fromiter(map(forms.__contains__, keys), bool, count=n)  # (N,)
    novel = valid & ~memorised
    return {
        "creativity": len(np.unique(tok[novel], axis=0)) / n,
        "memorised": int(memorised.sum()) / n,
        "valid": int(valid.sum()) / n,
        "novel_valid": int(novel.sum()) / n,
        "diversity": len(np.unique(tok[valid], axis=0)) / n,
    }
