"""The shared LLM client against a real HTTP server on 127.0.0.1 (the stub), and offline."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

from icml25.common.llm import (
    Endpoint,
    LLMClient,
    LLMConfigError,
    LLMError,
    LLMResponseError,
    endpoint_from_env,
    image_data_url,
    preflight,
    usage_total,
)
from icml25.common.openai_stub import StubResponse, StubServer

HELLO = [{"role": "user", "content": "say hello"}]
KEY = "sk-test-secret-0123456789"


def client_of(server, tmp_path=None, **options):
    options.setdefault("backoff_s", 0.01)
    return LLMClient.from_endpoint(
        Endpoint(server.url, "stub-model", 1.0, 2.0),
        api_key=KEY,
        cache_dir=tmp_path,
        **options,
    )


def scripted_sequence(*answers):
    """A responder that gives ``answers`` in turn (the last one again when they run out)."""
    answers = list(answers)
    return lambda body: answers.pop(0) if len(answers) > 1 else answers[0]


def test_success_returns_text_tokens_and_sends_the_request():
    with StubServer(lambda body: "hello there") as server:
        client = client_of(server)
        reply = client.chat(HELLO, temperature=0.3, max_tokens=7, seed=5)
    assert reply.text == "hello there"
    assert (reply.prompt_tokens, reply.completion_tokens) == (2, 2)
    assert reply.backend == "openai-http" and not reply.cached and reply.latency_s > 0
    body = server.requests[0]
    assert body["model"] == "stub-model" and body["messages"] == HELLO
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 7, 5)
    assert server.headers[0]["authorization"] == f"Bearer {KEY}"


def test_429_then_success_is_retried_after_the_servers_delay():
    busy = StubResponse(status=429, body="{}", headers={"Retry-After": "0.2"})
    with StubServer(scripted_sequence(busy, "ok")) as server:
        client = client_of(server)
        begin = time.perf_counter()
        reply = client.chat(HELLO)
        waited = time.perf_counter() - begin
    assert reply.text == "ok" and len(server.requests) == 2
    assert waited >= 0.2  # Retry-After honoured, not the 0.01 s backoff
    assert client.usage()["retries"] == 1


def test_a_500_that_persists_fails_after_the_retries_with_a_clear_error():
    bodies = iter(f'{{"error": "overloaded {i}"}}' for i in range(10))
    with StubServer(lambda body: StubResponse(status=500, body=next(bodies))) as server:
        client = client_of(server, max_retries=2)
        with pytest.raises(LLMError, match="HTTP 500 after 3 attempts: .*overloaded 2"):
            client.chat(HELLO)
    assert len(server.requests) == 3


def test_the_same_error_body_twice_is_a_permanent_refusal_not_retried_again():
    """llama.cpp answers an image sent to a text-only model with this HTTP 500 every time."""
    refusal = '{"error": {"code": 500, "message": "image input is not supported"}}'
    with StubServer(lambda body: StubResponse(status=500, body=refusal)) as server:
        client = client_of(server, max_retries=5)
        with pytest.raises(LLMError, match="after 2 attempts.*image input is not supported"):
            client.chat(HELLO)
    assert len(server.requests) == 2


def test_a_busy_server_is_retried_even_when_its_answer_repeats():
    busy = StubResponse(status=503, body='{"error": "loading model"}')
    with StubServer(scripted_sequence(busy, busy, busy, "ready")) as server:
        assert client_of(server, max_retries=5).chat(HELLO).text == "ready"
    assert len(server.requests) == 4


def test_a_400_is_not_retried():
    with StubServer(lambda body: StubResponse(status=400, body='{"error": "bad"}')) as server:
        with pytest.raises(LLMError, match="HTTP 400"):
            client_of(server).chat(HELLO)
    assert len(server.requests) == 1


def test_a_timeout_is_retried_then_reported():
    slow = StubResponse(text="late", delay=0.5)
    with StubServer(scripted_sequence(slow, "fast")) as server:
        client = LLMClient.from_endpoint(
            Endpoint(server.url, "m"), timeout_s=0.2, cache_dir=None, backoff_s=0.01
        )
        assert client.chat(HELLO).text == "fast"
        assert client.usage()["retries"] == 1
    with StubServer(lambda body: slow) as server:
        client = LLMClient.from_endpoint(
            Endpoint(server.url, "m"), timeout_s=0.2, cache_dir=None, backoff_s=0.01, max_retries=1
        )
        with pytest.raises(LLMError, match="timed out after 2 attempts"):
            client.chat(HELLO)


@pytest.mark.parametrize(
    "body", ["{not json", '{"choices": []}', '{"choices": [{"message": {"content": 3}}]}']
)
def test_malformed_answers_raise_a_response_error(body):
    with StubServer(lambda b: StubResponse(body=body)) as server:
        with pytest.raises(LLMResponseError, match="malformed JSON|without a chat completion"):
            client_of(server).chat(HELLO)


def test_the_cache_answers_a_rerun_without_the_server(tmp_path):
    with StubServer(lambda body: f"reply {len(body['messages'])} {body.get('seed')}") as server:
        first = client_of(server, tmp_path).chat(HELLO, seed=1)
        again = client_of(server, tmp_path)  # a new client: as a rerun would make
        second = again.chat(HELLO, seed=1)
        other_seed = again.chat(HELLO, seed=2)
        other_temperature = again.chat(HELLO, seed=1, temperature=0.5)
    assert len(server.requests) == 3  # the repeated request never reached the server
    assert second.cached and second.text == first.text and second.latency_s == 0.0
    assert not other_seed.cached and not other_temperature.cached
    usage = again.usage()
    assert (usage["calls"], usage["cached_calls"]) == (3, 1)
    # cost counts only tokens requested from the server: 2 calls x (2 in, 3 out) tokens
    assert usage["cost_usd"] == pytest.approx((2 * 2 * 1.0 + 2 * 3 * 2.0) / 1e6)


def test_a_reply_without_text_is_empty_with_its_finish_reason():
    body = '{"choices": [{"message": {"content": null}, "finish_reason": "length"}]}'
    with StubServer(lambda b: StubResponse(body=body)) as server:
        reply = client_of(server).chat(HELLO)
    assert (reply.text, reply.finish_reason) == ("", "length")


def test_a_corrupt_cache_entry_is_asked_again(tmp_path):
    with StubServer(lambda body: "fresh") as server:
        client_of(server, tmp_path).chat(HELLO)
        for path in tmp_path.rglob("*.json"):
            path.write_text("{truncated")
        assert client_of(server, tmp_path).chat(HELLO).text == "fresh"
    assert len(server.requests) == 2


def test_a_different_model_or_server_is_not_served_from_the_cache(tmp_path):
    with StubServer(lambda body: "a") as a, StubServer(lambda body: "b") as b:
        assert client_of(a, tmp_path).chat(HELLO).text == "a"
        assert client_of(b, tmp_path).chat(HELLO).text == "b"
        other = LLMClient.from_endpoint(Endpoint(a.url, "other"), cache_dir=tmp_path)
        assert not other.chat(HELLO).cached


def test_the_key_never_reaches_usage_cache_errors_or_reprs(tmp_path):
    leaky = '{"error": "Incorrect API key provided: sk-test-****6789"}'  # as OpenAI answers
    with StubServer(lambda body: StubResponse(status=401, body=leaky)) as server:
        client = client_of(server, tmp_path)
        with pytest.raises(LLMError) as err:
            client.chat(HELLO)
    assert KEY not in str(err.value) and "OPENAI_API_KEY" in str(err.value)
    assert "6789" not in str(err.value)  # no part of the key the server quoted
    with StubServer(lambda body: "fine") as server:
        client = client_of(server, tmp_path)
        client.chat(HELLO)
    texts = [json.dumps(client.usage()), repr(client.backend), repr(vars(client))]
    texts += [p.read_text() for p in tmp_path.rglob("*.json")]
    assert not any(KEY in t for t in texts)


def test_concurrency_is_limited_and_chat_many_keeps_the_order():
    live, peak, lock = [0], [0], threading.Lock()

    def respond(body):
        with lock:
            live[0] += 1
            peak[0] = max(peak[0], live[0])
        time.sleep(0.05)
        with lock:
            live[0] -= 1
        return body["messages"][0]["content"]

    with StubServer(respond) as server:
        client = client_of(server, max_concurrency=2)
        requests = [dict(messages=[{"role": "user", "content": f"q{i}"}]) for i in range(8)]
        replies = client.chat_many(requests)
    assert [r.text for r in replies] == [f"q{i}" for i in range(8)]
    assert peak[0] == 2


def test_images_are_sent_as_png_data_urls_on_the_last_user_message():
    image = np.arange(12, dtype=np.uint8).reshape(3, 4)
    with StubServer(lambda body: "an image") as server:
        client_of(server).chat(HELLO, images=[image])
    content = server.requests[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "say hello"}
    assert content[1]["image_url"]["url"] == image_data_url(image)
    assert image_data_url(image).startswith("data:image/png;base64,iVBORw0KGgo")


def test_scripted_backend_is_labelled_and_gets_the_parameters():
    seen = []

    def respond(messages, params):
        seen.append(params)
        return "scripted answer"

    client = LLMClient.scripted(respond, model="rules")
    reply = client.chat(HELLO, temperature=0.7, seed=3, response_format={"type": "json_object"})
    assert reply.backend == "scripted" and reply.model == "rules" and not reply.cached
    assert seen[0]["temperature"] == 0.7 and seen[0]["seed"] == 3
    assert seen[0]["response_format"] == {"type": "json_object"}
    assert client.usage()["backend"] == "scripted" and client.usage()["cost_usd"] is None


def test_usage_total_sums_cells():
    a = {"backend": "openai-http", "model": "m", "calls": 2, "prompt_tokens": 5, "cost_usd": 0.5}
    b = {"backend": "openai-http", "model": "n", "calls": 1, "prompt_tokens": 1, "cost_usd": None}
    total = usage_total([a, b])
    assert (total["calls"], total["prompt_tokens"], total["model"]) == (3, 6, "mixed")
    assert total["cost_usd"] is None and usage_total([a, a])["cost_usd"] == 1.0


def test_endpoint_from_env_needs_a_model_to_turn_a_model_on():
    assert endpoint_from_env(environ={}) is None
    assert endpoint_from_env(environ={"OPENAI_BASE_URL": "http://x/v1"}) is None
    env = {"OPENAI_BASE_URL": "http://x:1/v1/", "ICML25_LLM_MODEL": "m"}
    assert endpoint_from_env(environ=env) == Endpoint("http://x:1/v1", "m")
    assert endpoint_from_env(model="m", environ={}).base_url == "https://api.openai.com/v1"
    with pytest.raises(LLMConfigError, match="--llm-model"):
        endpoint_from_env(base_url="http://x/v1", environ={})


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(base_url="localhost:8000", model="m"), "base_url"),
        (dict(base_url="http://user:pw@host/v1", model="m"), "credentials"),
        (dict(base_url="http://host/v1?api-key=secret", model="m"), "query"),
        (dict(base_url="http://host/v1#frag", model="m"), "fragment"),
        (dict(base_url="http://h/v1", model=""), "model"),
        (dict(base_url="http://h/v1", model="m", price_in_per_mtok=-1), "price_in"),
    ],
)
def test_endpoint_rejects_bad_settings(kwargs, match):
    with pytest.raises(LLMConfigError, match=match):
        Endpoint(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(messages=[]), "messages"),
        (dict(messages="hello"), "messages"),
        (dict(messages=[{"role": "robot", "content": "x"}]), r"messages\[0\]"),
        (dict(messages=[{"role": "user", "content": 3}]), r"messages\[0\]\['content'\]"),
        (dict(messages=HELLO, temperature=3), "temperature"),
        (dict(messages=HELLO, max_tokens=0), "max_tokens"),
        (dict(messages=HELLO, seed=1.5), "seed"),
        (dict(messages=HELLO, images=[np.zeros((2, 2))]), "images"),
        (dict(messages=HELLO, images=[b"GIF89a"]), "images"),
    ],
)
def test_chat_rejects_bad_arguments_before_any_request(kwargs, match):
    client = LLMClient.scripted(lambda m, p: "x")
    with pytest.raises(ValueError, match=match):
        client.chat(**kwargs)
    assert client.usage()["calls"] == 0


def test_client_rejects_bad_options():
    with pytest.raises(ValueError, match="max_concurrency"):
        LLMClient.scripted(lambda m, p: "x", max_concurrency=0)
    with pytest.raises(ValueError, match="max_retries"):
        LLMClient.scripted(lambda m, p: "x", max_retries=-1)
    with pytest.raises(TypeError, match="endpoint"):
        LLMClient.from_endpoint("http://h/v1")
    with pytest.raises(ValueError, match="timeout_s"):
        LLMClient.from_endpoint(Endpoint("http://h/v1", "m"), timeout_s=0)


def test_an_error_body_that_echoes_the_key_is_redacted():
    """A proxy that quotes the Authorization header, whole or in part, in an error body: the
    key reaches neither the error message nor anything built from it."""
    for echo in (f"Authorization: Bearer {KEY}", f"key {KEY[:12]}... is invalid", KEY[5:17]):
        answer = StubResponse(status=400, body=json.dumps({"error": echo}))
        with StubServer(lambda body, answer=answer: answer) as server:
            with pytest.raises(LLMError) as caught:
                client_of(server, max_retries=0).chat(HELLO)
        message = str(caught.value)
        assert "[redacted]" in message and "HTTP 400" in message
        assert not any(KEY[i : i + 8] in message for i in range(len(KEY) - 7))
    malformed = StubResponse(status=200, body=f"<html>{KEY}</html>")
    with StubServer(lambda body: malformed) as server:
        with pytest.raises(LLMResponseError) as caught:
            client_of(server, max_retries=0).chat(HELLO)
    assert KEY not in str(caught.value) and "[redacted]" in str(caught.value)


def test_a_redirect_is_not_followed_with_the_key():
    with StubServer(lambda body: "captured") as elsewhere:
        moved = StubResponse(status=302, headers={"location": f"{elsewhere.url}/chat/completions"})
        with StubServer(lambda body: moved) as server:
            with pytest.raises(LLMError, match="HTTP 302"):
                client_of(server, max_retries=0).chat(HELLO)
        assert elsewhere.requests == [] and elsewhere.headers == []


def test_redact_removes_every_run_of_eight_characters_of_the_secret():
    from icml25.common.llm import redact

    assert redact("abc", "") == "abc"
    assert redact("key=sk-0123456789abcdef end", "sk-0123456789abcdef") == "key=[redacted] end"
    assert redact("tail 89abcdef!", "sk-0123456789abcdef") == "tail [redacted]!"
    assert redact("short 89abcde", "sk-0123456789abcdef") == "short 89abcde"  # 7 characters


def test_an_endpoint_that_must_not_get_the_key_never_sends_it(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with StubServer(lambda body: "ok") as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "m", send_key=False), cache_dir=None)
        client.chat(HELLO)
        preflight(Endpoint(server.url, "m", send_key=False))
        LLMClient.from_endpoint(Endpoint(server.url, "m"), cache_dir=None).chat(HELLO)
    assert "authorization" not in server.headers[0]
    assert server.headers[1]["authorization"] == f"Bearer {KEY}"  # the default sends it


def test_preflight_names_a_server_that_does_not_answer_at_once():
    with StubServer(lambda body: "ok") as server:
        url = server.url
    begin = time.perf_counter()
    with pytest.raises(LLMConfigError, match="no model server answers at http://127.0.0.1"):
        preflight(Endpoint(url, "m"))
    assert time.perf_counter() - begin < 10


def test_preflight_records_the_one_model_a_server_serves_and_the_cache_tells_them_apart(
    tmp_path,
):
    """Two models served one after the other under one name at one URL (a server restarted
    with another file) do not share cache entries; without what the server reports, they would."""
    with StubServer(lambda body: "an answer", models=["model-a.gguf"]) as server:
        first = preflight(Endpoint(server.url, "local-name"))
        server.models = ["model-b.gguf"]
        second = preflight(Endpoint(server.url, "local-name"))
        assert (first.served, second.served) == ("model-a.gguf", "model-b.gguf")
        assert first.model == second.model == "local-name"
        replies = [
            LLMClient.from_endpoint(e, cache_dir=tmp_path).chat(HELLO) for e in (first, second)
        ]
        unnamed = [
            LLMClient.from_endpoint(Endpoint(server.url, "local-name"), cache_dir=tmp_path).chat(
                HELLO
            )
            for _ in range(2)
        ]
    assert not replies[0].cached and not replies[1].cached
    assert not unnamed[0].cached and unnamed[1].cached  # the URL alone cannot tell them apart


def test_preflight_leaves_a_many_model_or_routeless_server_as_named():
    with StubServer(lambda body: "ok", models=["gpt-a", "gpt-b"]) as server:
        assert preflight(Endpoint(server.url, "gpt-a")).served is None
    with StubServer(lambda body: "ok") as server:  # no /models route: 404
        assert preflight(Endpoint(server.url, "m")).served is None


def test_a_served_model_fingerprints_the_same_on_any_port():
    from dataclasses import dataclass

    from icml25.lab.reproduction import config_fingerprint

    @dataclass(frozen=True)
    class Config:
        n: int
        llm: Endpoint | None = None

    one = Config(1, Endpoint("http://127.0.0.1:4001/v1", "local:m", served="m.gguf sha256:ab"))
    two = Config(1, Endpoint("http://127.0.0.1:4002/v1", "local:m", served="m.gguf sha256:ab"))
    other = Config(1, Endpoint("http://127.0.0.1:4001/v1", "local:m", served="m.gguf sha256:cd"))
    remote = Config(1, Endpoint("http://127.0.0.1:4001/v1", "local:m"))
    moved = Config(1, Endpoint("http://127.0.0.1:4002/v1", "local:m"))
    assert config_fingerprint(one) == config_fingerprint(two)
    assert config_fingerprint(one) != config_fingerprint(other)
    assert config_fingerprint(remote) != config_fingerprint(moved)  # unknown model: the URL


def test_preflight_reads_whether_the_model_takes_images():
    text_only = {"id": "m", "architecture": {"input_modalities": ["text"]}}
    vision = {"id": "v", "capabilities": ["completion", "vision"]}
    for entry, expected in ((text_only, False), (vision, True), ({"id": "x"}, None)):
        with StubServer(lambda body: "ok", models=[entry]) as server:
            assert preflight(Endpoint(server.url, entry["id"])).reads_images is expected


def test_preflight_shares_the_slots_a_llama_cpp_server_reports_among_the_workers():
    """A request waiting in a one-slot server's queue spends its own timeout: each client keeps
    no more requests in flight than its share of the slots."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Props(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            data = json.dumps(
                {"total_slots": 4, "default_generation_settings": {"n_ctx": 2048}}
                if self.path == "/props"
                else {"data": [{"id": "m"}]}
            ).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Props)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_port}/v1"
        assert preflight(Endpoint(url, "m"), workers=2).concurrency == 2
        assert preflight(Endpoint(url, "m"), workers=8).concurrency == 1
        assert preflight(Endpoint(url, "m", concurrency=3), workers=2).concurrency == 3
        assert preflight(Endpoint(url, "m")).context_tokens == 2048  # a slot's context
        assert preflight(Endpoint(url, "m", context_tokens=512)).context_tokens == 512
    finally:
        httpd.shutdown()
        httpd.server_close()
    client = LLMClient.from_endpoint(Endpoint(url, "m", concurrency=2), cache_dir=None)
    assert client.max_concurrency == 2
    assert LLMClient.from_endpoint(Endpoint(url, "m", context_tokens=99)).context_tokens == 99
    with StubServer(lambda body: "ok", models=["m"]) as server:  # no /props: as named
        checked = preflight(Endpoint(server.url, "m"))
        assert checked.concurrency is None and checked.context_tokens is None
    with pytest.raises(LLMConfigError, match="--llm-concurrency"):
        Endpoint(url, "m", concurrency=0)
