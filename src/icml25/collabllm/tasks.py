"""Hidden-intent tasks: the user wants one of several artefacts, and a request is ambiguous until
the hidden choices are clarified (the offline stand-in for CollabLLM's benchmark, Wu et al.,
ICML 2025, Sec. 4: MATH-Chat, MediumDocEdit-Chat, BigCodeBench-Chat).

A task family has three *slots* (hidden choices), each with a few options and a population prior
``p(option)``; a user's intent is one option per slot, drawn from the priors. The opening request
states some slots and leaves the others unstated: the *ambiguity level* is the number of unstated
slots (0: unambiguous). An answer fixes every slot (stated, clarified, or guessed at the prior's
mode) and is turned into a real artefact by the family's solver, then scored against the
artefact of the user's intent by the family's task metric:

- ``number`` (MATH-Chat): a statistic of a list of numbers; metric: exact accuracy;
- ``ranking`` (document editing): a list of words sorted by a hidden key and order, maybe cut;
  metric: a BLEU-like overlap (mean of unigram and adjacent-pair F1);
- ``code`` (BigCodeBench): the source of a Python function ``clean(xs)`` with hidden behaviour,
  executed on hidden tests; metric: pass rate.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np


@dataclass(frozen=True)
class Slot:
    """One hidden choice: its name, the user's words for each option, and the prior.

    Parameters
    ----------
    name : str
        The slot's name (``"statistic"``, ``"key"``, ``"negatives"``, ...).
    options : tuple of str
        The user's words for each option, e.g. ``("the mean", "the median", "the midrange")``.
    prior : tuple of float
        The population prior ``p(option)``, one probability per option (sums to 1); its argmax
        is the slot's ``mode``, the guess of an assistant that does not ask.
    """

    name: str
    options: tuple[str, ...]
    prior: tuple[float, ...]

    @property
    def mode(self) -> int:
        return int(np.argmax(self.prior))


@dataclass(frozen=True)
class Family:
    """A task family: its slots, its request wording, its metric weights.

    The weights are those of Sec. 3.2 (task metric, interactivity, tokens in thousands, as in the
    official build scripts).

    Parameters
    ----------
    name : str
        The family's name: ``"number"``, ``"ranking"`` or ``"code"``.
    request : str
        The opening request's wording, with a ``{data}`` placeholder for the task's data.
    slots : tuple of Slot
        The family's ``N_SLOTS`` hidden choices.
    weight_task : float
        Weight of the task metric (accuracy, BLEU-like overlap or pass rate) in the reward.
    weight_interactivity : float
        Weight of the interactivity score in the reward (0 where the family does not use it).
    weight_tokens : float
        Weight of the conversation's length in thousands of tokens (negative: a cost).
    """

    name: str
    request: str
    slots: tuple[Slot, ...]
    weight_task: float
    weight_interactivity: float
    weight_tokens: float


FAMILIES = (
    Family(
        "number",
        "Give me a single number that summarises these measurements: {data}",
        (
            Slot("statistic", ("the mean", "the median", "the midrange"), (0.5, 0.3, 0.2)),
            Slot(
                "outliers",
                ("keep every value", "drop the largest value", "drop the smallest value"),
                (0.5, 0.3, 0.2),
            ),
            Slot("rounding", ("two decimals", "a whole number", "one decimal"), (0.5, 0.3, 0.2)),
        ),
        1.0,  # accuracy
        0.5,  # interactivity (LLM judge in the paper, a rubric here)
        -0.5,  # thousands of tokens (MATH-Chat: accuracy 1, interactivity 0.5, tokens -0.5)
    ),
    Family(
        "ranking",
        "Please put these words in order for my document: {data}",
        (
            Slot("key", ("alphabetical", "by length", "by number of vowels"), (0.5, 0.3, 0.2)),
            Slot("order", ("ascending", "descending"), (0.6, 0.4)),
            Slot(
                "cut",
                ("all of them", "only the first five", "only the first three"),
                (0.5, 0.3, 0.2),
            ),
        ),
        1.0,  # BLEU-like overlap
        0.0,
        -0.1,  # MediumDocEdit-Chat: BLEU 1, tokens -0.1
    ),
    Family(
        "code",
        "Write me a Python function clean(xs) that tidies up a list of integers such as {data}",
        (
            Slot(
                "negatives",
                ("keep negatives", "drop negatives", "take absolute values"),
                (0.5, 0.3, 0.2),
            ),
            Slot("duplicates", ("keep duplicates", "remove duplicates"), (0.6, 0.4)),
            Slot(
                "order",
                ("keep the input order", "sort ascending", "reverse the list"),
                (0.5, 0.3, 0.2),
            ),
        ),
        1.0,  # pass rate
        0.0,
        -0.5,  # BigCodeBench-Chat: pass rate 1, tokens -0.5
    ),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)
N_SLOTS = 3
WORDS = (
    "apple banana kiwi fig cherry grape lemon mango melon papaya peach pear plum quince "
    "lime date guava olive apricot orange"
).split()


@dataclass(frozen=True)
class Task:
    """One request: family index, its data, the user's intent and the stated slots.

    Parameters
    ----------
    family : int
        Index of the task family in ``FAMILIES`` (``0 <= family < len(FAMILIES)``).
    data : tuple
        The request's data: numbers (``number``), words (``ranking``) or integers (``code``).
    intent : tuple of int
        The user's intent: one option index per slot.
    stated : tuple of bool
        Which slots the opening request states; the number of ``False`` is the ambiguity level.
    tests : tuple of tuple of int, default ()
        Hidden test inputs of the ``code`` family (empty for the other families).
    """

    family: int
    data: tuple
    intent: tuple[int, ...]
    stated: tuple[bool, ...]
    tests: tuple[tuple[int, ...], ...] = ()

    @property
    def spec(self) -> Family:
        return FAMILIES[self.family]

    @property
    def ambiguity(self) -> int:
        return self.stated.count(False)

    def opening(self) -> str:
        """The user's first message: the request plus the stated slots, in the user's words."""
        fam = self.spec
        stated = [fam.slots[j].options[self.intent[j]] for j in range(N_SLOTS) if self.stated[j]]
        text = fam.request.format(data=list(self.data))
        return text + (" (" + ", ".join(stated) + ")" if stated else "")


def draw_task(family: int, ambiguity: int, rng: np.random.Generator) -> Task:
    """A task of ``family`` whose opening leaves ``ambiguity`` slots unstated.

    The unstated slots are chosen at random; the intent is drawn from the slots' priors.

    Parameters
    ----------
    family : int
        Index of the task family in ``FAMILIES`` (``0 <= family < len(FAMILIES)``; a bool is
        refused).
    ambiguity : int
        Number of unstated slots, ``0 <= ambiguity <= N_SLOTS`` (0: unambiguous).
    rng : numpy.random.Generator
        Source of the intent, the hidden slots and the data.

    Returns
    -------
    task : Task
        The drawn task (with hidden tests for the ``code`` family).

    Raises
    ------
    ValueError
        If ``family`` or ``ambiguity`` is out of range or not an integer.
    """
    if isinstance(family, bool) or not isinstance(family, int | np.integer):
        raise ValueError(f"family must be an index in [0, {len(FAMILIES)}), got {family!r}")
    if not 0 <= family < len(FAMILIES):
        raise ValueError(f"family must be an index in [0, {len(FAMILIES)}), got {family!r}")
    if not isinstance(ambiguity, int | np.integer) or not 0 <= ambiguity <= N_SLOTS:
        raise ValueError(f"ambiguity must be an integer in [0, {N_SLOTS}], got {ambiguity!r}")
    fam = FAMILIES[family]
    intent = tuple(int(rng.choice(len(s.options), p=s.prior)) for s in fam.slots)
    hidden = set(rng.choice(N_SLOTS, size=ambiguity, replace=False).tolist())
    stated = tuple(j not in hidden for j in range(N_SLOTS))
    tests: tuple = ()
    if fam.name == "number":
        data = tuple(float(x) for x in np.round(rng.gamma(2.0, 6.0, size=7), 2))
    elif fam.name == "ranking":
        data = tuple(str(w) for w in rng.choice(WORDS, size=8, replace=False))
    else:
        data = tuple(int(x) for x in rng.integers(-5, 6, size=6))
        tests = tuple(
            tuple(int(x) for x in rng.integers(-6, 7, size=int(rng.integers(3, 9))))
            for _ in range(6)
        )
    return Task(family, data, intent, stated, tests)


def draw_tasks(n_per_cell: int, levels, rng: np.random.Generator) -> list[Task]:
    """``n_per_cell`` tasks for each (family, ambiguity level).

    Parameters
    ----------
    n_per_cell : int
        Number of tasks per (family, ambiguity level) cell.
    levels : iterable of int
        The ambiguity levels, each in ``[0, N_SLOTS]``.
    rng : numpy.random.Generator
        Source of the tasks, passed to ``draw_task``.

    Returns
    -------
    tasks : list of Task
        ``len(FAMILIES) * len(levels) * n_per_cell`` tasks, ordered by family, then level.
    """
    return [
        draw_task(f, int(level), rng)
        for f in range(len(FAMILIES))
        for level in levels
        for _ in range(n_per_cell)
    ]


# --------------------------------------------------------------------------- solvers and metrics


def artefact(task: Task, choice: tuple[int, ...]):
    """The artefact an assistant produces when it settles the slots as ``choice``.

    Parameters
    ----------
    task : Task
        The task whose family and data the artefact is built from.
    choice : tuple of int
        One option index per slot.

    Returns
    -------
    artefact : float or tuple of str or str
        A rounded number (``number``), a tuple of words (``ranking``) or the Python source of
        ``clean(xs)`` (``code``).
    """
    return _artefact(task.family, task.data, tuple(choice))


@lru_cache(maxsize=200_000)
def _artefact(family: int, data: tuple, choice: tuple[int, ...]):
    name = FAMILIES[family].name
    if name == "number":
        values = np.sort(np.asarray(data))
        values = values[:-1] if choice[1] == 1 else values[1:] if choice[1] == 2 else values
        stat = (
            values.mean()
            if choice[0] == 0
            else np.median(values)
            if choice[0] == 1
            else (values.min() + values.max()) / 2
        )
        return round(float(stat), (2, 0, 1)[choice[2]])
    if name == "ranking":
        keys = (
            lambda w: w,
            lambda w: (len(w), w),
            lambda w: (sum(c in "aeiou" for c in w), w),
        )
        words = sorted(data, key=keys[choice[0]], reverse=choice[1] == 1)
        return tuple(words[: (len(words), 5, 3)[choice[2]]])
    return code_source(choice)


def code_source(choice: tuple[int, ...]) -> str:
    """Python source of ``clean(xs)`` for a settled ``choice`` of the code family's slots."""
    body = ["def clean(xs):", "    out = list(xs)"]
    body += [
        [],
        ["    out = [x for x in out if x >= 0]"],
        ["    out = [abs(x) for x in out]"],
    ][choice[0]]
    if choice[1] == 1:
        body += ["    seen = set()", "    out = [x for x in out if not (x in seen or seen.add(x))]"]
    body += [[], ["    out = sorted(out)"], ["    out = out[::-1]"]][choice[2]]
    return "\n".join(body + ["    return out"])


