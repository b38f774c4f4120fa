import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from icml25.social_choice import HTTPOracles, democratic_process, template_opinions


class FakeChat(BaseHTTPRequestHandler):
    """A stand-in for an OpenAI-compatible server: rates 5 if the participant's opinions mention
    the statement's first word, else 2; generates a fixed long statement."""

    seen: list = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeChat.seen.append((self.path, self.headers.get("Authorization"), body))
        prompt = body["messages"][0]["content"]
        if prompt.startswith("A participant"):
            opinions, statement = prompt.split("statement:\n")
            first = statement.strip('"').split()[0].lower()
            content = "Rating: 5" if first in opinions.lower() else "2"
        else:
            content = '"bike lanes are good for the whole town and everyone in it"'
        data = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def server(monkeypatch, tmp_path):
    httpd = HTTPServer(("127.0.0.1", 0), FakeChat)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{httpd.server_port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("ICML25_LLM_MODEL", "fake-model")
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path))
    FakeChat.seen = []
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_disc_and_gen_through_the_endpoint(server):
    opinions = template_opinions(6, seed=0)
    oracles = HTTPOracles(opinions)
    path, auth, body = None, None, None
    statement = oracles.gen(np.arange(6), 4.0, 5)
    assert statement == "bike lanes are good for"  # cut to x = 5 words
    assert oracles.cost(statement) == 5
    ratings = oracles.disc(np.arange(6), statement)
    mentions = ["bike" in " ".join(s).lower() for s in opinions.sentences]
    np.testing.assert_array_equal(ratings, np.where(mentions, 5.0, 2.0))
    path, auth, body = FakeChat.seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer test-key"
    assert body["model"] == "fake-model" and body["temperature"] == 0
    calls = len(FakeChat.seen)
    oracles.disc(np.arange(6), statement)  # cached
    assert len(FakeChat.seen) == calls


def test_the_process_runs_on_the_endpoint(server):
    opinions = template_opinions(4, seed=1)
    oracles = HTTPOracles(opinions)
    slate = democratic_process(4, 20, [5, 2], [5], oracles.disc, oracles.gen, oracles.cost)
    assert slate.costs.sum() <= 20 and len(slate.statements) >= 1


def test_bad_configuration(monkeypatch):
    from icml25.common.llm import Endpoint, LLMConfigError

    opinions = template_opinions(2, seed=0)
    monkeypatch.delenv("ICML25_LLM_MODEL", raising=False)
    with pytest.raises(LLMConfigError, match="needs a model"):
        HTTPOracles(opinions)
    with pytest.raises(LLMConfigError, match="base_url"):
        HTTPOracles(opinions, Endpoint("ftp://x", "m"))
    with pytest.raises(TypeError, match="endpoint"):
        HTTPOracles(opinions, "http://x")
    with pytest.raises(ValueError, match="unusable"):
        HTTPOracles(opinions, Endpoint("http://x", "m"), unusable="skip")


def test_an_answer_without_a_rating_raises_or_counts_as_the_lowest():
    from icml25.common.llm import LLMClient

    opinions = template_opinions(3, seed=0)
    client = LLMClient.scripted(lambda messages, params: "I cannot say.")
    with pytest.raises(ValueError, match="expected a rating 1-6"):
        HTTPOracles(opinions, client=client).rate(0, "a statement")
    lenient = HTTPOracles(opinions, client=client, unusable="lowest")
    np.testing.assert_array_equal(lenient.disc(np.arange(3), "a statement"), [1.0, 1.0, 1.0])
    assert lenient.unusable == lenient.ratings_asked == 3


def test_oracles_take_the_projects_model_client():
    from icml25.common.llm import LLMClient

    prompts = []

    def respond(messages, params):
        prompts.append(messages[-1]["content"])
        return "4"

    opinions = template_opinions(3, seed=0)
    oracles = HTTPOracles(opinions, client=LLMClient.scripted(respond))
    np.testing.assert_array_equal(oracles.disc(np.arange(3), "a statement"), [4.0, 4.0, 4.0])
    assert len(prompts) == 3 and oracles.client.usage()["calls"] == 3
    with pytest.raises(TypeError, match="client"):
        HTTPOracles(opinions, client="http://x")


def test_the_model_cell_runs_prose_on_the_endpoint_and_reports_what_the_model_said(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path))
    from dataclasses import replace

    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer
    from icml25.social_choice import reproduce

    def respond(body):
        prompt = body["messages"][-1]["content"]
        return "5" if prompt.startswith("A participant") else "parks for everyone"

    with StubServer(respond) as server:
        config = replace(reproduce.SCALES["smoke"], llm=Endpoint(server.url, "m"))
        assert [c for c in reproduce.cells(config) if c["part"] == "model"]
        out = reproduce._model(config, seed=3)
    assert out["slate_size"] >= 1 and out["slate_words"] <= out["budget"]
    assert out["mean_rating"] == 5.0 and out["unusable"] == 0
    assert out["llm_usage"]["calls"] == len(server.requests)
    assert not [c for c in reproduce.cells(reproduce.SCALES["smoke"]) if c["part"] == "model"]
