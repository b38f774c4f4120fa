"""Free-form answers against accepted film titles (DIS-CO, Duarte et al., ICML 2025, Sec. 3).

DIS-CO asks a model to name the film a frame comes from and counts a frame as identified when the
answer is one of the film's accepted titles. The official code compares strings exactly against a
curated list of title variants per film; our lists (``data/movies.csv``) are our own curation, so
the comparison is made on normalised titles, with a small typo tolerance that cannot turn one
film's title into another's. The rules, in order:

1. *normalise* both strings (:func:`normalize_title`): accents dropped, lower case, ``&`` read as
   ``and``, a trailing year in brackets dropped (``Aladdin (2019)``), apostrophes and full stops
   removed (``E.T.`` -> ``et``), every other run of non-alphanumerics a single space, the
   articles ``the``, ``a``, ``an`` removed; equal normalised strings match;
2. a one-word accepted title matches an answer that spells it in several words
   (``Long Legs`` for ``Longlegs``);
3. a *typo*: the same number of words, and every word equal except at most one word of six
   letters or more that is one edit (insertion, deletion or substitution) away, the edit
   touching neither its first nor its last letter and neither word containing a digit
   (``Bhemian Rhapsody`` matches; ``Twister`` is not ``Twisters``, ``The Exorcist`` is not
   ``The Exorcism``, ``Despicable Me 3`` is not ``Despicable Me 4``,
   ``Kung Fu Panda`` is not ``Kung Fu Panda 4``, ``Beetlejuice`` is not
   ``Beetlejuice Beetlejuice``).

A franchise name alone (``Pirates of the Caribbean`` for *At World's End*) is not a match: it
does not say which film, and the paper's task is to name the film.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from icml25.common.json_reply import json_objects

ARTICLES = frozenset({"the", "a", "an"})
TYPO_MIN_LETTERS = 6

# Leading phrases a chatty model puts before the title ("The movie is ...").
_LEAD_INS = re.compile(
    r"^(?:i think |i believe |my guess is |this (?:frame |image |scene )?is from |"
    r"the (?:movie|film) (?:is|might be|could be|appears to be) |movie name:? |title:? |"
    r"answer:? )",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def normalize_title(text: str) -> str:
    """The normal form of a title (rule 1 of the module doc): ``"The King's Man"`` ->
    ``"kings man"``.

    Parameters
    ----------
    text : str
        A title or a model's answer.

    Returns
    -------
    str
        The normal form: lower case, accents and articles dropped, words single-spaced.

    Raises
    ------
    TypeError
        If ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(c for c in folded if not unicodedata.combining(c)).lower()
    folded = folded.replace("&", " and ")
    folded = re.sub(r"\(\s*\d{4}\s*\)\s*$", "", folded)
    folded = re.sub(r"['\u2019.]", "", folded)
    words = re.sub(r"[^0-9a-z]+", " ", folded).split()
    return " ".join(w for w in words if w not in ARTICLES)


