"""The vision-language planner and the reproduction's model path, end to end against the stub
OpenAI-compatible server on 127.0.0.1 (no model, no network)."""

import json
from dataclasses import replace

import numpy as np
import pytest

import icml25.embodiedbench.reproduce as repro
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubServer
from icml25.embodiedbench.env import ACTIONS, NavigationEnv
from icml25.embodiedbench.episode import run_episode
from icml25.embodiedbench.route import action_for, shortest_moves
from icml25.embodiedbench.tasks import base_tasks
from icml25.embodiedbench.vlm import VLMPlanner, parse_plan
from icml25.lab import runner


def answer(ids):
    plan = [{"action_id": i, "action_name": ACTIONS[i]} for i in ids]
    return json.dumps(
        {
            "visual_state_description": "a room",
            "reasoning_and_reflection": "none",
            "language_plan": "walk",
            "executable_plan": plan,
        }
    )


@pytest.mark.parametrize(
    "text, ids",
    [
        (answer([0, 2]), [0, 2]),
        ("```json\n" + answer([4]) + "\n```", [4]),
        ("Sure! " + answer([1]), [1]),
        ("no json here", None),
        ('{"executable_plan": []}', None),
        ('{"executable_plan": [{"action_id": 9}]}', None),
        ('{"executable_plan": [{"action_id": true}]}', None),
        ('{"plan": [{"action_id": 0}]}', None),
    ],
)
def test_parse_plan(text, ids):
    parsed = parse_plan(text, len(ACTIONS))
    assert (parsed[0] if parsed else None) == ids


@pytest.mark.parametrize(
    "text",
    [
        answer([0, 2]),
        "  \n" + answer([3]),
        answer([1]) + " trailing prose {}",
        '{"executable_plan": [{"action_id": 2}], "inner": {"executable_plan": []}}',
        '{"a": 1} {"executable_plan": [{"action_id": 5}]}',
        '{"executable_plan": [{"action_id": 2.0}]}',
        '{"executable_plan": [{"action_id": -1}]}',
        '{"executable_plan": "0"}',
        "\u00a0" + answer([6]),
        "[" + answer([1]) + "]",
    ],
)
def test_the_whole_reply_shortcut_gives_what_the_first_object_gives(text):
    from icml25.common.json_reply import first_object

    reference = first_object(text, ("executable_plan",))
    reference_ids = None
    if reference is not None:
        ids = [s.get("action_id") if isinstance(s, dict) else None
               for s in reference["executable_plan"]] if isinstance(
            reference["executable_plan"], list) else [None]  # fmt: skip
        if ids and all(type(i) is int and 0 <= i < len(ACTIONS) for i in ids):
            reference_ids = ids
    parsed = parse_plan(text, len(ACTIONS))
    assert (None if parsed is None else parsed[0]) == reference_ids
    if parsed is not None:
        assert parsed[1] == reference


