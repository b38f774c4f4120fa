"""The answers released with DIS-CO (Duarte et al., ICML 2025), as arrays.

``data/answers.csv.gz`` holds every answer of the official release (github.com/avduarte333/DIS-CO,
``Replicate_Results/``, Apache-2.0; built by :mod:`icml25.disco.convert_release`): for the 100
films of MovieTection, 20 scenes x 5 main frames and 10 scenes x 4 neutral frames each, the
answers of four models (GPT-4o, Gemini-1.5 Pro, LLaMA-3.2 90B Vision, Qwen2-VL 72B) to "which
film is this frame from?" given the frame (image) and given its caption alone.
``data/movies.csv`` is ours: each film's title, release date and accepted titles, curated here
(the benchmark's own answer lists and labels live in its Hugging Face dataset, which is not
reachable offline). A film is *suspect* (label 1) when released before the cut-off,
2023-09-01 as in the paper, else *clean* (0).
"""

from __future__ import annotations

import csv
import gzip
import io
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from importlib import resources

import numpy as np

CUTOFF = "2023-09-01"
FRAME_TYPES = ("main", "neutral")
# short names for measurement keys, in the release's model order
MODEL_KEYS = {
    "gpt-4o-2024-08-06": "gpt4o",
    "gemini-1.5-pro": "gemini15pro",
    "Llama-3.2-90B-Vision-Instruct": "llama32_90b",
    "Qwen2-VL-72B-Instruct": "qwen2vl_72b",
}


@dataclass(frozen=True)
class Release:
    """The release's answers, one entry per (film, frame type, scene, shot, model).

    Films (F = 100): ``movies`` (the release's folder names), ``titles``, ``release_dates``
    (ISO strings), ``accepted`` (a tuple of accepted titles per film), ``notes``.
    Answers (R = 56,000): ``movie_index`` (R,) into the films, ``frame_type`` (R,) ``"main"``
    or ``"neutral"``, ``scene`` and ``shot`` (R,), ``model`` (R,) model names,
    ``image_answer`` and ``caption_answer`` (R,) strings.

    Parameters
    ----------
    movies : tuple of str, length F
        The release's folder name of each film.
    titles : tuple of str, length F
        Each film's title.
    release_dates : tuple of str, length F
        Each film's release date, ISO ``YYYY-MM-DD``.
    accepted : tuple of tuple of str, length F
        The accepted titles of each film.
    notes : tuple of str, length F
        Our curation note on each film (may be empty).
    movie_index : numpy.ndarray of int64, shape (R,)
        The film of each answer, an index into the films.
    frame_type : numpy.ndarray of str, shape (R,)
        ``"main"`` or ``"neutral"``.
    scene : numpy.ndarray of int64, shape (R,)
        The scene of each answer's frame.
    shot : numpy.ndarray of int64, shape (R,)
        The shot (frame) within its scene.
    model : numpy.ndarray of str, shape (R,)
        The model that answered (a key of :data:`MODEL_KEYS`).
    image_answer : numpy.ndarray of object, shape (R,)
        The model's answer given the frame, a string.
    caption_answer : numpy.ndarray of object, shape (R,)
        The model's answer given the frame's caption alone, a string.
    """

    movies: tuple[str, ...]
    titles: tuple[str, ...]
    release_dates: tuple[str, ...]
    accepted: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]
    movie_index: np.ndarray
    frame_type: np.ndarray
    scene: np.ndarray
    shot: np.ndarray
    model: np.ndarray
    image_answer: np.ndarray
    caption_answer: np.ndarray

    @property
    def models(self) -> tuple[str, ...]:
        """The models of the release, in :data:`MODEL_KEYS` order."""
        present = set(self.model.tolist())
        return tuple(m for m in MODEL_KEYS if m in present)

    def labels(self, cutoff: str = CUTOFF) -> np.ndarray:
        """(F,) 1 for a film released before ``cutoff`` (suspect), 0 otherwise (clean)."""
        return suspect_labels(self.release_dates, cutoff)

    def rows(self, model: str, frame_type: str) -> np.ndarray:
        """Indices (n,) of one model's answers on one frame type, ordered by film, scene, shot."""
        if model not in MODEL_KEYS:
            raise ValueError(f"model must be one of {list(MODEL_KEYS)}, got {model!r}")
        if frame_type not in FRAME_TYPES:
            raise ValueError(f"frame_type must be one of {FRAME_TYPES}, got {frame_type!r}")
        idx = np.flatnonzero((self.model == model) & (self.frame_type == frame_type))
        order = np.lexsort((self.shot[idx], self.scene[idx], self.movie_index[idx]))
        return idx[order]


def suspect_labels(release_dates, cutoff: str = CUTOFF) -> np.ndarray:
    """(F,) int: 1 where the ISO date is before ``cutoff`` (the film may be in the training
    data), 0 otherwise.

    Parameters
    ----------
    release_dates : sequence of str, length F
        The films' release dates, ISO ``YYYY-MM-DD``.
    cutoff : str, default ``CUTOFF`` ("2023-09-01")
        The model's training cut-off, ISO ``YYYY-MM-DD``.

    Returns
    -------
    numpy.ndarray of int, shape (F,)
        1 (suspect) for a film released strictly before ``cutoff``, else 0 (clean).

    Raises
    ------
    ValueError
        If ``cutoff`` or a release date is not an ISO date.
    """
    try:
        limit = date.fromisoformat(cutoff)
        days = [date.fromisoformat(d) for d in release_dates]
    except (TypeError, ValueError) as err:
        raise ValueError(f"cutoff and release_dates must be ISO dates YYYY-MM-DD: {err}") from err
    return np.array([d < limit for d in days], dtype=int)


def _read_text(name: str) -> str:
    data = (resources.files("icml25.disco") / "data" / name).read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8")


@lru_cache(maxsize=1)
def load_release() -> Release:
    """The packaged release (read once per process).

    Returns
    -------
    Release
        The answers of ``data/answers.csv.gz`` with the films of ``data/movies.csv``; the same
        object on every call.

    Raises
    ------
    ValueError
        If the answers name a film missing from ``movies.csv``.
    """
    films = list(csv.DictReader(io.StringIO(_read_text("movies.csv"))))
    position = {row["movie"]: i for i, row in enumerate(films)}
    rows = list(csv.DictReader(io.StringIO(_read_text("answers.csv.gz"))))
    unknown = {r["movie"] for r in rows} - set(position)
    if unknown:
        raise ValueError(f"answers.csv.gz names films missing from movies.csv: {sorted(unknown)}")

    def column(name: str) -> np.ndarray:
        return np.array([r[name] for r in rows], dtype=object)

    return Release(
        movies=tuple(r["movie"] for r in films),
        titles=tuple(r["title"] for r in films),
        release_dates=tuple(r["release_date"] for r in films),
        accepted=tuple(tuple(r["accepted_titles"].split("|")) for r in films),
        notes=tuple(r["note"] for r in films),
        movie_index=np.array([position[r["movie"]] for r in rows], dtype=np.int64),
        frame_type=column("frame_type").astype(str),
        scene=np.array([int(r["scene"]) for r in rows], dtype=np.int64),
        shot=np.array([int(r["shot"]) for r in rows], dtype=np.int64),
        model=column("model").astype(str),
        image_answer=column("image_answer"),
        caption_answer=column("caption_answer"),
    )