def _one_inner_edit_apart(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one insertion, deletion or substitution that
    touches neither the first nor the last letter (``bhemian``/``bohemian`` yes;
    ``exorcist``/``exorcism`` and ``twister``/``twisters`` no: a changed ending is another
    word more often than a typo)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if i == 0 or i >= len(b) - 1:
        return False
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    return a[i:] == b[i + 1 :]


def _typo_match(answer: str, title: str) -> bool:
    """Rule 3 of the module doc, on normalised strings."""
    a_words, t_words = answer.split(), title.split()
    if len(a_words) != len(t_words):
        return False
    differing = [(a, t) for a, t in zip(a_words, t_words, strict=True) if a != t]
    if len(differing) != 1:
        return False
    a, t = differing[0]
    if any(c.isdigit() for c in a + t) or min(len(a), len(t)) < TYPO_MIN_LETTERS:
        return False
    return _one_inner_edit_apart(a, t)


@lru_cache(maxsize=262144)
def _match_normalized(answer: str, titles: tuple[str, ...]) -> bool:
    if not answer:
        return False
    for title in titles:
        if answer == title:
            return True
        if " " not in title and answer.replace(" ", "") == title:
            return True
        if _typo_match(answer, title):
            return True
    return False


def match_title(answer: str, accepted: Sequence[str]) -> bool:
    """Whether a free-form ``answer`` names the film whose accepted titles are ``accepted``
    (the rules of the module doc). An empty answer never matches.

    Parameters
    ----------
    answer : str
        The title the model gave.
    accepted : sequence of str
        The film's accepted titles, non-empty, none empty after normalisation.

    Returns
    -------
    bool
        True if ``answer`` names the film.

    Raises
    ------
    ValueError
        If ``accepted`` is a single string, empty, or holds a title that normalises to "".
    """
    if isinstance(accepted, str) or not isinstance(accepted, Sequence) or not accepted:
        raise ValueError("accepted must be a non-empty sequence of title strings")
    titles = tuple(normalize_title(t) for t in accepted)
    if not all(titles):
        raise ValueError(f"accepted titles must not be empty after normalisation: {accepted!r}")
    return _match_normalized(normalize_title(answer), titles)


def match_many(answers: Iterable[str], accepted: Sequence[str]) -> list[bool]:
    """:func:`match_title` for each answer against the same accepted titles (cached per
    distinct answer, so a long list of repeated answers costs one comparison each).

    Parameters
    ----------
    answers : iterable of str
        The titles the model gave.
    accepted : sequence of str
        The film's accepted titles, non-empty.

    Returns
    -------
    list of bool
        Whether each answer names the film, in order.

    Raises
    ------
    ValueError
        If ``accepted`` is a single string or empty.
    """
    if isinstance(accepted, str) or not isinstance(accepted, Sequence) or not accepted:
        raise ValueError("accepted must be a non-empty sequence of title strings")
    titles = tuple(normalize_title(t) for t in accepted)
    return [_match_normalized(normalize_title(a), titles) for a in answers]


def parse_answer(text: str) -> tuple[str, bool]:
    """The film title in a model's free-form reply, and whether the reply was well formed.

    We ask for JSON ``{"movie_name": ...}`` (as the official code's structured output does);
    a reply that is not JSON is still read: the first JSON object with a title in the prose,
    else the text in the first pair of double quotes, else the first line with its lead-ins
    ("I think", "the movie is") and a final full stop removed. A reply
    that gives no title (empty, JSON without a string ``movie_name``, JSON cut off before the
    title ends) returns ``("", False)``;
    a title read from non-JSON text returns ``(title, False)``: usable, but counted as
    malformed. A reply is never an error.

    Parameters
    ----------
    text : str
        The model's reply; anything else gives ``("", False)``.

    Returns
    -------
    title : str
        The film title read from the reply, "" when it gives none.
    well_formed : bool
        True only for a reply that is the asked-for JSON with a title.
    """
    if not isinstance(text, str):
        return "", False
    stripped = text.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", stripped, re.DOTALL)
    if fenced:
        stripped = fenced.group(1)
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            name = data.get("movie_name", data.get("title"))
            if isinstance(name, str) and name.strip():
                return name.strip(), True
            return "", False
        # broken JSON (e.g. cut off by the token limit): a complete title field or nothing
        field = re.search(r'"(?:movie_name|title)"\s*:\s*"([^"\n]+)"', stripped)
        return (field.group(1).strip(), False) if field else ("", False)
    embedded = next((o for o in json_objects(stripped) if "movie_name" in o or "title" in o), None)
    if embedded is not None:  # an object in prose: usable, counted as malformed
        name = embedded.get("movie_name", embedded.get("title"))
        return (name.strip(), False) if isinstance(name, str) and name.strip() else ("", False)
    quoted = re.search(r'"([^"\n]+)"', stripped)
    if quoted:
        return quoted.group(1).strip().rstrip("."), False
    first = stripped.splitlines()[0].strip() if stripped else ""
    while True:  # "I think the movie is Frozen." has two lead-ins
        shorter = _LEAD_INS.sub("", first).strip()
        if shorter == first:
            break
        first = shorter
    return first.rstrip(".").strip(), False
