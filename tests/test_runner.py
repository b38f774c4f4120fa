import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import types
import warnings
from pathlib import Path

import pytest

import icml25.ipd_pavlov.reproduce as ipd
from icml25.lab import runner, store
from icml25.lab.claims import INCOMPLETE
from icml25.lab.reproduction import cell_seed, code_fingerprint, config_fingerprint

SLUG = "ipd_pavlov"


def cell_files(out: Path, scale: str = "smoke", seed: int = 0) -> list[Path]:
    return sorted((out / SLUG / scale / f"seed-{seed}" / "cells").glob("*.json"))


def test_cell_seed_depends_on_master_seed_paper_and_cell_only():
    cell = {"alpha": 0.1, "epsilon": 0.0}
    assert cell_seed(0, SLUG, cell) == cell_seed(0, SLUG, dict(reversed(cell.items())))
    assert cell_seed(0, SLUG, cell) != cell_seed(1, SLUG, cell)
    assert cell_seed(0, SLUG, cell) != cell_seed(0, "hiref", cell)
    assert cell_seed(0, SLUG, cell) != cell_seed(0, SLUG, {**cell, "epsilon": 0.01})
    assert 0 <= cell_seed(123, SLUG, cell) < 2**63


def test_config_fingerprint_tells_configs_apart():
    smoke, default = ipd.SCALES["smoke"], ipd.SCALES["default"]
    assert config_fingerprint(smoke) == config_fingerprint(ipd.Config(**smoke.__dict__))
    assert config_fingerprint(smoke) != config_fingerprint(default)


def test_rerun_reuses_finished_cells_and_force_recomputes(tmp_path):
    first = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    stamps = {p: p.stat().st_mtime_ns for p in cell_files(tmp_path)}
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert again["cells"]["cached"] == again["cells"]["total"] == first["cells"]["total"]
    assert again["measurements"] == first["measurements"]
    assert {p: p.stat().st_mtime_ns for p in cell_files(tmp_path)} == stamps
    forced = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, force=True)[SLUG]
    assert forced["cells"]["cached"] == 0
    assert forced["measurements"] == first["measurements"]


def test_another_seed_does_not_reuse_cells(tmp_path):
    runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, seed=0)
    other = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, seed=1)[SLUG]
    assert other["cells"]["cached"] == 0


@pytest.mark.parametrize("fingerprint", ["code_fingerprint", "dependency_fingerprint"])
def test_edited_code_or_upgraded_libraries_do_not_reuse_cells(tmp_path, monkeypatch, fingerprint):
    runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)
    monkeypatch.setattr(runner, fingerprint, lambda slug: "edited")
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert again["cells"]["cached"] == 0


def test_code_fingerprint_is_stable_and_per_paper():
    assert code_fingerprint(SLUG) == code_fingerprint(SLUG)
    assert code_fingerprint(SLUG) != code_fingerprint("maxmin_eig")


def _paper(root):
    """A one-paper tree: the map side imports a model and a common module, the reduce side a
    plotting helper, claims.py an unused common module."""
    files = {
        "paper/__init__.py": "",
        "paper/claims.py": "from icml25.common import unused\n",
        "paper/model.py": "from icml25.common.net import Net\n",
        "paper/reproduce.py": (
            "from icml25.paper.model import Net\n"
            "import numpy as np\n"
            "SCALES = {}\n"
            "def shared(x):\n    return x + 1\n"
            "def cells(config):\n    return [{}]\n"
            "def run_cell(config, cell, seed):\n    return {'y': shared(Net)}\n"
        ),
        "paper/summary.py": (
            "from icml25.paper.reproduce import shared\n"
            "from icml25.common.plot import axes\n"
            "def _figure(y):\n    return axes(y)\n"
            "def summarize(config, results):\n    return shared(_figure(results))\n"
        ),
        "common/net.py": "import icml25.common.checks\nNet = 1\n",
        "common/plot.py": "def axes(y):\n    return y\n",
    }
    for name in ("checks", "unused", "other"):
        files[f"common/{name}.py"] = "x = 1\n"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _edit(path, old, new):
    path.write_text(path.read_text().replace(old, new))


