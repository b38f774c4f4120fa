"""Each language-model paper's model cells against the real embedded server (llama.cpp with the
shipped SmolLM2-135M), on a budget of a few short requests: the pipelines meet a real model and
a real server, not only the stub. What the model answers is not judged here, only that the
cells run and count their calls."""

from __future__ import annotations

import importlib
from dataclasses import replace

import pytest

from icml25.common.llm import preflight
from icml25.common.local_llm import LocalServer
from icml25.lab.reproduction import cell_key

from .test_local_llm import needs_server

pytestmark = needs_server

# per paper: the smoke config's model budget cut to a few short requests
TINY = {
    "political_neutrality": {"llm_max_tokens": 8, "llm_families": ("voting_facts",)},
    "social_choice": {"llm_instances": 1, "llm_n": 2, "llm_caps": (3,), "llm_levels": (1.0,)},
    "disco": {"probe_frames": 1},
    "skvqa": {"llm_pairs": 1, "llm_max_tokens": 32},
    "embodiedbench": {
        "tasks_per_batch": 1,
        "llm_tasks": 1,
        "llm_max_tokens": 16,
        "llm_max_steps": 1,
    },
    "autoadvexbench": {"plan": (("undefended", ()),), "llm_max_tokens": 16, "llm_max_steps": 1},
    "collabllm": {"llm_levels": (1,), "llm_max_turns": 1, "llm_max_tokens": 16},
}


@pytest.fixture(scope="module")
def endpoint():
    with LocalServer("local", slots=2, threads=LocalServer.default_threads()) as server:
        yield preflight(server.endpoint)


@pytest.mark.parametrize("slug", sorted(TINY))
def test_the_model_cells_run_against_the_real_server(slug, endpoint, tmp_path, monkeypatch):
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))  # every request is real
    module = importlib.import_module(f"icml25.{slug}.reproduce")
    smoke = module.SCALES["smoke"]
    offline = {cell_key(c) for c in module.cells(smoke)}
    config = replace(smoke, llm=endpoint, **TINY[slug])
    cells = [c for c in module.cells(config) if cell_key(c) not in offline]
    assert cells, f"{slug} has no model cells"
    for cell in cells:
        out = module.run_cell(config, cell, 0)
        usage = out["llm_usage"]
        assert usage["calls"] > usage["cached_calls"], cell  # requests the server answered
        assert usage["model"] == "local:smollm2" and usage["completion_tokens"] > 0
