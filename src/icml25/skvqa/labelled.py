"""A hand-labelled set of question-answer pairs, written here, to measure the filters.

Written before any filter existed, in two halves: ``dev`` (the filters were built looking at
these) and ``held_out`` (only scored, never looked at while building). Each example stands for
one generated item: a caption of the image (what a model would see), the context document, a
question and an answer; the labels say whether the answer is in the document and whether the
question can be answered from the document without the image. Duplicate pairs are labelled
separately. Every text here is our own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    caption: str
    context: str
    question: str
    answer: str
    answer_in_context: bool
    needs_image: bool
    split: str  # "dev" or "held_out"


BRIDGE = (
    "A long red suspension bridge over a foggy bay.",
    "The Golden Gate Bridge opened in 1937 and spans the strait between San Francisco Bay and "
    "the Pacific Ocean. Its colour, called international orange, was chosen to stand out in "
    "fog. The main span is 1,280 metres long.",
)
PANDA = (
    "A black and white bear chewing bamboo in a zoo enclosure.",
    "Giant pandas live in the mountains of central China and eat almost nothing but bamboo, "
    "up to 14 kilograms a day. Fewer than 2,000 remain in the wild. They were moved from "
    "endangered to vulnerable in 2016.",
)
CATHEDRAL = (
    "A gothic stone cathedral with two square towers by a river.",
    "Notre-Dame de Paris was begun in 1163 and completed around 1260. A fire in April 2019 "
    "destroyed its spire and much of its roof; it reopened in December 2024 after restoration.",
)
VIOLIN = (
    "A person playing a violin on a street corner.",
    "The violin has four strings tuned in fifths, usually G, D, A and E. The most valued "
    "instruments were made in Cremona by Antonio Stradivari, who died in 1737.",
)
COFFEE = (
    "A cup of coffee with leaf-shaped foam art on a wooden table.",
    "Coffee plants are native to Ethiopia. Arabica beans make up about 60 percent of world "
    "production. A single espresso shot holds roughly 63 milligrams of caffeine.",
)
LIGHTHOUSE = (
    "A white lighthouse with a black band on a rocky shore at sunset.",
    "Lighthouses warn ships of dangerous coasts. Each has its own pattern of flashes, called "
    "its characteristic. Most were automated by the end of the twentieth century, and keepers "
    "left.",
)
TRAIN = (
    "A high-speed white train with a pointed nose at a station platform.",
    "Japan's Shinkansen began service in 1964 between Tokyo and Osaka. The network has carried "
    "billions of passengers without a fatal derailment. Some lines run at 320 km per hour.",
)
SUNFLOWER = (
    "A field of tall yellow sunflowers under a blue sky.",
    "Sunflowers are native to the Americas. Young plants turn to follow the sun during the "
    "day, a behaviour called heliotropism, which stops when they mature. Their seeds are "
    "pressed for oil.",
)


def _ex(scene, question, answer, in_context, needs_image, split):
    return Example(scene[0], scene[1], question, answer, in_context, needs_image, split)


EXAMPLES: tuple[Example, ...] = (
    # ---------------------------------------------------------------- dev half
    _ex(BRIDGE, "In what year did the bridge in this photo open?", "1937", True, True, "dev"),
    _ex(
        BRIDGE,
        "What is the name of the colour painted on this structure?",
        "international orange",
        True,
        True,
        "dev",
    ),
    _ex(BRIDGE, "When did the Golden Gate Bridge open?", "1937", True, False, "dev"),
    _ex(
        BRIDGE, "How many cars cross the bridge shown here each day?", "112,000", False, True, "dev"
    ),
    _ex(
        PANDA,
        "What does the animal in the picture eat almost exclusively?",
        "bamboo",
        True,
        True,
        "dev",
    ),
    _ex(PANDA, "How many giant pandas remain in the wild?", "fewer than 2,000", True, False, "dev"),
    _ex(
        PANDA,
        "How long does this animal usually live in captivity?",
        "30 years",
        False,
        True,
        "dev",
    ),
    _ex(
        PANDA,
        "In which year was the conservation status of this species changed?",
        "2016",
        True,
        True,
        "dev",
    ),
    _ex(CATHEDRAL, "When was construction of the building shown begun?", "1163", True, True, "dev"),
    _ex(
        CATHEDRAL,
        "What part of Notre-Dame de Paris did the 2019 fire destroy?",
        "its spire",
        True,
        False,
        "dev",
    ),
    _ex(
        CATHEDRAL, "Who was the architect of this cathedral?", "Jean de Chelles", False, True, "dev"
    ),
    _ex(
        CATHEDRAL, "When did the cathedral in the image reopen?", "December 2024", True, True, "dev"
    ),
    _ex(
        VIOLIN, "How many strings does the instrument being played have?", "four", True, True, "dev"
    ),
    _ex(
        VIOLIN,
        "In which town did Antonio Stradivari make his instruments?",
        "Cremona",
        True,
        False,
        "dev",
    ),
    _ex(
        VIOLIN,
        "What is the price of the instrument this musician is holding?",
        "$3,000",
        False,
        True,
        "dev",
    ),
    _ex(VIOLIN, "Why is the violin tuned in fifths?", "for easy fingering", False, False, "dev"),
    # ---------------------------------------------------------------- held-out half
    _ex(
        COFFEE,
        "Which country is the plant behind this drink native to?",
        "Ethiopia",
        True,
        True,
        "held_out",
    ),
    _ex(
        COFFEE,
        "What share of world coffee production is arabica?",
        "about 60 percent",
        True,
        False,
        "held_out",
    ),
    _ex(
        COFFEE,
        "How much caffeine is in the drink on the table if it is an espresso shot?",
        "roughly 63 milligrams",
        True,
        True,
        "held_out",
    ),
    _ex(
        COFFEE,
        "What temperature should the milk for this foam art be?",
        "60 degrees",
        False,
        True,
        "held_out",
    ),
    _ex(
        LIGHTHOUSE,
        "What is the pattern of flashes of a tower like this one called?",
        "its characteristic",
        True,
        True,
        "held_out",
    ),
    _ex(
        LIGHTHOUSE,
        "Why were lighthouse keepers no longer needed?",
        "automation",
        True,
        False,
        "held_out",
    ),  # supported ("were automated ... and keepers left"), not verbatim
    _ex(
        LIGHTHOUSE,
        "By when had most such buildings been automated?",
        "the end of the twentieth century",
        True,
        True,
        "held_out",
    ),
    _ex(
        LIGHTHOUSE,
        "How tall is the lighthouse at sunset in the picture?",
        "40 metres",
        False,
        True,
        "held_out",
    ),
    _ex(
        TRAIN,
        "Between which two cities did the service of this train first run?",
        "Tokyo and Osaka",
        True,
        True,
        "held_out",
    ),
    _ex(TRAIN, "When did the Shinkansen begin service?", "1964", True, False, "held_out"),
    _ex(
        TRAIN,
        "What is the top speed on some lines of the network this train belongs to?",
        "320 km per hour",
        True,
        True,
        "held_out",
    ),
    _ex(
        TRAIN,
        "How many carriages does the train at the platform have?",
        "16",
        False,
        True,
        "held_out",
    ),
    _ex(
        SUNFLOWER,
        "What is it called when these plants turn to follow the sun?",
        "heliotropism",
        True,
        True,
        "held_out",
    ),
    _ex(
        SUNFLOWER,
        "On which continents are sunflowers native?",
        "the Americas",
        True,
        False,
        "held_out",
    ),
    _ex(
        SUNFLOWER,
        "What is pressed from the seeds of the flowers in the field?",
        "oil",
        True,
        True,
        "held_out",
    ),
    _ex(
        SUNFLOWER,
        "Which painter made famous pictures of flowers like these?",
        "Van Gogh",
        False,
        True,
        "held_out",
    ),
)

# (question, question, are they the same question?)
DUPLICATE_PAIRS: tuple[tuple[str, str, bool, str], ...] = (
    (
        "In what year did the bridge in this photo open?",
        "In which year did the bridge in this photo open?",
        True,
        "dev",
    ),
    (
        "In what year did the bridge in this photo open?",
        "In what year did the tower in this photo open?",
        False,
        "dev",
    ),
    (
        "What does the animal in the picture eat?",
        "What does the animal in the picture eat?",
        True,
        "dev",
    ),
    (
        "What does the animal in the picture eat?",
        "Where does the animal in the picture live?",
        False,
        "dev",
    ),
    (
        "How many strings does this instrument have?",
        "How many strings does the instrument shown have?",
        True,
        "dev",
    ),
    (
        "How many strings does this instrument have?",
        "How many keys does this instrument have?",
        False,
        "dev",
    ),
    (
        "When was this cathedral begun?",
        "When did construction of this cathedral begin?",
        True,
        "dev",
    ),
    ("When was this cathedral begun?", "When was this cathedral damaged by fire?", False, "dev"),
    (
        "Which country is this drink's plant native to?",
        "Which country is the plant of this drink native to?",
        True,
        "held_out",
    ),
    (
        "Which country is this drink's plant native to?",
        "Which country grows the most of this drink's plant?",
        False,
        "held_out",
    ),
    (
        "What is the pattern of flashes of this lighthouse called?",
        "What is the flash pattern of this lighthouse called?",
        True,
        "held_out",
    ),
    (
        "What is the pattern of flashes of this lighthouse called?",
        "What is the colour of the band on this lighthouse?",
        False,
        "held_out",
    ),
    ("When did this train service start?", "When did this train service start?", True, "held_out"),
    ("When did this train service start?", "When will this train service end?", False, "held_out"),
    (
        "What is it called when these plants follow the sun?",
        "What is the name for these plants following the sun?",
        True,
        "held_out",
    ),
    (
        "What is it called when these plants follow the sun?",
        "What are these plants' seeds pressed for?",
        False,
        "held_out",
    ),
)