@pytest.mark.parametrize(
    "file, old, new, cells, summary",
    [
        ("paper/summary.py", "return axes(y)", "return axes(-y)", False, True),
        ("common/plot.py", "return y", "return 2 * y", False, True),
        ("paper/reproduce.py", "return x + 1", "return x + 2", True, True),  # both use it
        ("paper/reproduce.py", "[{}]", "[{}, {}]", True, False),
        ("paper/model.py", "Net\n", "Net as Net\n", True, False),
        ("common/checks.py", "x = 1", "x = 2", True, False),
        ("paper/claims.py", "unused", "other", False, False),
        ("common/unused.py", "x = 1", "x = 2", False, False),
    ],
)
def test_each_fingerprint_covers_its_side_and_what_it_imports(
    tmp_path, file, old, new, cells, summary
):
    from icml25.lab.reproduction import summary_fingerprint

    _paper(tmp_path)
    before = code_fingerprint("paper", tmp_path), summary_fingerprint("paper", tmp_path)
    _edit(tmp_path / file, old, new)
    after = code_fingerprint("paper", tmp_path), summary_fingerprint("paper", tmp_path)
    assert (before[0] != after[0], before[1] != after[1]) == (cells, summary)


def test_a_definition_moved_unchanged_between_the_sides_changes_no_fingerprint(tmp_path):
    from icml25.lab.reproduction import summary_fingerprint

    _paper(tmp_path)
    before = code_fingerprint("paper", tmp_path), summary_fingerprint("paper", tmp_path)
    summary = tmp_path / "paper" / "summary.py"
    _edit(summary, "def _figure(y):\n    return axes(y)\n", "")
    _edit(summary, "import shared\n", "import _figure, shared\n")
    _edit(
        tmp_path / "paper" / "reproduce.py",
        "SCALES = {}\n",
        "SCALES = {}\nfrom icml25.common.plot import axes\ndef _figure(y):\n    return axes(y)\n",
    )
    after = code_fingerprint("paper", tmp_path), summary_fingerprint("paper", tmp_path)
    assert after == before


def test_code_fingerprint_ignores_docstrings_and_comments():
    from icml25.lab.reproduction import _code_without_docstrings

    plain = "def f(x):\n    return x + 1\n"
    documented = 'def f(x):\n    """Add one."""\n    return x + 1  # the step\n'
    assert _code_without_docstrings(plain) == _code_without_docstrings(documented)
    assert _code_without_docstrings(plain) != _code_without_docstrings(plain.replace("1", "2"))


def test_a_failing_cell_is_recorded_the_others_go_on_and_no_claim_is_judged(tmp_path, monkeypatch):
    real = ipd.run_cell

    def flaky(config, cell, seed):
        if cell["setting"] == ipd.Q0_HALVED and cell["epsilon"] == 0:
            raise RuntimeError("boom in this cell")
        return real(config, cell, seed)

    monkeypatch.setattr(ipd, "run_cell", flaky)
    summary = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    total = summary["cells"]["total"]
    assert summary["cells"]["failed"] == 1
    assert summary["cells"]["ok"] == total - 1
    assert summary["failures"][0]["reason"] == "RuntimeError: boom in this cell"
    assert "boom in this cell" in summary["failures"][0]["traceback"]
    assert len(cell_files(tmp_path)) == total  # the failure is on disk too
    # part of the evidence must not judge any claim
    assert not summary["complete"]
    assert [c["verdict"] for c in summary["claims"]] == [INCOMPLETE] * len(summary["claims"])
    assert all(c["measured"] is None for c in summary["claims"])
    assert summary["counts"]["incomplete"] == summary["counts"]["claims"]
    assert summary["counts"]["reproduced"] == 0

    monkeypatch.setattr(ipd, "run_cell", real)
    healed = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert healed["complete"]
    assert healed["cells"] == {
        "total": total,
        "ok": total,
        "failed": 0,
        "computed": 1,
        "cached": total - 1,
    }
    assert healed["counts"]["incomplete"] == 0
    assert INCOMPLETE not in [c["verdict"] for c in healed["claims"]]


def test_cell_warnings_are_recorded_in_the_summary(tmp_path, monkeypatch):
    real = ipd.run_cell

    def warns(config, cell, seed):
        warnings.warn("solver was inaccurate", RuntimeWarning, stacklevel=1)
        return real(config, cell, seed)

    monkeypatch.setattr(ipd, "run_cell", warns)
    summary = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    total = summary["cells"]["total"]
    assert summary["warnings"] == {"RuntimeWarning: solver was inaccurate": total}


