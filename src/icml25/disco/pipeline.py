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
    AUC."""

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
    ``None`` when the film had no captions."""

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
    the client's usage."""

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
    ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``); one clear error when no model is named."""
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
    client's limit."""
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
    :func:`default_client`."""
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
