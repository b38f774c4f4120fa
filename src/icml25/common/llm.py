"""One client for language models: any OpenAI-compatible endpoint, or a scripted stand-in.

The papers that study large language or vision-language models (CollabLLM, AutoAdvExBench, ...)
talk to a model only through :class:`LLMClient`. Its one call is the chat-completions request of
the OpenAI schema, which hosted APIs and local servers (vLLM, Ollama, llama.cpp, SGLang) all
accept::

    client = LLMClient.from_endpoint(Endpoint("http://localhost:8000/v1", "qwen2.5-7b"))
    reply = client.chat([{"role": "user", "content": "Hello"}], temperature=0.0)
    reply.text, reply.prompt_tokens, reply.completion_tokens, reply.latency_s

Configuration follows the ecosystem: ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (read by the
``openai`` package too) and ``ICML25_LLM_MODEL`` (:func:`endpoint_from_env`), or ``icml25 run
... --llm-base-url URL --llm-model NAME``. The key is read from the environment when the client
is made and kept only in the HTTP headers: it is never part of an :class:`Endpoint`, a cache key,
a usage record, a cell, a summary or an error message.

Around each request the client adds what a long evaluation needs:

- a response cache on disk keyed by (backend, model, messages, parameters), so a rerun costs
  nothing and a run killed mid-way resumes where it stopped (sampling several continuations of
  one prompt: give each its own ``seed``, which is part of the key);
- retries with exponential backoff (or the server's ``Retry-After``) on 429, 5xx, timeouts and
  dropped connections; a timeout per request; at most ``max_concurrency`` requests in flight;
- a count of calls, cached calls, tokens and, where prices are given, cost (:meth:`usage`).

Backends: :class:`HTTPBackend` (httpx, rather than the ``openai`` package: one dependency
with its own connection pool and timeouts, and the retries, cache and counts stay in one place
whose behaviour the tests pin down against a real HTTP server, ``icml25.common.openai_stub``)
and :class:`ScriptedBackend`, a Python function standing in for a model in tests and offline
runs. Its replies are labelled ``backend="scripted"`` wherever they appear.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from math import inf
from pathlib import Path
from typing import Any

import numpy as np

ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
ENV_MODEL = "ICML25_LLM_MODEL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
HTTP_LABEL = "openai-http"
SCRIPTED_LABEL = "scripted"
RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
TRANSIENT_STATUS = frozenset({408, 429, 503})  # busy or loading: the same body says nothing new
BODY_CHARS = 300  # of an error body kept in the message, after redaction
COUNTS = ("calls", "cached_calls", "prompt_tokens", "completion_tokens", "retries")


class LLMError(RuntimeError):
    """A request to a model failed (after its retries)."""


class LLMConfigError(LLMError, ValueError):
    """A setting the client needs is missing or malformed; the message names the setting."""


class LLMResponseError(LLMError):
    """The server answered with something that is not a chat completion."""


class _Retryable(Exception):
    """A failure worth another attempt: 429, 5xx, a timeout, a dropped connection. ``body``:
    the server's answer, where one that repeats means the failure is permanent."""

    def __init__(
        self, reason: str, retry_after: float | None = None, body: str | None = None
    ) -> None:
        super().__init__(reason)
        self.retry_after, self.body = retry_after, body