def test_an_interrupted_run_keeps_its_finished_cells(tmp_path, monkeypatch):
    real, calls = ipd.run_cell, []

    def dies_on_third(config, cell, seed):
        calls.append(cell)
        if len(calls) == 3:
            raise KeyboardInterrupt  # not an Exception: it stops the whole run, like Ctrl-C
        return real(config, cell, seed)

    monkeypatch.setattr(ipd, "run_cell", dies_on_third)
    with pytest.raises(KeyboardInterrupt):
        runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)
    assert len(cell_files(tmp_path)) == 2
    monkeypatch.setattr(ipd, "run_cell", real)
    resumed = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert resumed["cells"]["cached"] == 2
    clean = runner.run([SLUG], scale="smoke", out=tmp_path / "clean", jobs=1)[SLUG]
    assert resumed["measurements"] == clean["measurements"]


def test_a_killed_process_loses_no_finished_cell(tmp_path):
    command = [
        sys.executable,
        "-m",
        "icml25.lab.cli",
        "run",
        SLUG,
        "--scale",
        "smoke",
        "--jobs",
        "1",
        "--out",
        str(tmp_path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(cell_files(tmp_path, "smoke")) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    kept = len(cell_files(tmp_path, "smoke"))
    assert kept >= 3
    assert not list((tmp_path / SLUG / "smoke" / "seed-0" / "cells").glob(".*.tmp"))
    resumed = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert resumed["cells"]["cached"] == kept
    assert resumed["cells"]["ok"] == resumed["cells"]["total"]


def test_dask_backend_gives_the_loky_numbers(tmp_path):
    pytest.importorskip("dask.distributed")
    loky = runner.run([SLUG], scale="smoke", out=tmp_path / "loky", jobs=2)[SLUG]
    dask = runner.run([SLUG], scale="smoke", out=tmp_path / "dask", jobs=2, backend="dask")[SLUG]
    assert dask["measurements"] == loky["measurements"]
    assert dask["claims"] == loky["claims"]


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"slugs": ["nope"]}, "nope"),
        ({"slugs": ["rad_ai"]}, "no reproduction"),
        ({"slugs": "ipd_pavlov"}, "slugs"),
        ({"scale": "huge"}, "scale"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"jobs": 0}, "jobs"),
        ({"backend": "spark"}, "backend"),
    ],
)
def test_bad_arguments_name_themselves(tmp_path, kwargs, word):
    kwargs = {"slugs": [SLUG], **kwargs}
    with pytest.raises(ValueError, match=word):
        runner.run(kwargs.pop("slugs"), out=tmp_path, **kwargs)


def test_cell_threads_limit_a_cell_and_are_restored(monkeypatch):

    import torch
    from threadpoolctl import threadpool_info

    def run_cell(config, cell, seed):
        blas = [pool["num_threads"] for pool in threadpool_info()]
        return {"torch": torch.get_num_threads(), "blas": max(blas, default=1)}

    fake = types.ModuleType("icml25.fakepaper.reproduce")
    fake.run_cell, fake.CELL_THREADS = run_cell, 1
    monkeypatch.setitem(sys.modules, "icml25.fakepaper.reproduce", fake)
    torch.set_num_threads(2)
    try:
        code = runner._worker_fingerprint("fakepaper")
        _, _, record = runner._execute("fakepaper", 0, None, {}, 0, code, None, None, None)
        assert record["status"] == "ok", record
        assert record["output"] == {"torch": 1, "blas": 1}
        assert torch.get_num_threads() == 2  # restored after the cell
    finally:
        torch.set_num_threads(1)


def _hanging_paper(monkeypatch, timeout=None):
    def run_cell(config, cell, seed):
        if cell.get("hang"):
            while True:  # Python that never returns
                time.sleep(0.01)
        return {"value": 1.0}

    fake = types.ModuleType("icml25.fakepaper.reproduce")
    fake.run_cell = run_cell
    if timeout is not None:
        fake.CELL_TIMEOUT_S = timeout
    monkeypatch.setitem(sys.modules, "icml25.fakepaper.reproduce", fake)
    return runner._worker_fingerprint("fakepaper")


