"""Judges, profiles and the model path end to end against the stub server on 127.0.0.1."""

import json
from dataclasses import replace

import numpy as np
import pytest

import icml25.political_neutrality.reproduce as repro
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubServer
from icml25.lab import runner
from icml25.political_neutrality.framework import JUDGE_LABELS
from icml25.political_neutrality.judge import LLMJudge, ProxyJudge, parse_label
from icml25.political_neutrality.profile import expected_rate, technique_profile
from icml25.political_neutrality.replies import labelled_replies
from icml25.political_neutrality.suite import SuitePrompt


@pytest.mark.parametrize(
    "text, label",
    [
        ('{"label": "refusal"}', "refusal"),
        ('Sure: {"label": "Reasonable Pluralism"}', "reasonable_pluralism"),
        ('```json\n{"label": "bias"}\n```', "bias"),
        ('{"label": "sarcasm"}', None),
        ("refusal", "refusal"),  # a bare category name is an answer
        ("refusal, or maybe bias", None),
        ('{"category": "bias"}', None),
    ],
)
def test_parse_label(text, label):
    assert parse_label(text) == label


def test_profile_shares_and_expected_rates():
    prompts = [
        SuitePrompt("unsafe_political", "q1", "refusal"),
        SuitePrompt("unsafe_political", "q2", "refusal"),
        SuitePrompt("policy_opinion", "q3", "reasonable_pluralism"),
    ]
    profile = technique_profile(prompts, ["refusal", None, "bias"])
    assert profile["unsafe_political"]["refusal"] == 0.5
    assert profile["unsafe_political"]["unjudged"] == 0.5
    assert profile["policy_opinion"]["bias"] == 1.0
    assert expected_rate(profile) == {"unsafe_political": 0.5, "policy_opinion": 0.0}
    with pytest.raises(ValueError, match="labels"):
        technique_profile(prompts, ["refusal"])


def test_proxy_judge_learns_the_categories_and_checks_its_input():
    replies = labelled_replies(2)
    train = [r for r in replies if r.split == "train"]
    judge = ProxyJudge().fit([r.text for r in train], [r.label for r in train])
    # on its own training replies it must be nearly perfect (a wiring check, not the claim)
    guess = judge.predict([r.text for r in train])
    assert np.mean([g == r.label for g, r in zip(guess, train, strict=True)]) > 0.9
    with pytest.raises(ValueError, match="labels must be among"):
        ProxyJudge().fit(["a"], ["sarcasm"])
    with pytest.raises(ValueError, match="same length"):
        ProxyJudge().fit(["a", "b"], ["bias"])
    with pytest.raises(RuntimeError, match="fit"):
        ProxyJudge().predict(["a"])
    with pytest.raises(ValueError, match="C must"):
        ProxyJudge(C=0)


def test_llm_judge_counts_unusable_answers_as_none():
    answers = iter(['{"label": "avoidance"}', "I cannot decide."])
    client = LLMClient.scripted(lambda messages, params: next(answers), max_concurrency=1)
    labels = LLMJudge(client).judge(["q1", "q2"], ["r1", "r2"])
    assert labels == ["avoidance", None]


def stub(body):
    """A model that refuses everything, and a judge that says so (or once, babbles)."""
    text = body["messages"][-1]["content"]
    if text.startswith("You will read a question"):
        return "no idea" if "fake ballots" in text else json.dumps({"label": "refusal"})
    return "I'm sorry, I can't help with that."


def test_the_model_path_runs_end_to_end_through_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    smoke = replace(repro.SCALES["smoke"], prompts_per_family=3)
    monkeypatch.setitem(repro.SCALES, "smoke", smoke)
    with StubServer(stub) as server:
        summary = runner.run(
            ["political_neutrality"],
            scale="smoke",
            out=tmp_path,
            jobs=1,
            llm=Endpoint(server.url, "stub-model"),
        )["political_neutrality"]
    m = summary["measurements"]
    assert summary["complete"]
    assert m["llm_judge_expected_rate_unsafe_political"] == pytest.approx(2 / 3)  # one babble
    assert m["llm_judge_expected_rate_policy_opinion"] == 0.0
    assert m["llm_judge_unusable_rate"] == pytest.approx(1 / 21)
    # 21 replies, each judged twice: the prompt alone, and with the label schema
    assert summary["llm_usage"]["calls"] == len(server.requests) == 3 * 21
    schema = [r for r in server.requests if r.get("response_format")]
    assert len(schema) == 21
    assert schema[0]["response_format"]["json_schema"]["schema"]["properties"]["label"]["enum"]
    table = {k: v for k, v in m.items() if k.startswith("llm_judge_confusion[")}
    k = len(JUDGE_LABELS)
    assert len(table) == (k + 1) * k and sum(table.values()) == 21
    assert sum(v for k, v in table.items() if k.startswith("llm_judge_confusion[unusable,")) == 1
    usable_same = sum(m[f"llm_judge_confusion[{x},proxy={x}]"] for x in JUDGE_LABELS)
    assert m["judges_agreement"] == pytest.approx(usable_same / 21)
    assert "llm_schema_judge_unusable_rate" in summary["model_measurements"]
