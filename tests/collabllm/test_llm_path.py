"""The endpoint path end to end against the stub OpenAI server: the language-model user
simulator and assistant in the reproduction's ``llm`` cells, through ``icml25.common.llm``."""

import json
import re

import numpy as np
import pytest

from icml25.collabllm import (
    VAGUE,
    BasePolicy,
    Conversation,
    LLMPolicy,
    LLMUser,
    Task,
    asked_slot,
    evaluate,
    mentioned_option,
    multiturn_aware_reward,
    step,
)
from icml25.collabllm.agents import _json_object
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubResponse, StubServer
from icml25.lab import runner

TASK = Task(1, ("pear", "fig", "banana", "kiwi"), (1, 1, 0), (False, True, True))


def stub_model(body: dict) -> str:
    """A scripted stand-in for a model: as the user simulator, it repeats its wishes; as the
    assistant, it asks about the first choice, then answers with the first options."""
    first = body["messages"][0]["content"]
    if first.startswith("You play a person"):
        wishes = re.search(r"Your exact wishes: (.*)", first).group(1)
        return json.dumps({"thought": "answer briefly", "response": wishes})
    choices = re.findall(r"^- (\w+): (.*)$", first, re.M)
    if len(body["messages"]) == 2:  # system + the opening request
        return f"Which {choices[0][0]} would you like?"
    answer = {name: options.split(" | ")[0] for name, options in choices}
    return "Here you go:\n```json\n" + json.dumps({"answer": answer}) + "\n```"


def default_model_budget(monkeypatch) -> None:
    """Smoke scale with the endpoint cells of the default budget (2 requests per family and
    level, every level, 3 MR continuations), not smoke's own small model budget."""
    from dataclasses import replace

    from icml25.collabllm import reproduce

    smoke = reproduce.SCALES["smoke"]
    wide = replace(
        smoke,
        llm_tasks=2,
        llm_levels=None,
        llm_samples=None,
        llm_families=None,
        llm_max_turns=None,
    )
    monkeypatch.setitem(reproduce.SCALES, "smoke", wide)


def test_reproduction_runs_end_to_end_against_the_stub(tmp_path, monkeypatch):
    """At smoke scale with the endpoint cells of the default budget, not smoke's own."""
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    default_model_budget(monkeypatch)
    with StubServer(stub_model) as server:
        summary = runner.run(
            ["collabllm"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "stub")
        )["collabllm"]
        requests = list(server.requests)
    assert summary["cells"]["failed"] == 0, summary["failures"]
    m = summary["measurements"]
    assert summary["llm_usage"]["calls"] == len(requests) > 0  # summed by the runner
    assert summary["llm_usage"]["prompt_tokens"] > 0
    # the stub assistant asks first on every request, then answers with the first options
    assert m["llm_llm_policy_clarify_ambiguous"] == 1.0
    assert m["llm_llm_policy_turns"] == 2.0
    assert 0.0 < m["llm_llm_policy_success"] < 1.0
    # the tabular MR policy also talks to the language-model user simulator
    assert "llm_multiturn_policy_success" in m
    assert m["llm_llm_policy_model_errors"] == m["llm_multiturn_policy_model_errors"] == 0
    # MR built with the language-model user: the stub user states every wish when asked, so the
    # sampled MR ranks the candidates like the exact MR with the programmatic user (9 states:
    # one per family and ambiguous level)
    assert m["llm_reward_states"] == 9 and m["llm_reward_model_errors"] == 0
    assert m["llm_reward_best_is_relevant_question_llm"] > 0
    # asked about each slot of those 9 states, the stub user names the intended option, as
    # the programmatic user does
    assert m["llm_user_reveal_questions"] == 9 * 3 and m["llm_user_reveals_right"] == 1.0
    users = [r for r in requests if r["messages"][0]["content"].startswith("You play a person")]
    assistants = [r for r in requests if r["messages"][0]["role"] == "system"]
    assert users and assistants
    assert all("Your exact wishes" not in r["messages"][0]["content"] for r in assistants)
    assert all(r["model"] == "stub" for r in requests)