@pytest.mark.parametrize("in_thread", [False, True])
def test_a_cell_that_hangs_fails_at_its_time_limit(monkeypatch, in_thread):
    """In the main thread (SIGALRM) and in a worker thread (dask, ray: an asynchronous
    exception), a hanging cell becomes a failed record with the reason; a quick one is kept."""
    code = _hanging_paper(monkeypatch)
    outcome = {}

    def call():
        begin = time.perf_counter()
        outcome["hang"] = runner._execute(
            "fakepaper", 0, None, {"hang": 1}, 0, code, 0.3, None, None
        )
        outcome["seconds"] = time.perf_counter() - begin
        outcome["quick"] = runner._execute("fakepaper", 1, None, {}, 0, code, 0.3, None, None)

    if in_thread:
        worker = threading.Thread(target=call)
        worker.start()
        worker.join(30)
    else:
        call()
    record = outcome["hang"][2]
    assert record["status"] == "failed"
    assert record["reason"] == "CellTimeout: the cell passed its 0.3 s time limit"
    assert outcome["seconds"] < 10
    assert outcome["quick"][2]["status"] == "ok"


def test_a_module_time_limit_applies_without_the_runners(monkeypatch):
    code = _hanging_paper(monkeypatch, timeout=0.2)
    _, _, record = runner._execute("fakepaper", 0, None, {"hang": 1}, 0, code, None, None, None)
    assert record["reason"] == "CellTimeout: the cell passed its 0.2 s time limit"


def test_the_cell_time_limit_is_checked():
    with pytest.raises(ValueError, match="cell_timeout_s"):
        runner.run([SLUG], scale="smoke", cell_timeout_s=0)


def test_a_worker_with_other_code_refuses_the_cell():
    _, _, record = runner._execute(
        SLUG, 0, ipd.SCALES["smoke"], {}, 0, "0ld1nstall000", None, None, None
    )
    assert record["status"] == "failed"
    assert "install the same icml25 on every worker" in record["reason"]


def test_seeds_live_side_by_side(tmp_path):
    zero = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, seed=0)[SLUG]
    one = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, seed=1)[SLUG]
    assert (zero["seed"], one["seed"]) == (0, 1)
    assert len(cell_files(tmp_path, seed=0)) == len(cell_files(tmp_path, seed=1)) > 0
    for seed in (0, 1):
        assert (tmp_path / SLUG / "smoke" / f"seed-{seed}" / "summary.json").is_file()


def test_dependency_versions_name_what_the_paper_imports():
    from icml25.lab.reproduction import dependency_versions

    assert {"python", "numpy", "torch", "pot"} <= set(dependency_versions("hiref"))
    assert "cvxpy" in dependency_versions("maxmin_eig")
    assert "cvxpy" not in dependency_versions("hiref")


def test_a_corrupt_cell_file_is_named_and_recomputed(tmp_path):
    first = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    files = cell_files(tmp_path)
    files[0].write_text(files[0].read_text()[:25])  # truncated JSON
    npz = next(p.with_suffix(".npz") for p in files[1:] if p.with_suffix(".npz").exists())
    npz.write_bytes(b"PK\x03\x04 not a zip any more")
    told = []
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, on_message=told.append)[SLUG]
    assert again["cells"]["computed"] == 2 and again["complete"]
    assert any(str(files[0]) in line for line in told)
    assert any(str(npz.with_suffix(".json")) in line for line in told)
    assert again["measurements"] == first["measurements"]


def test_summary_records_provenance_and_split_timing(tmp_path):
    summary = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, command="icml25 test")[SLUG]
    prov = summary["provenance"]
    assert prov["command"] == "icml25 test" and prov["backend"] == "loky"
    assert prov["cores"] == os.cpu_count()
    assert prov["cpu"] is None or isinstance(prov["cpu"], str)  # the processor, where known
    assert {"python", "icml25", "numpy", "scipy", "torch", "POT", "joblib"} <= set(prov["versions"])
    assert prov["versions"]["icml25"]  # from the installed metadata
    assert prov["code_fingerprint"] == code_fingerprint(SLUG)
    assert len(prov["commit"] or "x" * 40) == 40 and prov["dirty"] in (True, False, None)
    timing = summary["timing"]
    assert timing["computed_cell_seconds"] > 0 and timing["cached_cell_seconds"] == 0
    cached = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]["timing"]
    assert cached["computed_cell_seconds"] == 0
    assert cached["cached_cell_seconds"] == pytest.approx(timing["computed_cell_seconds"])
    assert cached["wall_seconds"] < timing["wall_seconds"]


def test_each_paper_is_reported_as_soon_as_it_finishes(tmp_path):
    seen = []
    runner.run(
        [SLUG, "maxmin_eig"],
        scale="smoke",
        out=tmp_path,
        jobs=1,
        on_paper=lambda s: seen.append((s["slug"], time.monotonic())),
    )
    assert [slug for slug, _ in seen] == [SLUG, "maxmin_eig"]


