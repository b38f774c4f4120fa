"""The endpoint path end to end against the stub OpenAI server: the language-model user
simulator and assistant in the reproduction's ``llm`` cells, through ``icml25.common.llm``."""

import json
import re

import numpy as np
import pytest

from icml25.collabllm import (
    VAGUE,
    Conversation,
    LLMPolicy,
    LLMUser,
    Task,
    asked_slot,
    mentioned_option,
    step,
)
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubServer
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


def test_reproduction_runs_end_to_end_against_the_stub(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    with StubServer(stub_model) as server:
        summary = runner.run(
            ["collabllm"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "stub")
        )["collabllm"]
        requests = list(server.requests)
    assert summary["cells"]["failed"] == 0, summary["failures"]
    m = summary["measurements"]
    assert m["llm_calls"] == len(requests) > 0
    assert m["llm_prompt_tokens"] > 0
    # the stub assistant asks first on every request, then answers with the first options
    assert m["llm_llm_policy_clarify_ambiguous"] == 1.0
    assert m["llm_llm_policy_turns"] == 2.0
    assert 0.0 < m["llm_llm_policy_success"] < 1.0
    # the tabular MR policy also talks to the language-model user simulator
    assert "llm_multiturn_policy_success" in m
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