@lru_cache(maxsize=64)
def compiled(source: str):
    """Execute a generated source once; the function it defines."""
    namespace: dict = {}
    exec(compile(source, "<clean>", "exec"), namespace)  # our own generated code only
    return namespace["clean"]


def task_score(task: Task, produced) -> float:
    """The family's task metric of a produced artefact against the intended one, in [0, 1].

    Parameters
    ----------
    task : Task
        The task; its intended artefact is ``artefact(task, task.intent)``.
    produced : float or tuple of str or str
        The produced artefact, as returned by ``artefact``.

    Returns
    -------
    score : float
        Exact accuracy (``number``), the BLEU-like overlap (``ranking``) or the pass rate on the
        hidden tests (``code``), in ``[0, 1]``.
    """
    target = artefact(task, task.intent)
    name = task.spec.name
    if name == "number":
        return float(produced == target)
    if name == "ranking":
        return _overlap(tuple(produced), target)
    fn, ref = compiled(produced), compiled(target)
    return float(np.mean([fn(list(t)) == ref(list(t)) for t in task.tests]))


def _overlap(produced: tuple, target: tuple) -> float:
    """BLEU-like: mean of unigram F1 and F1 of adjacent pairs."""

    def f1(a: set, b: set) -> float:
        common = len(a & b)
        return 0.0 if common == 0 else 2 * common / (len(a) + len(b))

    pairs = lambda xs: set(zip(xs, xs[1:], strict=False))  # noqa: E731
    return 0.5 * f1(set(produced), set(target)) + 0.5 * f1(pairs(produced), pairs(target))


def is_success(task: Task, produced) -> bool:
    """Task success: the produced artefact is the intended one (score 1).

    Parameters
    ----------
    task : Task
        The task.
    produced : float or tuple of str or str
        The produced artefact, as returned by ``artefact``.

    Returns
    -------
    success : bool
        Whether ``task_score(task, produced)`` is 1.
    """
    return math.isclose(task_score(task, produced), 1.0)


def count_tokens(text: str) -> int:
    """Approximate token count: words and punctuation marks (stands in for cl100k_base).

    Parameters
    ----------
    text : str
        The text to count.

    Returns
    -------
    n_tokens : int
        Number of words plus punctuation marks in ``text``.
    """
    return len(re.findall(r"\w+|[^\w\s]", text))