def test_a_second_run_on_the_same_folder_waits_and_computes_nothing_twice(tmp_path):

    finished = runner.run([SLUG], scale="smoke", out=tmp_path / "a", jobs=1)[SLUG]
    folder = store.run_dir(tmp_path / "b", SLUG, "smoke", 0)
    command = [sys.executable, "-m", "icml25", "run", SLUG, "--scale", "smoke", "--jobs", "1"]
    command += ["--out", str(tmp_path / "b")]
    with store.locked(folder):  # another run is writing this folder
        second = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        line = second.stderr.readline()
        assert "waiting for" in line and str(folder) in line
        shutil.copytree(store.run_dir(tmp_path / "a", SLUG, "smoke", 0) / "cells", folder / "cells")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    total = finished["cells"]["total"]
    assert f"{total}/{total} cells ({total} cached, 0 failed)" in out


def test_a_cell_whose_worker_died_is_a_failed_cell_with_the_reason(tmp_path, monkeypatch):
    from icml25.lab import backends

    real = backends.execute

    def one_dies(fn, tasks, **kwargs):
        for k, result, reason in real(fn, tasks, **kwargs):
            if k == 2:
                yield k, None, "the worker running this cell died twice (SIGKILL)"
            else:
                yield k, result, reason

    monkeypatch.setattr(backends, "execute", one_dies)
    summary = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert summary["cells"]["failed"] == 1 and not summary["complete"]
    assert summary["failures"][0]["reason"] == "the worker running this cell died twice (SIGKILL)"
    assert {c["verdict"] for c in summary["claims"]} == {INCOMPLETE}
    monkeypatch.setattr(backends, "execute", real)
    retried = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert retried["complete"] and retried["cells"]["computed"] == 1


def test_a_model_run_sums_its_calls_tokens_and_cost_and_names_the_model(tmp_path, monkeypatch):
    """The endpoint reaches the papers that take one (and their fingerprint: no offline cell is
    reused); the summary sums the cells' usage; the key is nowhere."""
    import json
    from dataclasses import replace

    import icml25.embodiedbench.reproduce as eb
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-never-written")
    monkeypatch.setitem(eb.SCALES, "smoke", replace(eb.SCALES["smoke"], tasks_per_batch=1))
    offline = runner.run(["embodiedbench"], scale="smoke", out=tmp_path, jobs=1)["embodiedbench"]
    assert offline["llm_usage"] is None
    plan = '{"executable_plan": [{"action_id": 0, "action_name": "forward"}]}'
    with StubServer(lambda body: plan) as server:
        endpoint = Endpoint(server.url, "stub-vlm", price_in_per_mtok=1.0, price_out_per_mtok=2.0)
        summary = runner.run(["embodiedbench"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint)[
            "embodiedbench"
        ]
    usage = summary["llm_usage"]
    assert summary["cells"]["cached"] == 0  # the endpoint is in the config: nothing reused
    assert usage["calls"] == len(server.requests) + usage["cached_calls"] > 0
    assert usage["model"] == "stub-vlm" and usage["cost_usd"] == pytest.approx(
        (usage["prompt_tokens"] * 1.0 + usage["completion_tokens"] * 2.0) / 1e6
    )
    assert all(h["authorization"] == "Bearer sk-secret-never-written" for h in server.headers)
    written = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    assert "sk-secret-never-written" not in written + json.dumps(summary)


# ---------------------------------------------------------------- the reduce side


def test_a_summary_only_edit_reduces_the_cached_cells_again(tmp_path, monkeypatch):
    import icml25.ipd_pavlov.summary as reduce

    first = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    real = reduce.summarize

    def edited(config, results):
        result = real(config, results)
        result.measurements["extra"] = 1.0
        return result

    monkeypatch.setattr(reduce, "summarize", edited)
    monkeypatch.setattr(runner, "summary_fingerprint", lambda slug: "edited")
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert again["cells"]["cached"] == again["cells"]["total"] and again["cells"]["computed"] == 0
    assert again["measurements"] == {**first["measurements"], "extra": 1.0}
    assert again["provenance"]["summary_fingerprint"] == "edited"
    assert again["provenance"]["code_fingerprint"] == first["provenance"]["code_fingerprint"]


def test_a_figure_that_fails_is_a_warning_and_the_verdicts_stand(tmp_path, monkeypatch):
    import icml25.ipd_pavlov.summary as reduce

    first = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    real = reduce.summarize

    def broken_figure(config, results):
        result = real(config, results)

        def fails():
            raise RuntimeError("no axes today")

        result.figures = {"broken": fails, **result.figures}
        return result

    monkeypatch.setattr(reduce, "summarize", broken_figure)
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    assert again["figure_errors"] == [{"name": "broken", "error": "RuntimeError: no axes today"}]
    assert again["claims"] == first["claims"] and again["complete"]
    assert len(again["figures"]) == len(first["figures"])


def test_rejudge_applies_new_claims_to_stored_measurements(tmp_path):
    import dataclasses

    from icml25.lab.reproduction import load_claims

    summary = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    claims = load_claims(SLUG)
    flipped = (dataclasses.replace(claims[0], threshold=2.0), *claims[1:])  # a share never >= 2
    again = runner.rejudge(summary, flipped)
    assert again["claims"][0]["verdict"] == "not reproduced"
    assert again["claims"][1:] == summary["claims"][1:]
    assert again["measurements"] == summary["measurements"]
    assert again["counts"]["reproduced"] == summary["counts"]["reproduced"] - (
        summary["claims"][0]["verdict"] == "reproduced"
    )
    assert "judged" in again["provenance"]


def test_the_map_side_never_imports_the_reduce_side():
    import ast

    from icml25.lab import catalog
    from icml25.lab.reproduction import claims_path

    for slug in catalog.implemented():
        path = claims_path(slug).with_name("reproduce.py")
        names = {
            n.module if isinstance(n, ast.ImportFrom) else a.name
            for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, ast.Import | ast.ImportFrom)
            for a in n.names
        }
        assert f"icml25.{slug}.summary" not in names and "summary" not in names, slug