def test_llm_user_reveals_the_asked_option_only():
    client = LLMClient.scripted(lambda messages, params: '{"response": "by length, I guess"}')
    conv = Conversation.open(TASK)
    step(conv, 0, LLMUser(client))
    assert conv.known[0] == 1 and conv.messages[-1]["content"] == "by length, I guess"
    assert "by length" in LLMUser(client).prompt(conv)  # the simulator knows the intent


def test_llm_policy_parses_questions_and_answers():
    rng = np.random.default_rng(0)
    conv = Conversation.open(TASK)
    ask = LLMPolicy(LLMClient.scripted(lambda m, p: "Should I sort by length or by vowels?"))
    action, text, choice = ask.act(conv, rng)
    assert (action, choice) == (0, None) and text.startswith("Should")
    reply = 'Sure. {"answer": {"key": "by length", "order": "descending", "cut": "nonsense"}}'
    action, _, choice = LLMPolicy(LLMClient.scripted(lambda m, p: reply)).act(conv, rng)
    assert action == 3 and choice == (1, 1, None)  # unparsed options fall back on the guess
    bare = LLMPolicy(LLMClient.scripted(lambda m, p: '{"key": "alphabetical"}'))
    assert bare.act(conv, rng)[::2] == (3, (0, None, None))  # no "answer" wrapper
    step(conv, action, LLMUser(LLMClient.scripted(lambda m, p: "unused")), choice=choice)
    assert conv.answer == ("banana", "pear", "kiwi", "fig")


def test_question_attribution():
    conv = Conversation.open(TASK)
    assert asked_slot(conv, "Ascending or descending?") == 1
    assert asked_slot(conv, "Anything else?") == VAGUE
    assert mentioned_option(conv, 2, "only the first three please") == 2
    assert mentioned_option(conv, 2, "no idea") is None


@pytest.mark.parametrize("bad", ["", "not json {", '{"answer": 3}'])
def test_malformed_model_output_is_a_question_not_a_crash(bad):
    policy = LLMPolicy(LLMClient.scripted(lambda m, p: bad))
    action, _, _ = policy.act(Conversation.open(TASK), np.random.default_rng(0))
    assert action == VAGUE


def _user_replies_by_seed(body: dict) -> str:
    """A sampling stub user: an even seed tells the wishes, an odd one gives nothing away."""
    prompt = body["messages"][0]["content"]
    wishes = re.search(r"Your exact wishes: (.*)", prompt).group(1)
    return json.dumps({"response": wishes if body["seed"] % 2 == 0 else "no idea, you choose"})


def test_mr_with_the_llm_user_samples_distinct_continuations(tmp_path):
    conv = Conversation.open(TASK)  # the key (slot 0) is unstated
    with StubServer(_user_replies_by_seed) as server:
        endpoint = Endpoint(server.url, "stub")
        client = LLMClient.from_endpoint(endpoint, cache_dir=tmp_path)
        user = LLMUser(client, temperature=1.0)
        value = multiturn_aware_reward(
            conv, 0, BasePolicy(), user, num_samples=3, rng=np.random.default_rng(0)
        )
        requests = list(server.requests)
        again = multiturn_aware_reward(
            conv, 0, BasePolicy(), user, num_samples=3, rng=np.random.default_rng(0)
        )
        assert len(server.requests) == len(requests)  # the rerun is served from the cache
    # the user's reply to the candidate question opens each of the 3 continuations: three
    # requests with the same prompt and three different seeds, none collapsed into one reply
    history = conv.messages[0]["content"]
    firsts = [r for r in requests if r["messages"][0]["content"].count("ASSISTANT:") == 1]
    assert len(firsts) == 3 and history in firsts[0]["messages"][0]["content"]
    assert len({r["messages"][0]["content"] for r in firsts}) == 1
    assert len({r["seed"] for r in firsts}) == 3
    assert all(r["temperature"] == 1.0 for r in requests)
    assert value == again
    assert client.usage()["cached_calls"] == len(requests)