@dataclass(frozen=True)
class Endpoint:
    """Where a model is served and which one: an OpenAI-compatible ``base_url`` (ending in
    ``/v1`` for most servers) and a ``model`` name. Optional prices in US dollars per million
    prompt and completion tokens turn token counts into a cost. No key: see the module doc.

    ``served``: what the server reports it serves (:func:`preflight` fills it in; the embedded
    llama.cpp server gives its model file and SHA-256). Where it is known, it identifies the model
    in cell fingerprints and the response cache in place of the URL (:meth:`identity`), so a
    server on another port is the same model, and another model under the same name is not.
    ``send_key=False``: the client never sends ``$OPENAI_API_KEY`` to this server (the embedded
    one needs none, and a key must not travel to a server it was not made for).
    ``reads_images``: whether the model takes images, where the server says (:func:`preflight`);
    ``None`` where unknown. ``concurrency``: requests one client keeps in flight (default 4;
    :func:`preflight` sets it from the slots a llama.cpp server reports, so requests do not
    wait in its queue while their timeout runs). ``context_tokens``: the tokens one request
    may hold, prompt and reply together, where known (:func:`preflight` reads llama.cpp's
    ``/props``; the embedded server gives its slot's context), so that a caller with a long
    history can fit it (the attack agent of autoadvexbench)."""

    base_url: str
    model: str
    price_in_per_mtok: float | None = None
    price_out_per_mtok: float | None = None
    served: str | None = None
    send_key: bool = True
    reads_images: bool | None = None
    concurrency: int | None = None
    context_tokens: int | None = None

    def __post_init__(self) -> None:
        url = self.base_url
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise LLMConfigError(
                f"base_url ({ENV_BASE_URL} or --llm-base-url) must be an http(s) URL such as "
                f"http://localhost:8000/v1, got {url!r}"
            )
        if "@" in url.split("//", 1)[1].split("/", 1)[0] or "?" in url or "#" in url:
            raise LLMConfigError(
                f"base_url must not carry credentials, a query or a fragment (it is written "
                f"into summaries): put the key in {ENV_API_KEY}"
            )
        object.__setattr__(self, "base_url", url.rstrip("/"))
        if not isinstance(self.model, str) or not self.model.strip():
            raise LLMConfigError(
                f"model ({ENV_MODEL} or --llm-model) must be a non-empty name, got {self.model!r}"
            )
        for name in ("price_in_per_mtok", "price_out_per_mtok"):
            price = getattr(self, name)
            if price is not None and not (
                isinstance(price, int | float) and not isinstance(price, bool) and 0 <= price < inf
            ):
                raise LLMConfigError(f"{name} must be a finite number >= 0, got {price!r}")
        if self.served is not None and (not isinstance(self.served, str) or not self.served):
            raise LLMConfigError(f"served must be a non-empty string or None, got {self.served!r}")
        if not isinstance(self.send_key, bool):
            raise LLMConfigError(f"send_key must be True or False, got {self.send_key!r}")
        if self.concurrency is not None and (
            isinstance(self.concurrency, bool)
            or not isinstance(self.concurrency, int)
            or self.concurrency < 1
        ):
            raise LLMConfigError(
                f"concurrency (--llm-concurrency) must be an integer >= 1, got {self.concurrency!r}"
            )
        if self.context_tokens is not None and (
            isinstance(self.context_tokens, bool)
            or not isinstance(self.context_tokens, int)
            or self.context_tokens < 1
        ):
            raise LLMConfigError(
                f"context_tokens must be an integer >= 1 or None, got {self.context_tokens!r}"
            )
        if self.reads_images is not None and not isinstance(self.reads_images, bool):
            raise LLMConfigError(
                f"reads_images must be True, False or None, got {self.reads_images!r}"
            )

    def identity(self) -> str:
        """The model behind this endpoint: what the server serves where known, else the URL
        and name (no key, no prices)."""
        where = f"served:{self.served}" if self.served else self.base_url
        return f"{HTTP_LABEL}:{where}"

    def __fingerprint__(self) -> dict:
        """The fields that decide what the model answers (for cell fingerprints); the context,
        where known, decides how much of a long history a caller sends."""
        context = {} if self.context_tokens is None else {"context_tokens": self.context_tokens}
        return {"identity": self.identity(), "model": self.model, **context}


