"""A seeded scripted generator standing in for GPT-4 offline; labelled "scripted" wherever its
output appears.

It writes items as the pipeline asks a model to: a context document about an image's subject
and question-answer pairs. Two styles, to test the statistics: *varied* draws each question's
wording from several phrasings and references to the image, as a model does; *templated* uses
one fixed pattern per attribute and one reference, as template-built data sets (InfoSeek,
Encyclopedic-VQA) do.
Defects can be injected at given rates (answer missing from the document, question that names
its subject, repeated question), so the synthetic run exercises every filter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

SUBJECTS = (
    (
        "bridge",
        "Harbour Bridge",
        {"opened": "1932", "length": "1,149 metres", "designer": "John Bradfield"},
    ),
    ("tower", "Tokyo Tower", {"opened": "1958", "height": "333 metres", "designer": "Tachu Naito"}),
    (
        "museum",
        "Louvre",
        {"opened": "1793", "visitors": "nine million", "founder": "the National Assembly"},
    ),
    ("stadium", "Maracana", {"opened": "1950", "capacity": "78,838", "designer": "Waldir Ramos"}),
    (
        "castle",
        "Neuschwanstein",
        {"opened": "1886", "visitors": "1.4 million", "founder": "Ludwig II"},
    ),
    (
        "temple",
        "Angkor Wat",
        {"opened": "the 12th century", "area": "162 hectares", "founder": "Suryavarman II"},
    ),
    (
        "dam",
        "Hoover Dam",
        {"opened": "1936", "height": "221 metres", "designer": "Gordon Kaufmann"},
    ),
    (
        "palace",
        "Alhambra",
        {"opened": "1238", "area": "142,000 square metres", "founder": "Muhammad I"},
    ),
)
SENTENCES = {
    "opened": "{name} was opened in {value}.",
    "length": "Its total length is {value}.",
    "height": "It rises to {value}.",
    "designer": "It was designed by {value}.",
    "visitors": "It receives about {value} visitors a year.",
    "capacity": "It can seat {value} people.",
    "area": "It covers {value}.",
    "founder": "It was founded by {value}.",
}
VARIED = {
    "opened": (
        "When did the {ref} open?",
        "In what year was the {ref} first opened?",
        "How long ago did the {ref} open its doors?",
        "Since when has the {ref} been open?",
    ),
    "length": (
        "How long is the {ref}?",
        "What is the total length of the {ref}?",
        "Across what distance does the {ref} stretch?",
    ),
    "height": (
        "How tall is the {ref}?",
        "What height does the {ref} reach?",
        "To how many metres does the {ref} rise?",
    ),
    "designer": (
        "Who designed the {ref}?",
        "Which engineer or architect drew up the {ref}?",
        "Whose design is the {ref}?",
    ),
    "visitors": (
        "How many people visit the {ref} each year?",
        "What is the yearly visitor count of the {ref}?",
        "Roughly how many visitors come to the {ref} annually?",
    ),
    "capacity": (
        "How many spectators can the {ref} hold?",
        "What is the seating capacity of the {ref}?",
    ),
    "area": ("How much ground does the {ref} cover?", "What area does the {ref} occupy?"),
    "founder": (
        "Who founded the {ref}?",
        "By whom was the {ref} established?",
        "Which ruler or body is credited with founding the {ref}?",
    ),
}
REFS = (
    "{kind} in this photo",
    "{kind} shown here",
    "pictured {kind}",
    "{kind} in the image",
    "{kind} we see here",
)
# one fixed pattern per attribute, as template-built data sets have
TEMPLATES = {attribute: phrasings[0] for attribute, phrasings in VARIED.items()}


@dataclass(frozen=True)
class Item:
    """One SK-VQA item: an image, its context document and a question-answer pair.

    Parameters
    ----------
    image : str
        A description (or name) standing for the image; duplicates are looked for per image.
    context : str
        The context document about the image's subject.
    question : str
        A question that should need both the image and the document.
    answer : str
        Its answer, a few words that should occur in the document.
    defect : str
        ``""``, ``"no_answer"``, ``"no_image_needed"`` or ``"duplicate"``: what was injected
        (scripted items only; the filters do not read it).
    """

    image: str  # a description standing for the image
    context: str
    question: str
    answer: str
    defect: str  # "", "no_answer", "no_image_needed" or "duplicate": what was injected


def generate(
    n: int, rng: np.random.Generator, *, style: str = "varied", defect_rate: float = 0.0
) -> list[Item]:
    """``n`` scripted items in ``style`` ("varied" or "templated"); each item independently
    gets one defect with probability ``defect_rate`` (uniform over the three kinds)."""
    if style not in ("varied", "templated"):
        raise ValueError(f"style must be 'varied' or 'templated', got {style!r}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not 0.0 <= defect_rate <= 1.0:
        raise ValueError(f"defect_rate must be in [0, 1], got {defect_rate!r}")
    items: list[Item] = []
    for _ in range(n):
        kind, name, facts = SUBJECTS[rng.integers(len(SUBJECTS))]
        attribute = list(facts)[rng.integers(len(facts))]
        context = " ".join(SENTENCES[a].format(name=name, value=v) for a, v in facts.items())
        if style == "varied":
            ref = REFS[rng.integers(len(REFS))].format(kind=kind)
            phrasings = VARIED[attribute]
            question = phrasings[rng.integers(len(phrasings))].format(ref=ref)
        else:
            question = TEMPLATES[attribute].format(ref=f"{kind} in the image")
        answer, defect = facts[attribute], ""
        if rng.random() < defect_rate:
            defect = ("no_answer", "no_image_needed", "duplicate")[rng.integers(3)]
            if defect == "no_answer":
                answer = "unrecorded"
            elif defect == "no_image_needed":
                question = f"What is the {attribute} of {name}?"
            elif items:  # the same item again: same image, document, question and answer
                items.append(replace(items[rng.integers(len(items))], defect=defect))
                continue
            else:
                defect = ""
        items.append(Item(f"a photo of the {name}, a {kind}", context, question, answer, defect))
    return items