def test_failed_model_cells_leave_the_offline_claims_their_verdicts(tmp_path, monkeypatch):
    """disco's (a) and (b) need no model: a model that refuses every request (the same HTTP
    500 twice, as llama.cpp answers images sent to a text-only model) fails its one model cell,
    and the claims the other cells measure are judged as in the offline run."""
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubResponse, StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    refusal = StubResponse(status=500, body='{"error": "image input is not supported"}')
    offline = runner.run(["disco"], scale="smoke", out=tmp_path / "offline", jobs=1)["disco"]
    with StubServer(lambda body: refusal) as server:
        endpoint = Endpoint(server.url, "text-only")
        summary = runner.run(["disco"], scale="smoke", out=tmp_path / "model", jobs=1, llm=endpoint)
    summary = summary["disco"]
    assert not summary["complete"] and summary["cells"]["failed"] == 1
    assert summary["failures"][0]["cell"] == {"part": "null_probe", "input": "image"}
    assert "image input is not supported" in summary["failures"][0]["reason"]
    judged = {c["id"]: (c["verdict"], c["measured"]) for c in summary["claims"]}
    for claim in offline["claims"]:
        if claim["verdict"] is not None:
            assert judged[claim["id"]] == (claim["verdict"], claim["measured"])
    assert summary["counts"]["reproduced"] == offline["counts"]["reproduced"] > 0


def test_a_failed_offline_cell_still_leaves_every_claim_incomplete_with_a_model(
    tmp_path, monkeypatch
):
    import icml25.disco.reproduce as disco
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    real = disco.run_cell

    def broken(config, cell, seed):
        if cell["part"] != "null_probe":
            raise RuntimeError("an offline cell broke")
        return real(config, cell, seed)

    monkeypatch.setattr(disco, "run_cell", broken)
    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    with StubServer(lambda body: '{"movie_name": "Frozen"}') as server:
        summary = runner.run(
            ["disco"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "m")
        )["disco"]
    judged = [c["verdict"] for c in summary["claims"] if c["kind"] != "diagnostic"]
    assert judged and set(judged) == {INCOMPLETE}


