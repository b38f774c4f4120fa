"""DIS-CO: is a film in a vision-language model's training data? (Duarte, Zhao, Oliveira & Li,
*DIS-CO: Discovering Copyrighted Content in VLMs Training Data*, ICML 2025).

Ask the model to name the film each frame comes from, count the frames it names, and separate
films released before its training cut-off from films released after it by ROC AUC.

>>> from icml25.disco import match_title, film_scores, detection_auc
>>> match_title("star wars - a new hope", ["Star Wars: A New Hope", "A New Hope"])
True
>>> match_title("Kung Fu Panda 3", ["Kung Fu Panda 4"])
False

With a model (any OpenAI-compatible endpoint; see the README)::

    from icml25.common.llm import Endpoint, LLMClient
    from icml25.disco import Film, run_disco
    endpoint = Endpoint("http://localhost:8000/v1", "Qwen/Qwen2-VL-7B-Instruct")
    client = LLMClient.from_endpoint(endpoint)
    report = run_disco([Film("Frozen", frames, captions, released="2013-11-27"), ...],
                       client, cutoff="2023-09-01")
    report.auc, report.floor_auc, report.films[0].score
"""

from icml25.disco.data import CUTOFF, FRAME_TYPES, MODEL_KEYS, Release, load_release, suspect_labels
from icml25.disco.pipeline import (
    CAPTION_PROMPT,
    FRAME_PROMPT,
    DiscoReport,
    Film,
    FilmResult,
    ask_titles,
    default_client,
    run_disco,
)
from icml25.disco.scoring import (
    bootstrap_auc,
    detection_auc,
    film_scores,
    floor_hits,
    frame_hits,
)
from icml25.disco.titles import match_many, match_title, normalize_title, parse_answer

__all__ = [
    "CAPTION_PROMPT",
    "CUTOFF",
    "FRAME_PROMPT",
    "FRAME_TYPES",
    "MODEL_KEYS",
    "DiscoReport",
    "Film",
    "FilmResult",
    "Release",
    "ask_titles",
    "bootstrap_auc",
    "default_client",
    "detection_auc",
    "film_scores",
    "floor_hits",
    "frame_hits",
    "load_release",
    "match_many",
    "match_title",
    "normalize_title",
    "parse_answer",
    "run_disco",
    "suspect_labels",
]
