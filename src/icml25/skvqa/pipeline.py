"""The SK-VQA generation pipeline through any OpenAI-compatible vision-language model.

For each image, one request asks the model for a context document that is related to the
image but does not describe it, and for question-answer pairs that need both the image and the
document (Sec. 3.1 of the paper; the prompt is our own words). The answers are parsed from JSON;
an unusable answer is counted and skipped, never a crash. :func:`apply_filters` then keeps the
pairs that pass the three filters of :mod:`icml25.skvqa.filters`.

For a model that reads text only, ``descriptions`` stand in for the images (the document-only
variant): the request gives a written description of the image in its place, and asks the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml25.common.json_reply import first_object
from icml25.common.llm import LLMClient
from icml25.skvqa.filters import (
    answer_in_context,
    answerable_without_image,
    duplicate_groups,
    refers_to_image,
)
from icml25.skvqa.scripted import Item

PROMPT = """Look at the image. First write a context document of 150 to 300 words, in the
style of an encyclopedia article, about a subject the image relates to (a place, a species, an
object, an event). Do not describe the image or say what it shows. Then write {n} pairs of a
question and its answer. Each question must need both the image and the document: refer to what
is in the image without naming it (for example "this building"), and ask for a fact that the
document states. Answers are a few words copied from the document.
Reply with one JSON object and nothing else:
{{"context": "<the document>", "qa": [{{"question": "<question>", "answer": "<answer>"}}]}}"""
DESCRIBED = """You cannot see the image; here is a description of it in its place.
Image: {description}
"""


def parse_generation(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """The document and the (question, answer) pairs of a model's reply, or None.

    The reply's first JSON object with both ``"context"`` and ``"qa"``, wherever the prose
    puts it.

    Parameters
    ----------
    text : str
        The model's reply.

    Returns
    -------
    tuple of (str, list of (str, str)) or None
        ``(context, [(question, answer), ...])``, or None when there is no such object, the
        document is empty, there is no pair or a pair lacks a field.
    """
    data = first_object(text, ("context", "qa"))
    if data is None:
        return None
    try:
        context = data["context"]
        pairs = [(str(p["question"]), str(p["answer"])) for p in data["qa"]]
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(context, str) or not context.strip() or not pairs:
        return None
    return context, pairs


def generate(
    client: LLMClient,
    images: Sequence[np.ndarray],
    n_pairs: int = 5,
    names: Sequence[str] = (),
    descriptions: Sequence[str] | None = None,
    max_tokens: int = 1200,
) -> tuple[list[Item], int]:
    """Items from a model, one request per image; also the number of unusable replies.

    With ``descriptions`` (one per image), each is sent in place of its image.

    Parameters
    ----------
    client : LLMClient
        The (vision-)language model, asked once per image at temperature 0.7.
    images : sequence of numpy.ndarray
        The images, one request each.
    n_pairs : int, default 5
        Question-answer pairs asked for per image.
    names : sequence of str, default ()
        A name per image, stored as ``Item.image`` (default ``"image 0"``, ``"image 1"``...).
    descriptions : sequence of str, optional
        One written description per image, sent in its place (document-only variant).
    max_tokens : int, default 1200
        Reply length limit of each request.

    Returns
    -------
    items : list of Item
        One item per parsed pair (``defect`` empty), image by image.
    unusable : int
        Number of replies that :func:`parse_generation` could not use.

    Raises
    ------
    ValueError
        If ``descriptions`` does not give one per image.
    """
    names = list(names) or [f"image {i}" for i in range(len(images))]
    if descriptions is not None and len(descriptions) != len(images):
        raise ValueError(
            f"descriptions must give one per image: {len(descriptions)} for {len(images)} images"
        )
    requests = [
        {
            "messages": [{"role": "user", "content": PROMPT.format(n=n_pairs)}],
            "images": [image],
            "temperature": 0.7,
            "max_tokens": max_tokens,
        }
        if descriptions is None
        else {
            "messages": [
                {
                    "role": "user",
                    "content": DESCRIBED.format(description=descriptions[i])
                    + PROMPT.format(n=n_pairs),
                }
            ],
            "temperature": 0.7,
            "max_tokens": max_tokens,
        }
        for i, image in enumerate(images)
    ]
    items, unusable = [], 0
    for name, reply in zip(names, client.chat_many(requests), strict=True):
        parsed = parse_generation(reply.text)
        if parsed is None:
            unusable += 1
            continue
        context, pairs = parsed
        items += [Item(name, context, q, a, "") for q, a in pairs]
    return items, unusable


@dataclass(frozen=True)
class Filtered:
    """The result of :func:`apply_filters`: the items kept and the counts removed.

    Parameters
    ----------
    kept : list of Item
        The items that pass all three filters, in input order.
    removed : dict of str to int
        How many items each filter removed, counted in order, with keys ``"answer"``,
        ``"image"`` and ``"duplicate"``.
    """

    kept: list[Item]
    removed: dict[str, int]  # per filter, counted in order: answer, image, duplicate


def apply_filters(items: Sequence[Item], client: LLMClient | None = None) -> Filtered:
    """Keep the question-answer pairs that pass the three SK-VQA filters.

    The pairs that pass all three filters, in order; with ``client`` the needs-the-image
    filter asks the model (document only), else it uses the offline proxy. Duplicates are
    looked for among the questions about the same image (``Item.image``).

    The filters run in this order (SK-VQA, Su, Luo, Pan et al., ICML 2025, Sec. 3.1):
    the answer occurs in the document (:func:`answer_in_context`); the question needs the
    image (:func:`refers_to_image` offline, :func:`answerable_without_image` with a model);
    no repeated question about the same image (:func:`duplicate_groups`, which embeds the
    questions with all-MiniLM-L6-v2 when an image has more than one question).

    Parameters
    ----------
    items : Sequence[Item]
        The candidate pairs, each an :class:`Item` (image, context document, question,
        answer, injected defect). The ``defect`` field is not read. Order is kept, and the
        first of each group of repeated questions is the one kept.
    client : LLMClient or None, optional
        A model to judge the needs-the-image filter: it gets each document and question
        without the image, and a pair is removed when the model finds the answer. None
        (default) uses the offline lexical proxy :func:`refers_to_image` instead.

    Returns
    -------
    Filtered
        ``kept``: the list of items that pass all three filters, in input order;
        ``removed``: a dict of how many items each filter removed, counted in order, with
        keys ``"answer"``, ``"image"`` and ``"duplicate"`` (they sum to
        ``len(items) - len(kept)``).
    """
    items = list(items)
    with_answer = [it for it in items if answer_in_context(it.answer, it.context)]
    if client is None:
        need = [refers_to_image(it.question) for it in with_answer]
    else:
        free = answerable_without_image(
            client,
            [it.context for it in with_answer],
            [it.question for it in with_answer],
            [it.answer for it in with_answer],
        )
        need = [not f for f in free]
    needing = [it for it, n in zip(with_answer, need, strict=True) if n]
    # a question repeated about another image is another item: duplicates are per image
    by_image: dict[str, list[int]] = {}
    for i, it in enumerate(needing):
        by_image.setdefault(it.image, []).append(i)
    keep = set()
    for members in by_image.values():
        groups = (
            duplicate_groups([needing[i].question for i in members]) if len(members) > 1 else [0]
        )
        keep.update(members[k] for k, g in enumerate(groups) if g == k)
    kept = [it for i, it in enumerate(needing) if i in keep]
    removed = {
        "answer": len(items) - len(with_answer),
        "image": len(with_answer) - len(needing),
        "duplicate": len(needing) - len(kept),
    }
    return Filtered(kept, removed)