def test_a_paper_that_sends_images_runs_its_text_only_variant_and_says_so(tmp_path, monkeypatch):
    """disco's null probe becomes caption-only for a model that reads text only: no image is
    sent, the run is a model run, and a line says which variant ran."""
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    told = []
    with StubServer(lambda body: '{"movie_name": "Frozen"}') as server:
        endpoint = Endpoint(server.url, "text-model", reads_images=False)
        summary = runner.run(
            ["disco"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint, on_message=told.append
        )["disco"]
    assert server.requests and summary["complete"] and summary["model"] == "text-model"
    assert "image_url" not in json.dumps(server.requests)
    assert "coloured squares" in json.dumps(server.requests)
    assert any("disco sends images" in line and "caption-only" in line for line in told)


def test_a_paper_that_sends_images_and_has_no_variant_runs_without_the_model(tmp_path, monkeypatch):
    import icml25.disco.reproduce as disco
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    monkeypatch.delattr(disco, "TEXT_ONLY_VARIANT")
    told = []
    with StubServer(lambda body: "never asked") as server:
        endpoint = Endpoint(server.url, "text-model", reads_images=False)
        summary = runner.run(
            ["disco"], scale="smoke", out=tmp_path, jobs=1, llm=endpoint, on_message=told.append
        )["disco"]
    assert server.requests == [] and summary["complete"] and summary["model"] is None
    assert summary["config"]["llm"] is None
    assert any("disco sends images to its model" in line for line in told)
    assert any(line.endswith("disco runs without the model") for line in told)


def test_the_measurements_the_model_made_are_named_in_the_summary(tmp_path, monkeypatch):
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    with StubServer(lambda body: '{"movie_name": "Frozen"}') as server:
        summary = runner.run(
            ["disco"], scale="smoke", out=tmp_path, jobs=1, llm=Endpoint(server.url, "m")
        )["disco"]
    offline = runner.run(["disco"], scale="smoke", out=tmp_path / "off", jobs=1)["disco"]
    made = summary["model_measurements"]
    assert made and all(name.startswith("llm_") for name in made)
    assert set(made) == set(summary["measurements"]) - set(offline["measurements"])
    assert offline["model_measurements"] == []


def test_a_model_run_has_its_own_folder_beside_the_offline_run(tmp_path, monkeypatch):
    """The offline summary survives a run against a model in the same runs folder, and a paper
    that does not use the model runs in the offline folder."""
    from icml25.common.llm import Endpoint
    from icml25.common.openai_stub import StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    offline = runner.run(["disco"], scale="smoke", out=tmp_path, jobs=1)["disco"]
    with StubServer(lambda body: '{"movie_name": "Frozen"}') as server:
        endpoint = Endpoint(server.url, "Org/Some Model")
        both = runner.run(["disco", SLUG], scale="smoke", out=tmp_path, jobs=1, llm=endpoint)
    folder = tmp_path / "disco" / "smoke"
    assert sorted(p.name for p in folder.iterdir()) == ["seed-0", "seed-0-org-some-model"]
    kept = store.read_summary(folder / "seed-0" / "summary.json")
    assert kept["provenance"]["finished"] == offline["provenance"]["finished"]
    assert kept["config"]["llm"] is None
    assert both["disco"]["model"] == "org-some-model" and offline["model"] is None
    assert both["disco"]["cells"]["cached"] == 0
    assert both[SLUG]["model"] is None and (tmp_path / SLUG / "smoke" / "seed-0").is_dir()
    found = store.find_summaries(tmp_path, "disco")
    assert [s["model"] for s in found] == [None, "org-some-model"]


def test_a_cell_file_holding_another_cells_record_is_recomputed_and_named(tmp_path):
    """Another cell's JSON copied under this cell's name is not trusted: its cell, seed and key
    are compared with the file's, and the cell is computed again."""
    first = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1)[SLUG]
    files = cell_files(tmp_path)
    victim, other = files[0], files[1]
    shutil.copy(other, victim)
    if other.with_suffix(".npz").exists():
        shutil.copy(other.with_suffix(".npz"), victim.with_suffix(".npz"))
    told = []
    again = runner.run([SLUG], scale="smoke", out=tmp_path, jobs=1, on_message=told.append)[SLUG]
    assert again["cells"]["computed"] == 1
    assert any(str(victim) in line and "another cell" in line for line in told)
    assert again["measurements"] == first["measurements"]


def test_a_cell_that_names_another_under_seed_as_gets_its_seed():
    defence = {"part": "defense", "defense": "quantised", "replicate": 0}
    model = {**defence, "part": "llm", "seed_as": defence}
    assert cell_seed(3, "p", model) == cell_seed(3, "p", defence)
    assert cell_seed(3, "p", {**model, "seed_as": {**defence, "replicate": 1}}) != cell_seed(
        3, "p", defence
    )
