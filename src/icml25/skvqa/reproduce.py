"""Reproduction: the filters on hand-labelled pairs, the statistics on scripted sets, and a
scripted run of the whole pipeline (and, with a model endpoint, a real one).

Cells:
- ``filters``: each filter on the held-out half of the labelled pairs (and the dev half, shown
  but not judged): precision and recall of what it removes;
- ``statistics``: the four statistics on a varied and a templated scripted set of
  ``n_items`` items each (the scripted generator, labelled as such);
- ``pipeline``: a scripted run with ``defect_rate`` of injected defects through the three
  filters: what each removed, and the statistics before and after;
- ``model`` (only with ``config.llm``): the model generates documents and pairs for the two
  photographs bundled with scikit-learn, and the filters run with the model judging whether
  each question can be answered without the image; with a model whose server says it reads
  text only, the document-only variant: a written description of each photograph in its place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml25.common.llm import Endpoint, LLMClient
from icml25.skvqa.explain import explain
from icml25.skvqa.filters import answer_in_context, refers_to_image, same_question
from icml25.skvqa.labelled import DUPLICATE_PAIRS, EXAMPLES
from icml25.skvqa.pipeline import apply_filters, generate
from icml25.skvqa.scripted import generate as scripted
from icml25.skvqa.stats import STATISTICS

CELL_THREADS = 1
MODEL_NEEDS_IMAGES = True  # the model writes documents and questions about photographs
TEXT_ONLY_VARIANT = "the document-only pipeline: a written description in place of each photograph"
# what the two photographs bundled with scikit-learn show, for a model that reads text only
PHOTO_DESCRIPTIONS = {
    "china.jpg": "a photograph of a traditional Chinese temple, a hall with curved, glazed tile "
    "roofs and red columns, among trees under a blue sky",
    "flower.jpg": "a close-up photograph of a single flower with many pink petals around a "
    "yellow centre, against dark green leaves",
}


@dataclass(frozen=True)
class Config:
    n_items: int = 600
    defect_rate: float = 0.3
    llm: Endpoint | None = None
    llm_pairs: int = 5
    llm_max_tokens: int = 1200  # of each generation (a document and its pairs)


SCALES = {
    "smoke": Config(n_items=60),
    "default": Config(),
    "paper": Config(n_items=5000),
}


def cells(config: Config) -> list[dict]:
    out = [{"part": p} for p in ("filters", "statistics", "pipeline", "explain")]
    if config.llm is not None:
        shown = "description" if config.llm.reads_images is False else "image"
        out.append({"part": "model", "input": shown})
    return out


def _filter_decisions(split: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per filter: (removed by the filter, truly defective), over one half of the labels."""
    ex = [e for e in EXAMPLES if e.split == split]
    pairs = [p for p in DUPLICATE_PAIRS if p[3] == split]
    flagged = same_question([p[0] for p in pairs], [p[1] for p in pairs])
    return {
        "answer_in_context": (
            np.array([not answer_in_context(e.answer, e.context) for e in ex]),
            np.array([not e.answer_in_context for e in ex]),
        ),
        "needs_image": (
            np.array([not refers_to_image(e.question) for e in ex]),
            np.array([not e.needs_image for e in ex]),
        ),
        "dedup": (np.asarray(flagged), np.array([p[2] for p in pairs])),
    }


def run_cell(config: Config, cell: dict, seed: int) -> dict:
    part = cell["part"]
    if part == "filters":
        return {
            f"{split}_{name}_{k}": v.astype(np.int64)
            for split in ("dev", "held_out")
            for name, pair in _filter_decisions(split).items()
            for k, v in zip(("removed", "defective"), pair, strict=True)
        }
    if part == "explain":
        return {
            f"{split}_{k}": v for split in ("dev", "held_out") for k, v in explain(split).items()
        }
    rng = np.random.default_rng(seed)
    if part == "statistics":
        out = {}
        for style in ("varied", "templated"):
            questions = [it.question for it in scripted(config.n_items, rng, style=style)]
            out.update({f"{style}_{k}": f(questions) for k, f in STATISTICS.items()})
        return out
    if part == "pipeline":
        items = scripted(config.n_items, rng, defect_rate=config.defect_rate)
        result = apply_filters(items)
        out = {f"removed_{k}": v for k, v in result.removed.items()}
        out["injected"] = {
            d: sum(it.defect == d for it in items)
            for d in ("no_answer", "no_image_needed", "duplicate")
        }
        out["kept_defects"] = sum(it.defect != "" for it in result.kept)
        for label, chosen in (("before", items), ("after", result.kept)):
            out.update(
                {f"{label}_{k}": f([it.question for it in chosen]) for k, f in STATISTICS.items()}
            )
        out["n_before"], out["n_after"] = len(items), len(result.kept)
        return out
    from sklearn.datasets import load_sample_images

    photos = load_sample_images()
    names = [f.split("/")[-1] for f in photos.filenames]
    client = LLMClient.from_endpoint(config.llm)
    described = [PHOTO_DESCRIPTIONS[n] for n in names] if cell["input"] == "description" else None
    items, unusable = generate(
        client, photos.images, config.llm_pairs, names, described, config.llm_max_tokens
    )
    result = apply_filters(items, client)
    return {
        "generated": len(items),
        "unusable_replies": unusable,
        "kept": len(result.kept),
        **{f"removed_{k}": v for k, v in result.removed.items()},
        "llm_usage": client.usage(),
    }
