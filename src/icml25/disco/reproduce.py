"""Reproduction: DIS-CO's detection AUCs recomputed from the answers the paper released.

Offline, no model is queried: the official repository releases the four models' answers on the
whole MovieTection benchmark (100 films, 140 frames each, image and caption-only answers), and
each cell recomputes one model's per-film scores and AUCs with our matching and scoring code:

- ``model``: for each frame type (main, neutral), per-film scores from the image answers, the
  caption-only answers and the floor variant (ours, and the official code's rule for
  comparison), their AUCs suspect against clean, and paired bootstrap resamples of the films
  (claims a and b, the floor check);
- ``null_probe`` (only with an endpoint, ``icml25 run disco --llm-base-url ... --llm-model
  ...``): the pipeline on content-free frames (seeded colour blocks), whose answers are matched
  against every film of the benchmark: how often a model's guess counts as naming a film when
  the frame shows none (a control of the matching, not a claim of the paper). With a model
  whose server says it reads text only, the caption-only variant of the paper: each
  content-free frame is described in words (its sixteen colour blocks) and asked alone, as the
  paper's caption-only answers are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.llm import Endpoint, LLMClient
from icml25.disco.data import CUTOFF, FRAME_TYPES, MODEL_KEYS, load_release
from icml25.disco.pipeline import ask_titles
from icml25.disco.scoring import (
    bootstrap_auc,
    detection_auc,
    film_scores,
    floor_hits,
    frame_hits,
)
from icml25.disco.titles import match_many

CELL_THREADS = 1
MODEL_NEEDS_IMAGES = True  # the null probe asks the model about film frames
TEXT_ONLY_VARIANT = "the caption-only null probe: each content-free frame described in words"
SCORE_KINDS = ("image", "caption", "floor", "floor_official")


@dataclass(frozen=True)
class Config:
    models: tuple[str, ...] = tuple(MODEL_KEYS)
    frame_types: tuple[str, ...] = FRAME_TYPES
    cutoff: str = CUTOFF
    n_bootstrap: int = 2000
    # the endpoint control: content-free frames of probe_size x probe_size pixels
    probe_frames: int = 8
    probe_size: int = 64
    llm: Endpoint | None = None


SCALES = {
    "smoke": Config(n_bootstrap=100, probe_frames=2),
    "default": Config(),
    "paper": Config(n_bootstrap=10000, probe_frames=32),
}


def cells(config: Config) -> list[dict]:
    out = [{"part": "model", "model": m} for m in config.models]
    if config.llm is not None:
        probe = "caption" if config.llm.reads_images is False else "image"
        out.append({"part": "null_probe", "input": probe})
    return out


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    if cell["part"] == "null_probe":
        return _null_probe(config, seed, cell["input"])
    release = load_release()
    labels = release.labels(config.cutoff)  # (F,)
    rng = np.random.default_rng(seed)
    out: dict = {"labels": labels}
    for frame_type in config.frame_types:
        rows = release.rows(cell["model"], frame_type)
        films = release.movie_index[rows]  # (n,)
        image = frame_hits(release.image_answer[rows], films, release.accepted)
        caption = frame_hits(release.caption_answer[rows], films, release.accepted)
        hits = {
            "image": image,
            "caption": caption,
            "floor": floor_hits(image, caption),
            "floor_official": floor_hits(
                image,
                caption,
                release.image_answer[rows],
                release.caption_answer[rows],
                rule="same_answer",
            ),
        }
        scores = np.stack([film_scores(hits[k], films, len(release.movies)) for k in SCORE_KINDS])
        out[frame_type] = {
            "scores": scores,  # (4, F) in SCORE_KINDS order
            "auc": np.array([detection_auc(s, labels) for s in scores]),  # (4,)
            "bootstrap": bootstrap_auc(scores, labels, config.n_bootstrap, rng),  # (B, 4)
            "floor_rules_differ": int((hits["floor"] != hits["floor_official"]).sum()),
        }
    return out


def content_free_frames(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """(n, size, size, 3) uint8 frames of 4 x 4 random colour blocks: pictures of no film."""
    blocks = rng.integers(0, 256, size=(n, 4, 4, 3), dtype=np.uint8)
    step = -(-size // 4)
    return blocks.repeat(step, axis=1).repeat(step, axis=2)[:, :size, :size]


BASIC_COLOURS = {
    "black": (0, 0, 0),
    "white": (255, 255, 255),
    "grey": (128, 128, 128),
    "red": (200, 30, 30),
    "green": (30, 160, 50),
    "blue": (30, 60, 200),
    "yellow": (230, 220, 40),
    "orange": (240, 140, 20),
    "purple": (130, 40, 160),
    "pink": (240, 150, 190),
    "brown": (120, 70, 30),
    "teal": (20, 150, 150),
}


def describe_blocks(frame: np.ndarray) -> str:
    """A caption of a frame of :func:`content_free_frames` (size, size, 3): its 4 x 4 blocks'
    colours in words, row by row, each block named by its nearest basic colour."""
    step = -(-frame.shape[0] // 4)
    blocks = frame[::step, ::step][:4, :4].reshape(-1, 3).astype(float)  # (16, 3)
    names = list(BASIC_COLOURS)
    rgb = np.array(list(BASIC_COLOURS.values()), dtype=float)  # (C, 3)
    nearest = ((blocks[:, None, :] - rgb[None]) ** 2).sum(-1).argmin(1)  # (16,)
    rows = [", ".join(names[k] for k in nearest[4 * r : 4 * r + 4]) for r in range(4)]
    return (
        "A still that shows no scene, no people and no objects: a grid of four rows of four "
        "flat coloured squares. From the top, the rows are: " + "; ".join(rows) + "."
    )


def _null_probe(config: Config, seed: int, probe: str) -> dict:
    client = LLMClient.from_endpoint(config.llm)
    rng = np.random.default_rng(seed)
    frames = content_free_frames(config.probe_frames, config.probe_size, rng)
    if probe == "caption":
        answers = ask_titles(client, captions=[describe_blocks(f) for f in frames])
    else:
        answers = ask_titles(client, frames=list(frames))
    titles = [title for title, _ in answers]
    release = load_release()
    hits = np.array([match_many(titles, accepted) for accepted in release.accepted])  # (F, n)
    return {
        "answers": titles,
        "null_hit_rate": float(hits.mean()),
        "films_named": int(hits.any(axis=1).sum()),
        "malformed": sum(not ok for _, ok in answers),
        "empty": sum(not title for title in titles),
        "llm_usage": client.usage(),
    }
