"""The household objects of our navigation rooms, and the four ways an instruction names one.

EB-Navigation (Yang et al., ICML 2025, Sec. 3) asks the agent to walk to a target object and
builds its capability subsets from the same 60 tasks by rewording the instruction: *base* names
the object, *common sense* describes what it is for, *complex instruction* hides the request in
irrelevant context, *visual appearance* describes its colour and shape, and *long horizon* keeps
the base instruction but turns the agent away from the target. Every word below is our own.

Each object type has one flat colour and one shape, unique in the catalogue, so a colour and a
shape name it as surely as its name does.
"""

from __future__ import annotations

from dataclasses import dataclass

SHAPES = ("ball", "box", "cone", "column")
HEIGHTS = {"floor": 0.15, "table": 0.8, "shelf": 1.35}  # metres above the floor


@dataclass(frozen=True)
class ObjectType:
    name: str
    colour_name: str
    rgb: tuple[int, int, int]
    shape: str  # one of SHAPES
    size: float  # half-width in metres
    height: str  # key of HEIGHTS
    purpose: str  # common-sense description, our words


CATALOGUE: tuple[ObjectType, ...] = (
    ObjectType(
        "Apple",
        "red",
        (220, 30, 30),
        "ball",
        0.09,
        "table",
        "a crunchy fruit I could eat as a snack",
    ),
    ObjectType(
        "Mug",
        "white",
        (245, 245, 245),
        "column",
        0.08,
        "table",
        "something to drink my hot coffee from",
    ),
    ObjectType(
        "Laptop", "black", (20, 20, 20), "box", 0.2, "table", "the device I use to answer my emails"
    ),
    ObjectType(
        "Basketball",
        "orange",
        (255, 140, 0),
        "ball",
        0.15,
        "floor",
        "the thing we bounce and throw through a hoop",
    ),
    ObjectType(
        "Plant",
        "green",
        (30, 170, 60),
        "cone",
        0.2,
        "floor",
        "the living thing in a pot that needs watering",
    ),
    ObjectType(
        "Book",
        "blue",
        (40, 70, 220),
        "box",
        0.12,
        "shelf",
        "something with pages I could read before bed",
    ),
    ObjectType(
        "Vase",
        "purple",
        (150, 50, 190),
        "column",
        0.1,
        "shelf",
        "a container that holds cut flowers",
    ),
    ObjectType(
        "Lamp",
        "yellow",
        (250, 220, 40),
        "cone",
        0.15,
        "table",
        "what I switch on when the room gets dark",
    ),
    ObjectType(
        "Pillow", "pink", (250, 150, 190), "box", 0.2, "floor", "something soft to rest my head on"
    ),
    ObjectType(
        "Bottle",
        "cyan",
        (40, 210, 220),
        "column",
        0.07,
        "floor",
        "a container of water to take on a walk",
    ),
    ObjectType(
        "Clock",
        "brown",
        (130, 80, 30),
        "ball",
        0.14,
        "shelf",
        "the thing that tells me what time it is",
    ),
    ObjectType(
        "Tomato",
        "magenta",
        (230, 40, 150),
        "ball",
        0.08,
        "table",
        "a juicy ingredient for a salad or a sauce",
    ),
)
BY_NAME = {t.name: t for t in CATALOGUE}

SHAPE_WORDS = {"ball": "round", "box": "rectangular", "cone": "pointed", "column": "cylindrical"}

# Sentences that set a scene without asking for anything; {other} names another object.
CONTEXT = (
    "The afternoon light makes the whole room feel warm and calm.",
    "Somebody left the {other} out after breakfast this morning.",
    "I have been meaning to tidy up in here for days.",
    "There is a faint smell of fresh paint near the door.",
    "My friend said the {other} was a gift from her grandmother.",
    "It is quiet today, apart from the hum of the fridge.",
)
REQUESTS = (
    "Could you walk over to the {target} for me?",
    "Please go and stand next to the {target}.",
    "I would like you to get close to the {target}.",
)


def base_instruction(target: ObjectType) -> str:
    return f"navigate to the {target.name} in the room and be as close as possible to it"


def common_sense_instruction(target: ObjectType) -> str:
    return f"I am looking for {target.purpose}. Please go to that object and stay close to it."


def visual_instruction(target: ObjectType) -> str:
    size = "small" if target.size < 0.12 else "large"
    return f"Go to the {size} {target.colour_name} {SHAPE_WORDS[target.shape]} object."


def complex_instruction(target: ObjectType, other: ObjectType, picks: tuple[int, int, int]) -> str:
    """Context, a request for ``target``, more context; ``other`` is a distractor named in the
    context (``picks``: the two context sentences and the request form)."""
    first, request, last = CONTEXT[picks[0]], REQUESTS[picks[1]], CONTEXT[picks[2]]
    return " ".join(
        (
            first.format(other=other.name),
            request.format(target=target.name),
            last.format(other=other.name),
        )
    )
