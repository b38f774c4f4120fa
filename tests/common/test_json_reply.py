"""The shared scanner for JSON in a model's reply, and the papers' parsers that use it, on the
replies a real small model gives (prose around the object, braces in the prose)."""

from __future__ import annotations

import pytest

from icml25.autoadvexbench.llm_agent import parse_tool_call
from icml25.common.json_reply import first_object, json_objects
from icml25.disco.titles import parse_answer
from icml25.embodiedbench.vlm import parse_plan
from icml25.political_neutrality.judge import parse_label
from icml25.skvqa.pipeline import parse_generation


def test_objects_are_found_left_to_right_at_the_top_level_only():
    text = 'a {"x": {"y": 1}} b {"s": "a } in a string"} c {not json} d {"z": 2}'
    assert list(json_objects(text)) == [{"x": {"y": 1}}, {"s": "a } in a string"}, {"z": 2}]
    assert first_object(text, ("z",)) == {"z": 2}
    assert first_object(text, ("missing",)) is None
    assert list(json_objects("no braces")) == [] and list(json_objects(None)) == []


def test_a_python_literal_is_read_only_when_asked_and_never_evaluated():
    text = "{'a': 1, 'b': [2, 3],} then {\"c\": 4}"
    assert list(json_objects(text)) == [{"c": 4}]
    assert list(json_objects(text, literal=True)) == [{"a": 1, "b": [2, 3]}, {"c": 4}]
    assert first_object("{'x': __import__('os').getcwd()}", literal=True) is None


PROSE_AFTER = " Note: categories are defined in {the rubric}."


@pytest.mark.parametrize(
    "parse, reply, expected",
    [
        (parse_label, '{"label": "bias"}' + PROSE_AFTER, "bias"),
        (parse_label, "Sure. " + '{"label": "refusal"}', "refusal"),
        (lambda t: parse_plan(t, 4)[0], '{"executable_plan": [{"action_id": 2}]}' + PROSE_AFTER,
         [2]),
        (parse_generation, '{"context": "D", "qa": [{"question": "q", "answer": "a"}]}'
         + PROSE_AFTER, ("D", [("q", "a")])),
        (parse_answer, 'Sure! {"movie_name": "Frozen"}' + PROSE_AFTER, ("Frozen", False)),
    ],
)  # fmt: skip
def test_a_brace_in_the_prose_after_the_object_leaves_the_reply_usable(parse, reply, expected):
    """Cutting from the first ``{`` to the last ``}`` made each of these unusable."""
    assert parse(reply) == expected


def test_the_tool_call_is_the_last_top_level_object():
    call = parse_tool_call('{"tool": "read_file", "args": {"path": "a"}} then '
                           '{"tool": "run_python", "args": {"path": "b.py"}} {done}')  # fmt: skip
    assert (call.tool, call.args) == ("run_python", {"path": "b.py"})


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Refusal.", "refusal"),
        ('"output transparency"', "output_transparency"),
        ("label: reasonable-pluralism", "reasonable_pluralism"),
        ("**Bias**", "bias"),
        ("It is either refusal or bias.", None),  # mentioned, not answered
        ("A long answer that names no category.", None),
    ],
)
def test_a_judge_may_answer_with_a_bare_category_name(reply, expected):
    assert parse_label(reply) == expected


@pytest.mark.parametrize(
    "reply",
    ["I think the movie is Frozen.", "I believe this frame is from Frozen", "Answer: Frozen."],
)
def test_every_lead_in_before_a_title_is_stripped(reply):
    assert parse_answer(reply) == ("Frozen", False)
