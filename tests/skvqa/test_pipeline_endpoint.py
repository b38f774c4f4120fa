"""The generation pipeline and the model form of the filters, against the stub server."""

import json
from dataclasses import replace

import pytest

import icml25.skvqa.reproduce as repro
from icml25.common.llm import Endpoint, LLMClient
from icml25.common.openai_stub import StubServer
from icml25.lab import runner
from icml25.skvqa.pipeline import apply_filters, parse_generation
from icml25.skvqa.scripted import Item

DOC = "The Golden Gate Bridge opened in 1937. Its colour is international orange."
GENERATION = json.dumps(
    {
        "context": DOC,
        "qa": [
            {"question": "When did this bridge open?", "answer": "1937"},
            {
                "question": "What colour is the Golden Gate Bridge?",
                "answer": "international orange",
            },
            {"question": "How long is this bridge?", "answer": "2.7 km"},
            {"question": "When did the bridge shown open?", "answer": "1937"},
        ],
    }
)


@pytest.mark.parametrize(
    "text, pairs",
    [
        (GENERATION, 4),
        ("Here you go:\n" + GENERATION, 4),
        ('{"context": "", "qa": [{"question": "q", "answer": "a"}]}', None),
        ('{"context": "doc", "qa": []}', None),
        ("no json", None),
    ],
)
def test_parse_generation(text, pairs):
    parsed = parse_generation(text)
    assert (len(parsed[1]) if parsed else None) == pairs


def stub(body):
    """A model that writes the generation above, and answers document-only questions only
    when the question names the bridge."""
    text = body["messages"][-1]["content"]
    if isinstance(text, list) or text.startswith("You cannot see"):  # a generation request
        return GENERATION
    if "Golden Gate Bridge?" in text:
        return "international orange"
    return "unknown"


def test_filters_with_a_model_keep_the_pairs_that_need_both():
    items = [Item("img", DOC, q, a, "") for q, a in parse_generation(GENERATION)[1]]
    with StubServer(stub) as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub-vlm"), cache_dir=None)
        result = apply_filters(items, client)
    assert [it.question for it in result.kept] == ["When did this bridge open?"]
    assert result.removed == {"answer": 1, "image": 1, "duplicate": 1}
    offline = apply_filters(items)
    assert offline.removed == {"answer": 1, "image": 1, "duplicate": 1}


def test_the_model_path_runs_end_to_end_through_the_runner(tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(repro.SCALES, "smoke", replace(repro.SCALES["smoke"], n_items=20))
    with StubServer(stub) as server:
        summary = runner.run(
            ["skvqa"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "stub-vlm")
        )["skvqa"]
    m = summary["measurements"]
    assert summary["complete"]
    assert m["model_generated"] == 8 and m["model_unusable_replies"] == 0  # 2 photos x 4 pairs
    assert m["model_kept"] == 2  # one per photo: a question about another image is not a repeat
    # 2 generations + 6 document-only questions; repeats may be served by the response cache
    usage = summary["llm_usage"]  # summed by the runner from the cells
    assert usage["calls"] == 8 == len(server.requests) + usage["cached_calls"]
    generation = [r for r in server.requests if isinstance(r["messages"][-1]["content"], list)]
    assert len(generation) == 2
    assert generation[0]["messages"][-1]["content"][1]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )


def test_the_document_only_variant_sends_descriptions_in_place_of_the_photographs(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(repro.SCALES, "smoke", replace(repro.SCALES["smoke"], n_items=20))
    with StubServer(stub) as server:
        endpoint = Endpoint(server.url, "stub-lm", reads_images=False)
        summary = runner.run(["skvqa"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint)["skvqa"]
    assert summary["complete"] and summary["model"] == "stub-lm"
    assert summary["measurements"]["model_generated"] == 8
    assert all(isinstance(r["messages"][-1]["content"], str) for r in server.requests)
    prompts = [r["messages"][-1]["content"] for r in server.requests]
    described = [p for p in prompts if p.startswith("You cannot see the image")]
    assert len(described) == 2 and any("Chinese temple" in p for p in described)


def test_descriptions_must_match_the_images():
    from icml25.skvqa.pipeline import generate

    with pytest.raises(ValueError, match="descriptions must give one per image: 1 for 2"):
        generate(None, [None, None], descriptions=["one"])
