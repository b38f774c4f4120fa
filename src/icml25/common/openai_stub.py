"""A stand-in OpenAI-compatible server on 127.0.0.1, for testing code that talks to a model.

It serves ``POST /v1/chat/completions`` in a background thread (standard library only) and
answers each request with what a ``responder(body) -> str | StubResponse`` returns; with
``models=[...]`` (ids, or whole entries as dicts) it lists them at ``GET /v1/models`` (else that
route is a 404)::

    with StubServer(lambda body: "Paris") as server:
        client = LLMClient.from_endpoint(Endpoint(server.url, "stub"), cache_dir=None)
        client.chat([{"role": "user", "content": "Capital of France?"}]).text   # 'Paris'
        server.requests      # the request bodies received, in order
        server.headers       # their headers (lower-case names)

A string becomes a well-formed completion (token counts are word counts); a
:class:`StubResponse` sets the status, a raw body (to test malformed JSON), a delay (to test
timeouts) and headers (``Retry-After``). Nothing leaves the machine.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from icml25.common.llm import completion_body


@dataclass
class StubResponse:
    """A scripted HTTP answer: ``text`` as a completion, or ``body`` sent verbatim."""

    status: int = 200
    text: str | None = None
    body: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class StubServer:
    """An OpenAI-schema chat-completions server in a thread; a context manager."""

    def __init__(
        self,
        responder: Callable[[dict], str | StubResponse],
        models: list[str | dict] | None = None,
    ) -> None:
        if not callable(responder):
            raise TypeError(f"responder must be callable (body) -> str, got {responder!r}")
        self.responder, self.models = responder, models
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL to give a client: ``http://127.0.0.1:<port>/v1``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, body: dict, headers: dict[str, str]) -> StubResponse:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
        answer = self.responder(body)
        return StubResponse(text=answer) if isinstance(answer, str) else answer

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.rstrip("/") != "/v1/models" or stub.models is None:
                    self._send(StubResponse(status=404, body='{"error": "no such route"}'))
                    return
                listed = [m if isinstance(m, dict) else {"id": m} for m in stub.models]
                self._send(StubResponse(body=json.dumps({"object": "list", "data": listed})))

            def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(StubResponse(status=404, body='{"error": "no such route"}'))
                    return
                length = int(self.headers.get("content-length", 0))
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:
                    self._send(StubResponse(status=400, body='{"error": "malformed request"}'))
                    return
                headers = {k.lower(): v for k, v in self.headers.items()}
                words = sum(
                    len(str(m.get("content", "")).split()) for m in body.get("messages", [])
                )
                self._send(stub._answer(body, headers), body.get("model", "stub"), words)

            def _send(self, answer: StubResponse, model: str = "stub", words: int = 0) -> None:
                time.sleep(answer.delay)
                if answer.body is not None:
                    data = answer.body
                else:
                    text = answer.text or ""
                    data = json.dumps(completion_body(text, words, len(text.split()), model))
                payload = data.encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:  # the client gave up (a timeout test): nothing to answer
                    pass

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

        return Handler