def test_a_model_error_loses_one_chat_not_the_evaluation():
    def refuse_the_code_family(body: dict):
        if "Python function" in body["messages"][0]["content"]:
            return StubResponse(status=400, body='{"error": "context length exceeded"}')
        return json.dumps({"response": "by length"})

    tasks = [TASK, Task(2, (3, -1, 3, 5), (0, 1, 2), (False, True, True))]
    with StubServer(refuse_the_code_family) as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub"), cache_dir=None)
        asker = LLMPolicy(LLMClient.scripted(lambda m, p: "Which one would you like?"))
        out = evaluate(asker, tasks, LLMUser(client), max_turns=2, rng=np.random.default_rng(0))
    assert out["model_error"].tolist() == [0.0, 1.0]
    assert len(out["errors"]) == 1 and "400" in out["errors"][0]
    assert out["turns"].tolist() == [2.0, 1.0]  # the failed chat stops at the failed request


def test_reproduction_keeps_its_cells_when_the_model_fails(tmp_path, monkeypatch):
    """The user simulator answers HTTP 400 on every code-family request (as a server does for a
    prompt over its context length): those chats and MR candidates are counted, not fatal."""

    def refuse_the_code_family(body: dict):
        first = body["messages"][0]["content"]
        if first.startswith("You play a person") and "Python function" in first:
            return StubResponse(status=400, body='{"error": "context length exceeded"}')
        return stub_model(body)

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    default_model_budget(monkeypatch)
    with StubServer(refuse_the_code_family) as server:
        summary = runner.run(
            ["collabllm"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "stub")
        )["collabllm"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    m = summary["measurements"]
    # the stub assistant asks first on each of the 2 x 4 code requests: every one fails
    assert m["llm_llm_policy_model_errors"] == 8 and m["llm_llm_policy_chats"] == 16
    assert m["llm_llm_policy_turns"] == 2.0  # the other chats are measured as before
    assert m["llm_multiturn_policy_model_errors"] > 0
    assert m["llm_reward_model_errors"] > 0 and m["llm_reward_states"] == 6


@pytest.mark.parametrize(
    "reply",
    [
        '{"thought": "I want the median", "response": "The median."}',
        'Sure.\n```json\n{"thought": "I want the median", "response": "The median."}\n```',
        "{'thought': 'I want the median', 'response': 'The median.'}",
        '{"thought": "I want the median", "response": "The median.",}',
        '{"thought": "a } in my thought", "response": "The median."}',
        '{"thought": "x", "response": "The median."} {"response": "other"}',
    ],
)
def test_user_reply_is_its_response_field_not_its_thought(reply):
    """Near-JSON replies (Python quotes, a trailing comma, a brace inside a string) are read as
    objects, so the user's ``thought`` never becomes its message."""
    user = LLMUser(LLMClient.scripted(lambda m, p: reply))
    text, _ = user.reply(Conversation.open(TASK), 0, np.random.default_rng(0))
    assert text == "The median."


def test_json_object_without_an_object():
    assert _json_object("no braces here") is None
    assert _json_object("{not: a dict, nor json") is None
    assert _json_object("[1, 2] {'a': 1}") == {"a": 1}


def test_smoke_has_its_own_small_model_budget():
    from icml25.collabllm import reproduce

    smoke, default = reproduce.SCALES["smoke"], reproduce.SCALES["default"]
    assert (smoke.llm_tasks, smoke.llm_levels, smoke.llm_samples) == (1, (2,), 1)
    assert (default.llm_levels, default.llm_samples) == (None, None)  # every level, as trained