def test_vlm_planner_follows_a_scripted_model_and_counts_malformed_answers(tmp_path):
    task = base_tasks(1, np.random.default_rng(0))[0]
    moves = shortest_moves(task.room, task.start, task.room.positions[task.target])
    script = [action_for(d, task.start.heading) for d in moves]
    replies = ["I think I should move."] + [answer(script[i : i + 3]) for i in range(0, 99, 3)]

    def respond(body):
        return replies.pop(0) if len(replies) > 1 else replies[0]

    with StubServer(respond) as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub-vlm"), cache_dir=None)
        # the malformed first answer costs one random action; choose a seed whose random
        # action is a tilt, so the scripted path (given for the start pose) stays right
        seed = next(s for s in range(100) if np.random.default_rng(s).integers(8) in (6, 7))
        planner = VLMPlanner(client, np.random.default_rng(seed))  # its random action: a tilt
        env = NavigationEnv()
        episode = run_episode(env, planner, task, keep_transcript=True)
    assert episode.success and episode.invalid_outputs == 1
    first = server.requests[0]
    content = first["messages"][-1]["content"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert "navigate to the" in content[0]["text"] and first["model"] == "stub-vlm"
    second = server.requests[1]["messages"][-1]["content"][0]["text"]
    assert "step 1: action" in second  # the history with the feedback is in the next prompt


def test_reproduction_runs_the_model_path_through_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    smoke = replace(repro.SCALES["smoke"], tasks_per_batch=2, llm_tasks=1)
    monkeypatch.setitem(repro.SCALES, "smoke", smoke)
    with StubServer(lambda body: answer([0, 0])) as server:
        endpoint = Endpoint(server.url, "stub-vlm")
        summary = runner.run(["embodiedbench"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint)[
            "embodiedbench"
        ]
    m = summary["measurements"]
    assert summary["complete"] and summary["config"]["llm"]["model"] == "stub-vlm"
    assert summary["llm_usage"]["calls"] == len(server.requests) > 0
    assert m["tasks_vlm_base"] == 1 and 0 <= m["success_vlm_base"] <= 1
    assert "api_key" not in json.dumps(summary).lower()


def test_the_language_only_planner_sends_no_image_and_says_it_has_none(tmp_path, monkeypatch):
    """With a model that reads text only, the model cells run planner ``lm``: the same prompt
    with the image left out and the system prompt saying so."""
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    smoke = replace(repro.SCALES["smoke"], tasks_per_batch=2, llm_tasks=1)
    monkeypatch.setitem(repro.SCALES, "smoke", smoke)
    with StubServer(lambda body: answer([0, 0])) as server:
        endpoint = Endpoint(server.url, "stub-lm", reads_images=False)
        summary = runner.run(["embodiedbench"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint)[
            "embodiedbench"
        ]
    m = summary["measurements"]
    assert summary["complete"] and summary["model"] == "stub-lm"
    assert m["tasks_lm_base"] == 1 and "tasks_vlm_base" not in m
    assert "invalid_output_rate_lm_base" in summary["model_measurements"]
    assert server.requests and all(
        isinstance(r["messages"][-1]["content"], str) for r in server.requests
    )
    system = server.requests[0]["messages"][0]["content"]
    assert "You get no image" in system
    assert "what you see in the current image" not in server.requests[0]["messages"][1]["content"]


def test_a_model_budget_of_another_scale_replaces_the_runs_own(tmp_path, monkeypatch):
    """``llm_budget="default"`` in a smoke run: the model cells take default's llm_* settings
    (5 tasks a subset, capped by smoke's 2), the offline cells stay smoke's."""
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    smoke = replace(repro.SCALES["smoke"], tasks_per_batch=2, llm_max_steps=2)
    monkeypatch.setitem(repro.SCALES, "smoke", smoke)
    with StubServer(lambda body: answer([0])) as server:
        endpoint = Endpoint(server.url, "stub-vlm")
        own = runner.run(["embodiedbench"], scale="smoke", out=tmp_path / "a", jobs=1, llm=endpoint)
        wide = runner.run(
            ["embodiedbench"],
            scale="smoke",
            out=tmp_path / "b",
            jobs=1,
            llm=endpoint,
            llm_budget="default",
        )
    own, wide = own["embodiedbench"], wide["embodiedbench"]
    assert own["measurements"]["tasks_vlm_base"] == 1  # smoke's llm_tasks
    assert wide["measurements"]["tasks_vlm_base"] == 2  # default's 5, of smoke's 2 tasks
    assert wide["config"]["llm_max_tokens"] == 1024 and wide["config"]["tasks_per_batch"] == 2
    assert wide["provenance"]["llm_budget"] == "default" and "llm_budget" not in own["provenance"]
    with pytest.raises(ValueError, match="llm_budget must be one of"):
        runner.run(["embodiedbench"], scale="smoke", out=tmp_path, llm=endpoint, llm_budget="x")
