"""SK-VQA (Su, Luo, Pan et al., ICML 2025): synthetic knowledge-grounded visual question
answering data for context-augmented multimodal LLMs.

The generation pipeline through any OpenAI-compatible vision-language model
(:func:`generate`: per image, a context document that does not describe it and question-answer
pairs that need both), the filters (:func:`answer_in_context`, :func:`refers_to_image` offline or
:func:`answerable_without_image` with a model, :func:`duplicate_groups`; all three in
:func:`apply_filters`), and the data set statistics (:data:`STATISTICS`).
"""

from icml25.skvqa.filters import (
    answer_in_context,
    answerable_without_image,
    duplicate_groups,
    normalise,
    refers_to_image,
    same_question,
)
from icml25.skvqa.pipeline import Filtered, apply_filters, generate, parse_generation
from icml25.skvqa.scripted import Item
from icml25.skvqa.stats import (
    STATISTICS,
    distinct_2,
    embedding_diversity,
    type_entropy,
    unique_share,
)

__all__ = [
    "STATISTICS",
    "Filtered",
    "Item",
    "answer_in_context",
    "answerable_without_image",
    "apply_filters",
    "distinct_2",
    "duplicate_groups",
    "embedding_diversity",
    "generate",
    "normalise",
    "parse_generation",
    "refers_to_image",
    "same_question",
    "type_entropy",
    "unique_share",
]