def endpoint_from_env(
    base_url: str | None = None,
    model: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Endpoint | None:
    """The endpoint the user asked for, or ``None`` when no model is named.

    ``model`` falls back on ``$ICML25_LLM_MODEL``; naming a model is what turns a model on.
    ``base_url`` falls back on ``$OPENAI_BASE_URL``, then on OpenAI's own API."""
    environ = os.environ if environ is None else environ
    model = model or environ.get(ENV_MODEL) or None
    if model is None:
        if base_url:
            raise LLMConfigError(
                f"--llm-base-url was given without a model: name one with --llm-model or "
                f"{ENV_MODEL}"
            )
        return None
    return Endpoint(base_url or environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL, model)


def preflight(
    endpoint: Endpoint,
    *,
    api_key: str | None = None,
    timeout_s: float = 10.0,
    workers: int = 1,
) -> Endpoint:
    """Ask the server, once and before any cell starts, whether it answers and what it serves.

    ``GET {base_url}/models``. The endpoint comes back with ``served`` filled in when the server
    lists exactly one model (llama.cpp, vLLM and most local servers: its id), so the cache
    tells apart two models served under one name, and with ``reads_images`` where the entry of
    the model says whether it takes images. Where ``concurrency`` is not set and the server
    reports its slots (llama.cpp's ``GET /props``, ``total_slots``), it becomes the slots shared
    by ``workers`` processes (at least 1 each); where ``context_tokens`` is not set and the
    server reports a slot's context (``default_generation_settings.n_ctx``), it is that. A
    server that does not answer, refuses the key, or answers with something else raises
    :class:`LLMConfigError` with one line naming the URL, instead of every request retrying
    for minutes."""
    import httpx

    key = (api_key if api_key is not None else os.environ.get(ENV_API_KEY)) or ""
    headers = {"Authorization": f"Bearer {key}"} if key and endpoint.send_key else {}
    url = f"{endpoint.base_url}/models"
    try:
        response = httpx.get(url, headers=headers, timeout=timeout_s, follow_redirects=False)
    except httpx.TransportError as err:
        raise LLMConfigError(
            f"no model server answers at {endpoint.base_url} ({type(err).__name__}): start one, "
            "or give its address with --llm-base-url or $OPENAI_BASE_URL"
        ) from None
    if response.status_code in (401, 403):
        raise LLMConfigError(
            f"{endpoint.base_url} refused the request (HTTP {response.status_code}): is "
            f"{ENV_API_KEY} set and valid?"
        )
    checked = endpoint
    if response.status_code != 404:  # a server without the route still serves chats
        checked = _with_model_entry(endpoint, response, url, key)
    if checked.concurrency is None or checked.context_tokens is None:
        slots, context = _server_props(endpoint.base_url, headers, timeout_s)
        if checked.concurrency is None and slots is not None:
            checked = replace(checked, concurrency=max(1, slots // max(1, workers)))
        if checked.context_tokens is None and context is not None:
            checked = replace(checked, context_tokens=context)
    return checked


def _with_model_entry(endpoint: Endpoint, response, url: str, key: str) -> Endpoint:
    """``endpoint`` with what the ``/models`` answer says of its model."""
    try:
        listed = response.json()["data"] if response.status_code == 200 else None
    except (ValueError, KeyError, TypeError):
        listed = None
    if not isinstance(listed, list):
        body = redact(response.text[:2000], key)[:BODY_CHARS]
        raise LLMConfigError(
            f"{url} answered HTTP {response.status_code} without a model list: {body!r}"
        )
    entries = [e for e in listed if isinstance(e, Mapping)]
    named = [e for e in entries if e.get("id") == endpoint.model]
    entry = entries[0] if len(entries) == 1 else (named[0] if named else None)
    if entry is None:
        return endpoint
    served = endpoint.served or (str(entry.get("id")) if len(entries) == 1 else None)
    return replace(endpoint, served=served, reads_images=_reads_images(entry))


def _server_props(base_url: str, headers: dict, timeout_s: float) -> tuple[int | None, int | None]:
    """The requests a llama.cpp server decodes at once and the context of one (``/props``:
    ``total_slots``, ``default_generation_settings.n_ctx``), each None where unknown."""
    import httpx

    root = base_url.removesuffix("/v1")
    try:
        response = httpx.get(f"{root}/props", headers=headers, timeout=timeout_s)
        props = response.json() if response.status_code == 200 else {}
        slots = props.get("total_slots")
        settings = props.get("default_generation_settings")
        context = settings.get("n_ctx") if isinstance(settings, Mapping) else None
    except (httpx.HTTPError, ValueError, AttributeError):
        return None, None
    return _positive(slots), _positive(context)


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _reads_images(entry: Mapping) -> bool | None:
    """Whether a ``/models`` entry says its model takes images: llama.cpp's
    ``architecture.input_modalities``, Ollama's ``capabilities``; None where it says nothing."""
    architecture = entry.get("architecture")
    if isinstance(architecture, Mapping) and isinstance(architecture.get("input_modalities"), list):
        return "image" in architecture["input_modalities"]
    capabilities = entry.get("capabilities")
    if isinstance(capabilities, list) and capabilities:
        return "vision" in capabilities or "multimodal" in capabilities
    return None


def default_cache_dir() -> Path:
    """``$ICML25_CACHE/llm`` if set, else ``~/.cache/icml25/llm``."""
    return Path(os.environ.get("ICML25_CACHE", Path.home() / ".cache" / "icml25")) / "llm"


@dataclass(frozen=True)
class Reply:
    """One completion: its text, token counts (as the server reports them; the scripted
    backend counts words), wall time of the request (0 when cached), and where it came from."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    model: str
    backend: str
    cached: bool
    finish_reason: str | None = None


class ScriptedBackend:
    """A Python function in place of a model: ``respond(messages, params) -> str``, where
    ``params`` holds model, temperature, max_tokens, seed and response_format. Token counts
    are word counts. For tests and offline runs only; its replies say ``backend="scripted"``."""

    label = SCRIPTED_LABEL

    def __init__(self, respond: Callable[[list[dict], dict], str], model: str = "scripted"):
        if not callable(respond):
            raise TypeError(f"respond must be callable (messages, params) -> str, got {respond!r}")
        self.respond, self.model, self.identity = respond, model, f"{SCRIPTED_LABEL}:{model}"

    def complete(self, payload: dict) -> dict:
        params = {k: payload.get(k) for k in ("temperature", "max_tokens", "seed")}
        params.update(model=payload["model"], response_format=payload.get("response_format"))
        text = self.respond(payload["messages"], params)
        if not isinstance(text, str):
            raise LLMResponseError(f"the scripted respond function returned {type(text).__name__}")
        words = sum(len(str(m.get("content", "")).split()) for m in payload["messages"])
        return completion_body(text, words, len(text.split()), payload["model"])

    def close(self) -> None:
        pass


REDACT_WINDOW = 8  # no run of this many characters of the key survives redaction


def redact(text: str, secret: str) -> str:
    """``text`` with every run of ``REDACT_WINDOW`` or more characters of ``secret`` replaced by
    ``[redacted]`` (the whole key, a prefix, or any piece of it a server quotes)."""
    if len(secret) < REDACT_WINDOW or not text:
        return text.replace(secret, "[redacted]") if secret else text
    windows = {secret[i : i + REDACT_WINDOW] for i in range(len(secret) - REDACT_WINDOW + 1)}
    marks = [False] * len(text)
    for window in windows:
        start = text.find(window)
        while start >= 0:
            marks[start : start + REDACT_WINDOW] = [True] * REDACT_WINDOW
            start = text.find(window, start + 1)
    out, i = [], 0
    while i < len(text):
        if marks[i]:
            while i < len(text) and marks[i]:
                i += 1
            out.append("[redacted]")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


class HTTPBackend:
    """The chat-completions route of an OpenAI-compatible server, over httpx."""

    label = HTTP_LABEL

    def __init__(self, endpoint: Endpoint, api_key: str | None, timeout_s: float):
        import httpx

        self._httpx = httpx
        self.model, self.identity = endpoint.model, endpoint.identity()
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._key = api_key or ""
        # redirects are not followed: the key would go with the request to wherever they point
        self._client = httpx.Client(
            base_url=endpoint.base_url, headers=headers, timeout=timeout_s, follow_redirects=False
        )

    def __repr__(self) -> str:  # never shows the headers, which hold the key
        return f"HTTPBackend({self.identity!r})"

    def complete(self, payload: dict) -> dict:
        httpx = self._httpx
        try:
            response = self._client.post("/chat/completions", json=payload)
        except httpx.TimeoutException:
            raise _Retryable("the request timed out") from None
        except httpx.TransportError as err:
            raise _Retryable(f"connection failed ({type(err).__name__})") from None
        if response.status_code in (401, 403):  # the body may quote part of the key
            raise LLMError(
                f"{self.identity} answered HTTP {response.status_code}: is {ENV_API_KEY} set "
                "and valid?"
            )
        body = redact(response.text[:2000], self._key)[:BODY_CHARS]  # a proxy may echo the key
        if response.status_code in RETRY_STATUS:
            raise _Retryable(
                f"HTTP {response.status_code}",
                _retry_after(response.headers.get("retry-after")),
                body=body if response.status_code not in TRANSIENT_STATUS else None,
            )
        if response.status_code >= 300:
            raise LLMError(f"{self.identity} answered HTTP {response.status_code}: {body}")
        try:
            return response.json()
        except ValueError:
            raise LLMResponseError(
                f"{self.identity} answered with malformed JSON: {body!r}"
            ) from None

    def close(self) -> None:
        self._client.close()


class LLMClient:
    """Chat completions with a disk cache, retries, a concurrency limit and usage counts.

    Parameters
    ----------
    backend : an :class:`HTTPBackend` or :class:`ScriptedBackend` (see the constructors
        :meth:`from_endpoint` and :meth:`scripted`).
    cache_dir : folder of the response cache; ``None``: no cache.
    max_concurrency : requests in flight at once, over all threads using this client.
    max_retries : further attempts after a retryable failure; ``backoff_s * 2**k`` seconds
        (with jitter, at most ``max_backoff_s``) before attempt ``k + 1``, unless the server
        says ``Retry-After``.
    prices : US dollars per million (prompt, completion) tokens, for :meth:`usage`.
    context_tokens : the tokens one request may hold, prompt and reply, where known (from the
        endpoint), for callers that fit a long history; None where unknown.
    """

    def __init__(
        self,
        backend: HTTPBackend | ScriptedBackend,
        *,
        cache_dir: str | os.PathLike | None = None,
        max_concurrency: int = 4,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        prices: tuple[float | None, float | None] = (None, None),
        context_tokens: int | None = None,
    ) -> None:
        if isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int):
            raise ValueError(f"max_concurrency must be an integer >= 1, got {max_concurrency!r}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be an integer >= 1, got {max_concurrency!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if not (backoff_s >= 0 and max_backoff_s >= 0):
            raise ValueError(f"backoff_s and max_backoff_s must be >= 0, got {backoff_s!r}")
        self.backend = backend
        self.cache_dir = None if cache_dir is None else Path(cache_dir)
        self.max_concurrency, self.max_retries = max_concurrency, max_retries
        self.backoff_s, self.max_backoff_s = float(backoff_s), float(max_backoff_s)
        self.prices, self.context_tokens = prices, context_tokens
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._lock = threading.Lock()
        self._jitter = random.Random(0)
        self._counts = dict.fromkeys(COUNTS, 0)
        self._new_tokens = [0, 0]  # (prompt, completion) tokens actually requested, not cached

    @classmethod
    def from_endpoint(
        cls,
        endpoint: Endpoint,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        cache_dir: str | os.PathLike | None | bool = True,
        **options: Any,
    ) -> LLMClient:
        """A client of the server at ``endpoint``; the key is ``api_key`` or
        ``$OPENAI_API_KEY`` (local servers need none). ``cache_dir=True`` is
        :func:`default_cache_dir`; ``None`` or ``False`` turns the cache off."""
        if not isinstance(endpoint, Endpoint):
            raise TypeError(f"endpoint must be an icml25.common.llm.Endpoint, got {endpoint!r}")
        if not (isinstance(timeout_s, int | float) and timeout_s > 0):
            raise ValueError(f"timeout_s must be a positive number of seconds, got {timeout_s!r}")
        key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        if not endpoint.send_key:
            key = None
        if cache_dir is True:
            cache_dir = default_cache_dir()
        backend = HTTPBackend(endpoint, key, float(timeout_s))
        prices = (endpoint.price_in_per_mtok, endpoint.price_out_per_mtok)
        if endpoint.concurrency is not None:
            options.setdefault("max_concurrency", endpoint.concurrency)
        options.setdefault("context_tokens", endpoint.context_tokens)
        return cls(backend, cache_dir=cache_dir or None, prices=prices, **options)

    @classmethod
    def scripted(
        cls, respond: Callable[[list[dict], dict], str], *, model: str = "scripted", **options
    ) -> LLMClient:
        """A client whose "model" is ``respond(messages, params) -> str`` (no cache unless
        ``cache_dir`` is given)."""
        return cls(ScriptedBackend(respond, model), **options)

    @property
    def model(self) -> str:
        return self.backend.model

    def chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        images: Sequence[np.ndarray | bytes] | None = None,
        response_format: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> Reply:
        """One chat completion of ``messages`` (``[{"role", "content"}]``); ``images`` are
        attached to the last user message as PNG data URLs. Raises :class:`LLMError` when the
        request fails after its retries."""
        payload = _payload(
            messages, model or self.model, temperature, max_tokens, images, response_format, seed
        )
        key = _cache_key(self.backend.identity, payload)
        hit = self._read_cache(key)
        if hit is not None:
            self._count(hit, cached=True)
            return hit
        with self._slots:
            begin = time.perf_counter()
            raw = self._with_retries(payload)
            latency = time.perf_counter() - begin
        reply = _parse(raw, payload["model"], self.backend.label, latency, self.backend.identity)
        self._write_cache(key, reply)
        self._count(reply, cached=False)
        return reply

    def chat_many(self, requests: Iterable[Mapping[str, Any]]) -> list[Reply]:
        """:meth:`chat` for each dict of keyword arguments in ``requests``, up to
        ``max_concurrency`` at once; the replies in the order of the requests."""
        requests = list(requests)
        for i, request in enumerate(requests):
            if not isinstance(request, Mapping) or "messages" not in request:
                raise ValueError(f"requests[{i}] must be a dict with 'messages', got {request!r}")
        if len(requests) <= 1 or self.max_concurrency == 1:
            return [self.chat(**r) for r in requests]
        with ThreadPoolExecutor(min(self.max_concurrency, len(requests))) as pool:
            return list(pool.map(lambda r: self.chat(**r), requests))

    def usage(self) -> dict[str, Any]:
        """Calls, cached calls, retries, tokens (of every reply, cached or not) and the cost of
        the tokens requested from the server in this client's life (``None`` without
        prices). No URL and no key."""
        with self._lock:
            out: dict[str, Any] = {"backend": self.backend.label, "model": self.model}
            out.update(self._counts)
            new_in, new_out = self._new_tokens
        price_in, price_out = self.prices
        out["cost_usd"] = (
            None
            if price_in is None or price_out is None
            else (new_in * price_in + new_out * price_out) / 1e6
        )
        return out

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _with_retries(self, payload: dict) -> dict:
        """The backend's answer, retried on a retryable failure; a server that gives the same
        error body twice (llama.cpp's HTTP 500 "image input is not supported") is not asked a
        third time."""
        previous_body = None
        for attempt in range(self.max_retries + 1):
            try:
                return self.backend.complete(payload)
            except _Retryable as err:
                repeated = err.body is not None and err.body == previous_body
                if attempt == self.max_retries or repeated:
                    why = " (the same answer twice: not retried)" if repeated else ""
                    said = f": {err.body}" if err.body else ""
                    raise LLMError(
                        f"{self.backend.identity}: {err} after {attempt + 1} attempts{why}{said}"
                    ) from None
                previous_body = err.body
                with self._lock:
                    self._counts["retries"] += 1
                    wait = self.backoff_s * 2**attempt * (0.5 + self._jitter.random())
                time.sleep(min(self.max_backoff_s, err.retry_after or wait))
        raise AssertionError("unreachable")

    def _count(self, reply: Reply, *, cached: bool) -> None:
        with self._lock:
            self._counts["calls"] += 1
            self._counts["cached_calls"] += cached
            self._counts["prompt_tokens"] += reply.prompt_tokens
            self._counts["completion_tokens"] += reply.completion_tokens
            if not cached:
                self._new_tokens[0] += reply.prompt_tokens
                self._new_tokens[1] += reply.completion_tokens

    def _cache_file(self, key: str) -> Path:
        return self.cache_dir / key[:2] / f"{key}.json"

    def _read_cache(self, key: str) -> Reply | None:
        if self.cache_dir is None:
            return None
        try:
            data = json.loads(self._cache_file(key).read_text(encoding="utf-8"))
            return Reply(**{**data, "latency_s": 0.0, "cached": True})
        except (OSError, ValueError, TypeError):  # absent or corrupt: ask the server again
            return None

    def _write_cache(self, key: str, reply: Reply) -> None:
        if self.cache_dir is None:
            return
        path = self._cache_file(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {k: getattr(reply, k) for k in Reply.__dataclass_fields__}
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False) as f:
            json.dump(data, f)
        os.replace(f.name, path)  # atomic: a killed run leaves no half-written entry


def usage_total(usages: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The sum of :meth:`LLMClient.usage` records (e.g. one per cell); the cost is ``None``
    unless every record has one."""
    usages = list(usages)
    total: dict[str, Any] = {k: sum(int(u.get(k, 0)) for u in usages) for k in COUNTS}
    for name in ("backend", "model"):
        values = {u.get(name) for u in usages}
        total[name] = values.pop() if len(values) == 1 else ("mixed" if values else None)
    costs = [u.get("cost_usd") for u in usages]
    total["cost_usd"] = sum(costs) if costs and None not in costs else None
    return total


def image_data_url(image: np.ndarray | bytes) -> str:
    """A PNG data URL of an image: PNG bytes, or a uint8 array (H, W) or (H, W, 3)."""
    if isinstance(image, bytes | bytearray):
        if not bytes(image[:8]) == b"\x89PNG\r\n\x1a\n":
            raise ValueError("images: bytes must be a PNG file")
        data = bytes(image)
    else:
        from PIL import Image

        array = np.asarray(image)
        if (
            array.dtype != np.uint8
            or array.ndim not in (2, 3)
            or array.ndim == 3
            and (array.shape[2] != 3)
        ):
            raise ValueError(
                f"images: each array must be uint8 (H, W) or (H, W, 3), got {array.dtype} "
                f"{array.shape}"
            )
        buffer = io.BytesIO()
        Image.fromarray(array).save(buffer, format="PNG")
        data = buffer.getvalue()
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def _payload(messages, model, temperature, max_tokens, images, response_format, seed) -> dict:
    """The request body of the chat-completions route, checked."""
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence) or not messages:
        raise ValueError("messages must be a non-empty list of {'role', 'content'} dicts")
    clean = []
    for i, m in enumerate(messages):
        if not isinstance(m, Mapping) or m.get("role") not in ("system", "user", "assistant"):
            raise ValueError(
                f"messages[{i}] must be a dict with role system, user or assistant, got {m!r}"
            )
        if not isinstance(m.get("content"), str):
            raise ValueError(f"messages[{i}]['content'] must be a string")
        clean.append({"role": m["role"], "content": m["content"]})
    if not (isinstance(temperature, int | float) and 0 <= temperature <= 2):
        raise ValueError(f"temperature must be a number in [0, 2], got {temperature!r}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ValueError(f"seed must be an integer or None, got {seed!r}")
    if images:
        last = max((i for i, m in enumerate(clean) if m["role"] == "user"), default=None)
        if last is None:
            raise ValueError("images need a user message to attach to")
        parts = [{"type": "text", "text": clean[last]["content"]}]
        parts += [{"type": "image_url", "image_url": {"url": image_data_url(x)}} for x in images]
        clean[last] = {"role": "user", "content": parts}
    payload = {
        "model": model,
        "messages": clean,
        "temperature": float(temperature),
        "max_tokens": max_tokens,
    }
    if response_format is not None:
        payload["response_format"] = dict(response_format)
    if seed is not None:
        payload["seed"] = seed
    return payload


def _cache_key(identity: str, payload: dict) -> str:
    text = json.dumps([identity, payload], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _parse(raw: Any, model: str, label: str, latency: float, identity: str) -> Reply:
    """A :class:`Reply` from a chat-completions response body, or LLMResponseError."""
    try:
        choice = raw["choices"][0]
        text = choice["message"]["content"]
        if text is None:  # a reply cut off while reasoning, or a tool call: no text
            text = ""
        if not isinstance(text, str):
            raise TypeError("content is not a string")
        usage = raw.get("usage") or {}
        return Reply(
            text=text,
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            latency_s=latency,
            model=str(raw.get("model") or model),
            backend=label,
            cached=False,
            finish_reason=choice.get("finish_reason"),
        )
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        raise LLMResponseError(
            f"{identity} answered without a chat completion: {json.dumps(raw)[:200]}"
        ) from None


def completion_body(text: str, prompt_tokens: int, completion_tokens: int, model: str) -> dict:
    """A chat-completions response body (the scripted backend's answers take this form)."""
    return {
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
