"""The paper's framework as data: eight techniques that approximate political neutrality.

Fisher, Appel, Park et al., *Political Neutrality in AI Is Impossible — But Here Is How to
Approximate It*, ICML 2025 (position paper, arXiv 2503.05728). Neutrality cannot be achieved,
but it can be approximated to a degree, at three levels of an AI system. Definitions in our
words; ``tradeoff`` says what each one costs, as the paper discusses.
"""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("output", "system", "ecosystem")


@dataclass(frozen=True)
class Technique:
    """One technique that approximates political neutrality, as data.

    Parameters
    ----------
    name : str
        Identifier, such as ``"reasonable_pluralism"``.
    level : str
        The level of an AI system it acts at, one of ``LEVELS``: ``"output"``, ``"system"`` or
        ``"ecosystem"``.
    definition : str
        What the technique is, in our words.
    tradeoff : str
        What it costs, as the paper discusses.
    """

    name: str
    level: str  # one of LEVELS
    definition: str
    tradeoff: str


TECHNIQUES: tuple[Technique, ...] = (
    Technique(
        "refusal",
        "output",
        "The model declines to answer at all.",
        "Safe against misuse, but unhelpful, and refusing some topics and not others is itself "
        "a political choice.",
    ),
    Technique(
        "avoidance",
        "output",
        "The model answers something related without engaging the contested part, for example "
        "explaining how one might think about the question.",
        "Keeps the conversation going without endorsing a side, but can read as evasive.",
    ),
    Technique(
        "reasonable_pluralism",
        "output",
        "The model sets out several reasonable viewpoints, each on its own terms.",
        "Informative and balanced, but choosing which views count as reasonable, and how many "
        "to give, is a judgement, and false balance is a risk.",
    ),
    Technique(
        "output_transparency",
        "output",
        "The model takes a position but says openly which position or persona it is speaking from.",
        "Honest about its slant, but still one-sided; useful when the user asks for a side.",
    ),
    Technique(
        "uniform_neutrality",
        "system",
        "The system has no political slant across everything it produces, in aggregate.",
        "The most demanding standard; hard to measure, and arguably impossible given biased "
        "training data.",
    ),
    Technique(
        "reflective_neutrality",
        "system",
        "The system's behaviour on political matters follows values it states and reflects on, "
        "applied consistently.",
        "Consistency is checkable, but the chosen values are themselves contestable.",
    ),
    Technique(
        "system_transparency",
        "system",
        "The developers disclose how the system was built and steered on political matters.",
        "Lets users calibrate their trust; does not remove any bias by itself.",
    ),
    Technique(
        "neutrality_through_diversity",
        "ecosystem",
        "Many systems with different leanings are available, so that the ecosystem as a whole "
        "is balanced even if no single model is.",
        "Depends on users meeting more than one system; can fragment into echo chambers.",
    ),
)
BY_NAME = {t.name: t for t in TECHNIQUES}

# What an output-level judge assigns to one reply: the four output-level techniques, a neutral
# answer that needs none, and a one-sided answer that does not say so (the paper's evaluation).
JUDGE_LABELS = (
    "refusal",
    "avoidance",
    "reasonable_pluralism",
    "output_transparency",
    "no_approximation",
    "bias",
)
