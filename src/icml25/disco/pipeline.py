"""DIS-CO on your own frames, through any OpenAI-compatible vision-language endpoint
(Duarte et al., ICML 2025, Sec. 3).

For each film, every frame is shown to the model with the question "which film is this from?"
at temperature 0, and, when captions are given, each caption is asked alone (no image), so as to
see what the image adds. Answers are read (:func:`~icml25.disco.titles.parse_answer`), matched
against the film's accepted titles (:func:`~icml25.disco.titles.match_title`), and scored
(:mod:`icml25.disco.scoring`): the film's score is the fraction of frames named, the floor score
does not count frames whose caption already gave the film away. With release dates and a
cut-off, films released before it (suspect) are separated from those after it (clean) by ROC AUC.

The prompts are ours. A reply that is not the asked-for JSON is still read where it names a
title, and counted (``malformed``); a reply with no title counts as a miss (``empty``); neither
stops the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from icml25.common.llm import LLMClient, LLMConfigError, endpoint_from_env
from icml25.disco.data import suspect_labels
from icml25.disco.scoring import detection_auc, film_scores, floor_hits
from icml25.disco.titles import match_many, normalize_title, parse_answer

FRAME_PROMPT = (
    "This picture is a single still from a feature film. Which film is it? "
    'Answer with JSON only, in the form {"movie_name": "<the film\'s title>"}.'
)
CAPTION_PROMPT = (
    "Below is a description of a single still from a feature film. Which film is it? "
    'Answer with JSON only, in the form {"movie_name": "<the film\'s title>"}.'
)
# the JSON schema a server with structured output can enforce (``structured_output=True``)
ANSWER_SCHEMA = {
    "type": "json_schema",
    "json_schema": {
        "name": "film_title",
        "schema": {
            "type": "object",
            "properties": {"movie_name": {"type": "string"}},
            "required": ["movie_name"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


@dataclass(frozen=True)
class Film:
    """One film to test: its ``title``, its ``frames`` (uint8 arrays (H, W) or (H, W, 3), or
    PNG bytes), optional ``captions`` (one per frame), further ``accepted`` titles (the title
    itself is always accepted) and its ``released`` date (ISO ``YYYY-MM-DD``), needed for the
    AUC.

    Parameters
    ----------
    title : str
        The film's title, non-empty after normalisation; always an accepted answer.
    frames : sequence, default ()
        The frames to show the model, non-empty: uint8 arrays (H, W) or (H, W, 3), or PNG
        bytes.
    captions : sequence of str or None, default None
        One caption per frame, asked without the image; None for no caption answers.
    accepted : sequence of str, default ()
        Further accepted titles (a list, not a single string).
    released : str or None, default None
        The release date, ISO ``YYYY-MM-DD``; needed when ``run_disco`` gets a ``cutoff``.

    Raises
    ------
    ValueError
        If the title is empty, there are no frames, the captions are not one string per
        frame, or ``accepted`` is a string.
    """

    title: str
    frames: Sequence = ()
    captions: Sequence[str] | None = None
    accepted: Sequence[str] = ()
    released: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.title, str) or not normalize_title(self.title):
            raise ValueError(f"Film.title must be a non-empty title, got {self.title!r}")
        if isinstance(self.frames, str | bytes) or len(self.frames) == 0:
            raise ValueError(f"Film.frames of {self.title!r} must be a non-empty list of images")
        if self.captions is not None and len(self.captions) != len(self.frames):
            raise ValueError(
                f"Film.captions of {self.title!r} must give one caption per frame: "
                f"{len(self.captions)} captions for {len(self.frames)} frames"
            )
        if self.captions is not None and not all(isinstance(c, str) for c in self.captions):
            raise ValueError(f"Film.captions of {self.title!r} must be strings")
        if isinstance(self.accepted, str):
            raise ValueError(f"Film.accepted of {self.title!r} must be a list of titles")

    @property
    def titles(self) -> tuple[str, ...]:
        return (self.title, *self.accepted)


@dataclass(frozen=True)
class FilmResult:
    """One film's answers and scores. ``image_hits`` (n,) bool; the caption fields are
    ``None`` when the film had no captions.

    Parameters
    ----------
    title : str
        The film's title.
    image_answers : tuple of str, length n
        The title read from the model's reply to each frame ("" for none).
    image_hits : numpy.ndarray of bool, shape (n,)
        Whether each image answer names the film.
    score : float
        The DIS-CO score, the fraction of frames named, in [0, 1].
    caption_answers : tuple of str or None, default None
        The title read from the reply to each caption alone.
    caption_hits : numpy.ndarray of bool or None, shape (n,), default None
        Whether each caption answer names the film.
    caption_score : float or None, default None
        The fraction of captions whose answer names the film.
    floor_score : float or None, default None
        The floor score: the fraction of frames that are named while their caption alone
        does not name the film.
    malformed : int, default 0
        The number of replies (image and caption) that were not the asked-for JSON.
    empty : int, default 0
        The number of replies that gave no title.
    """

    title: str
    image_answers: tuple[str, ...]
    image_hits: np.ndarray
    score: float
    caption_answers: tuple[str, ...] | None = None
    caption_hits: np.ndarray | None = None
    caption_score: float | None = None
    floor_score: float | None = None
    malformed: int = 0
    empty: int = 0


@dataclass(frozen=True)
class DiscoReport:
    """Every film's result; the labels (1 suspect, 0 clean) and the AUCs when release dates
    and a cut-off were given and both classes are present; the malformed and empty replies;
    the client's usage.

    Parameters
    ----------
    films : tuple of FilmResult
        Every film's result, in the order given.
    labels : numpy.ndarray of int or None, shape (F,), default None
        1 for a suspect film (released before the cut-off), 0 for a clean one; None without a
        cut-off.
    auc : float or None, default None
        The ROC AUC of the film scores, suspect against clean; None without a cut-off or
        without both classes.
    caption_auc : float or None, default None
        The ROC AUC of the caption scores (every film has captions), else None.
    floor_auc : float or None, default None
        The ROC AUC of the floor scores (every film has captions), else None.
    malformed : int, default 0
        The number of replies that were not the asked-for JSON, over all films.
    empty : int, default 0
        The number of replies that gave no title, over all films.
    usage : dict, default {}
        The client's ``usage()``: calls, cached calls, retries, tokens and cost.
    """

    films: tuple[FilmResult, ...]
    labels: np.ndarray | None = None
    auc: float | None = None
    caption_auc: float | None = None
    floor_auc: float | None = None
    malformed: int = 0
    empty: int = 0
    usage: dict = field(default_factory=dict)


def default_client() -> LLMClient:
    """A client of the endpoint named by the environment (``ICML25_LLM_MODEL``,
    ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``); one clear error when no model is named.

    Returns
    -------
    LLMClient
        A client of that endpoint.

    Raises
    ------
    LLMConfigError
        If the environment names no model.
    """
    endpoint = endpoint_from_env()
    if endpoint is None:
        raise LLMConfigError(
            "DIS-CO needs a vision-language model: set ICML25_LLM_MODEL (and OPENAI_BASE_URL "
            "for a local server), or pass client=LLMClient.from_endpoint(Endpoint(url, model))"
        )
    return LLMClient.from_endpoint(endpoint)


def ask_titles(
    client: LLMClient,
    *,
    frames: Sequence | None = None,
    captions: Sequence[str] | None = None,
    structured_output: bool = False,
    max_tokens: int = 64,
) -> list[tuple[str, bool]]:
    """The model's answer to "which film?" for each frame (image only) or each caption (text
    only), as ``(title, well_formed)`` pairs in order (see
    :func:`~icml25.disco.titles.parse_answer`). Requests run concurrently, up to the
    client's limit.

    Parameters
    ----------
    client : LLMClient
        The client of a vision-language endpoint.
    frames : sequence or None, default None
        The frames (uint8 arrays or PNG bytes), each asked with ``FRAME_PROMPT``.
    captions : sequence of str or None, default None
        The captions, each asked alone with ``CAPTION_PROMPT``; give exactly one of
        ``frames`` and ``captions``.
    structured_output : bool, default False
        Ask the server to enforce the answer's JSON schema (``response_format``).
    max_tokens : int, default 64
        The most tokens of each reply.

    Returns
    -------
    list of tuple of (str, bool)
        One ``(title, well_formed)`` pair per frame or caption, in order; ``title`` is ""
        when the reply gave none.

    Raises
    ------
    TypeError
        If ``client`` is not an ``LLMClient``.
    ValueError
        If not exactly one of ``frames`` and ``captions`` is given.
    """
    if not isinstance(client, LLMClient):
        raise TypeError(f"client must be an icml25.common.llm.LLMClient, got {client!r}")
    if (frames is None) == (captions is None):
        raise ValueError("give exactly one of frames (image answers) or captions (text answers)")
    fmt = ANSWER_SCHEMA if structured_output else None
    if frames is not None:
        requests = [
            dict(
                messages=[{"role": "user", "content": FRAME_PROMPT}],
                images=[frame],
                temperature=0.0,
                max_tokens=max_tokens,
                response_format=fmt,
            )
            for frame in frames
        ]
    else:
        requests = [
            dict(
                messages=[
                    {"role": "user", "content": f"{CAPTION_PROMPT}\n\nDescription: {caption}"}
                ],
                temperature=0.0,
                max_tokens=max_tokens,
                response_format=fmt,
            )
            for caption in captions
        ]
    return [parse_answer(reply.text) for reply in client.chat_many(requests)]


def run_disco(
    films: Sequence[Film],
    client: LLMClient | None = None,
    *,
    cutoff: str | None = None,
    structured_output: bool = False,
    max_tokens: int = 64,
) -> DiscoReport:
    """DIS-CO on ``films``: each film's frame answers, caption answers (when captions are
    given), scores, and with ``cutoff`` (an ISO date, the model's training cut-off) the AUCs of
    suspect films (released before it) against clean ones. ``client`` defaults to
    :func:`default_client`.

    Parameters
    ----------
    films : sequence of Film
        The films to test, non-empty.
    client : LLMClient or None, default None
        The vision-language client; None for :func:`default_client`.
    cutoff : str or None, default None
        The model's training cut-off, ISO ``YYYY-MM-DD``; needs every ``Film.released``.
    structured_output : bool, default False
        Ask the server to enforce the answer's JSON schema.
    max_tokens : int, default 64
        The most tokens of each reply.

    Returns
    -------
    DiscoReport
        Every film's answers and scores, and with ``cutoff`` the labels and, when both
        classes are present, the AUCs.

    Raises
    ------
    ValueError
        If ``films`` is empty or not a list, or ``cutoff`` is given and a film has no
        release date.
    TypeError
        If an entry of ``films`` is not a ``Film``.
    """
    if isinstance(films, Film) or not isinstance(films, Sequence) or not films:
        raise ValueError("films must be a non-empty list of Film")
    if not all(isinstance(f, Film) for f in films):
        raise TypeError("films must hold icml25.disco.Film objects")
    client = default_client() if client is None else client
    results = []
    for film in films:
        image = ask_titles(
            client, frames=film.frames, structured_output=structured_output, max_tokens=max_tokens
        )
        results.append(_score_film(client, film, image, structured_output, max_tokens))
    labels = auc = caption_auc = floor_auc = None
    if cutoff is not None:
        missing = [f.title for f in films if f.released is None]
        if missing:
            raise ValueError(f"cutoff needs every Film.released; missing for {missing}")
        labels = suspect_labels([f.released for f in films], cutoff)
        if len(np.unique(labels)) == 2:
            auc = detection_auc(np.array([r.score for r in results]), labels)
            if all(r.caption_score is not None for r in results):
                caption_auc = detection_auc(np.array([r.caption_score for r in results]), labels)
                floor_auc = detection_auc(np.array([r.floor_score for r in results]), labels)
    return DiscoReport(
        films=tuple(results),
        labels=labels,
        auc=auc,
        caption_auc=caption_auc,
        floor_auc=floor_auc,
        malformed=sum(r.malformed for r in results),
        empty=sum(r.empty for r in results),
        usage=client.usage(),
    )


def _score_film(
    client: LLMClient,
    film: Film,
    image: list[tuple[str, bool]],
    structured_output: bool,
    max_tokens: int,
) -> FilmResult:
    answers = [title for title, _ in image]
    hits = np.asarray(match_many(answers, film.titles), dtype=bool)  # (n,)
    one_film = np.zeros(len(answers), dtype=np.int64)
    score = float(film_scores(hits, one_film, 1)[0])
    malformed = sum(not ok for _, ok in image)
    empty = sum(not title for title, _ in image)
    if film.captions is None:
        return FilmResult(film.title, tuple(answers), hits, score, malformed=malformed, empty=empty)
    text = ask_titles(
        client, captions=film.captions, structured_output=structured_output, max_tokens=max_tokens
    )
    caption_answers = [title for title, _ in text]
    caption_hits = np.asarray(match_many(caption_answers, film.titles), dtype=bool)
    return FilmResult(
        film.title,
        tuple(answers),
        hits,
        score,
        caption_answers=tuple(caption_answers),
        caption_hits=caption_hits,
        caption_score=float(film_scores(caption_hits, one_film, 1)[0]),
        floor_score=float(film_scores(floor_hits(hits, caption_hits), one_film, 1)[0]),
        malformed=malformed + sum(not ok for _, ok in text),
        empty=empty + sum(not title for title, _ in text),
    )
