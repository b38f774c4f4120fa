import json
import shutil
import signal
import subprocess
import sys
import time

import pytest

import icml25.ipd_pavlov.reproduce as ipd
from icml25.lab import catalog, store
from icml25.lab.claims import headline
from icml25.lab.cli import main
from icml25.lab.progress import duration
from icml25.lab.reproduction import load_claims

SLUG = "ipd_pavlov"
METRIC = "min_pavlov_share_small_epsilon"


def ipd_claims():
    return load_claims(SLUG)


def smoke_summary(runs):
    return json.loads((runs / SLUG / "smoke" / "seed-0" / "summary.json").read_text())


@pytest.fixture(autouse=True)
def no_committed_results(tmp_path_factory, monkeypatch):
    """The tests see only their own runs, not the results shipped in the package."""
    from icml25.lab import store

    empty = tmp_path_factory.mktemp("no-results")
    monkeypatch.setattr(store, "results_dir", lambda: empty)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    assert main(["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(out)]) == 0
    return out


def test_list_shows_every_card_with_its_status(runs, capsys):
    assert main(["list", "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    for card in catalog.cards():
        row = next(line for line in lines if line.startswith(card.slug + " "))
        committed = store.committed_cell_time(card.slug)
        assert (card.status if committed is None else duration(committed[1])) in row
    row = next(line for line in lines if line.startswith(SLUG + " "))
    counts = smoke_summary(runs)["counts"]
    assert "smoke seed 0 runs" in row and f"{counts['reproduced']}/{counts['claims']} claims" in row
    assert "38 papers" in out
    assert max(len(line) for line in lines) <= 100


def test_show_prints_the_card_claims_and_numbers(runs, capsys):
    assert main(["show", SLUG, "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "claim (a)" in out and "runs: scale smoke, seed 0" in out
    assert "(smoke: not evidence)" in out
    assert catalog.card(SLUG).paper_title in out and catalog.card(SLUG).link in out


def test_show_json_has_the_same_content(runs, capsys):
    assert main(["show", SLUG, "--json", "--runs", str(runs)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "implemented"
    assert [c["id"] for c in data["claims"]] == [c.id for c in ipd_claims()]
    smoke = [r for r in data["runs"] if r["origin"] == "runs"]
    assert [(r["scale"], r["seed"]) for r in smoke] == [("smoke", 0)]
    assert smoke[0]["claims"][0]["verdict"] in {"reproduced", "not reproduced", "inconclusive"}
    assert smoke[0]["provenance"]["versions"]["numpy"]


def test_show_a_paper_without_reproduction(tmp_path, capsys):
    slug = next(c.slug for c in catalog.cards() if c.status != catalog.IMPLEMENTED)
    assert main(["show", slug, "--json", "--runs", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == catalog.card(slug).status
    assert data["claims"] == [] and data["runs"] == []


def test_run_prints_verdicts_and_reuses_cells(runs, capsys):
    assert main(["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs)]) == 0
    out = capsys.readouterr().out
    n = len(ipd.cells(ipd.SCALES["smoke"]))
    assert f"{n}/{n} cells ({n} cached, 0 failed)" in out
    assert headline(smoke_summary(runs)["counts"]) in out
    assert len(out.strip().splitlines()) == 1  # not a terminal: one line per paper


def test_report_writes_the_site(runs, tmp_path, capsys):
    site = tmp_path / "site"
    assert main(["report", "--runs", str(runs), "--out", str(site)]) == 0
    assert (site / "index.html").is_file() and (site / f"{SLUG}.html").is_file()


@pytest.mark.parametrize(
    "argv, word",
    [
        (["run", "nope"], "nope"),
        (["run", "hirf"], "did you mean hiref"),
        (["run", "rad_ai"], "no reproduction"),
        (["run"], "SLUG"),
        (["run", SLUG, "--all"], "not both"),
        (["run", SLUG, "--scale", "huge"], "--scale"),
        (["run", SLUG, "--seed", "-3"], "--seed"),
        (["run", SLUG, "--seed", "x"], "--seed"),
        (["run", SLUG, "--jobs", "0"], "jobs"),
        (["run", SLUG, "--backend", "spark"], "--backend"),
        (["run", SLUG, "--llm-base-url", "http://127.0.0.1:9/v1"], "--llm-model"),
        (["run", SLUG, "--llm-model", "m", "--llm-base-url", "localhost:8000"], "base_url"),
        (["run", SLUG, "--llm-price", "1", "2"], "--llm-price"),
        (["run", SLUG, "--llm-model", "m"], "none of the papers asked for"),
        (["show", "nope"], "nope"),
        (["list", "--runs", "/no/such/folder"], "--runs"),
        (["show", SLUG, "--runs", "/no/such/folder"], "--runs"),
        (["report", "--runs", "/no/such/folder"], "--runs"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(argv, word, capsys, monkeypatch):
    for name in ("OPENAI_BASE_URL", "ICML25_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("icml25: error:")
    assert word in lines[0]


def test_a_failed_cell_exits_1_and_claims_are_incomplete(tmp_path, monkeypatch, capsys):
    def broken(config, cell, seed):
        raise RuntimeError("no memory left")

    monkeypatch.setattr(ipd, "run_cell", broken)
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(tmp_path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "incomplete" in out and "RuntimeError: no memory left" in out


def test_a_model_named_only_in_the_environment_leaves_offline_papers_alone(runs, monkeypatch):
    monkeypatch.setenv("ICML25_LLM_MODEL", "some-model")
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs)]
    assert main(argv) == 0  # not "none of the papers uses a language model"
    assert main([*argv, "--llm-model", "some-model"]) == 2  # asked for on the command line


def test_strict_exits_1_when_a_claim_is_not_reproduced(runs, monkeypatch):
    import dataclasses

    from icml25.lab import reproduction

    real = reproduction.load_claims
    smoke = smoke_summary(runs)
    good = {c["id"] for c in smoke["claims"] if c["verdict"] in ("reproduced", "holds")}

    def only_good(slug):
        return tuple(c for c in real(slug) if c.id in good)

    def impossible(slug):
        first, *rest = only_good(slug)
        # no measured share or rate reaches 1e9
        return (dataclasses.replace(first, comparison=">=", threshold=1e9), *rest)

    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs)]
    assert main(argv) == 0  # not reproduced is not a failure without --strict
    assert main(argv + ["--strict"]) == (0 if len(good) == len(smoke["claims"]) else 1)
    monkeypatch.setattr(reproduction, "load_claims", only_good)
    assert main(argv + ["--strict"]) == 0
    monkeypatch.setattr(reproduction, "load_claims", impossible)
    assert main(argv) == 0
    assert main(argv + ["--strict"]) == 1


def test_run_json_is_parseable(runs, capsys):
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs), "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    [paper] = json.loads(captured.out)
    claims = [c for c in ipd_claims() if c.kind == "claim"]
    assert paper["slug"] == SLUG and paper["complete"] and paper["counts"]["claims"] == len(claims)
    assert SLUG in captured.err  # the per-paper line goes to stderr with --json


def test_list_json(runs, capsys):
    assert main(["list", "--runs", str(runs), "--json"]) == 0
    rows = {row["slug"]: row for row in json.loads(capsys.readouterr().out)}
    assert len(rows) == 38 and rows[SLUG]["evidence"]["scale"] == "smoke"


def test_compare_against_the_committed_result(runs, tmp_path, monkeypatch, capsys):
    from icml25.lab import store

    committed = tmp_path / "results"
    shutil.copytree(runs / SLUG / "smoke", committed / SLUG / "smoke")
    monkeypatch.setattr(store, "results_dir", lambda: committed)
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs), "--compare"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"agree  {METRIC}" in out and "DIFFER" not in out

    path = committed / SLUG / "smoke" / "seed-0" / "summary.json"
    summary = json.loads(path.read_text())
    measured = summary["measurements"][METRIC]
    summary["measurements"][METRIC] = 0.5
    path.write_text(json.dumps(summary))
    assert main(argv) == 1
    assert f"DIFFER  {METRIC}: 0.5 vs {measured!r}" in capsys.readouterr().out
    assert main(["run", "maxmin_eig", "--scale", "smoke", "--compare"]) == 2


def test_a_corrupt_summary_is_named_and_the_rest_is_listed(runs, tmp_path, capsys):
    broken = tmp_path / "runs"
    shutil.copytree(runs, broken)
    bad = broken / SLUG / "smoke" / "seed-0" / "summary.json"
    bad.write_text('{"schema": 2, "slug": "ipd_pa')
    assert main(["list", "--runs", str(broken)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and str(bad) in captured.err
    assert "38 papers" in captured.out
    assert main(["show", SLUG, "--runs", str(broken)]) == 0
    assert str(bad) in capsys.readouterr().err


def test_an_unwritable_out_is_one_line_and_exit_2(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(blocker / "runs")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and str(blocker) in lines[0] and lines[0].startswith("icml25: error:")


def test_python_m_icml25_and_show_without_torch():
    code = (
        "import sys, runpy; sys.argv = ['icml25', 'show', 'hiref'];\n"
        "try:\n    runpy.run_module('icml25', run_name='__main__')\n"
        "except SystemExit as done:\n    assert done.code == 0, done.code\n"
        "assert 'torch' not in sys.modules, 'show imported torch'\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr
    assert "claim (a)" in done.stdout and "check (b)" in done.stdout


@pytest.mark.parametrize(("backend", "module"), [("ray", "ray"), ("dask", "distributed")])
def test_a_backend_that_is_not_installed_is_one_line_and_exit_2(tmp_path, backend, module):
    """As on a machine without the extra: the module cannot be imported."""
    code = (
        f"import sys; sys.modules[{module!r}] = None; sys.argv = ['icml25', 'run', {SLUG!r},"
        f" '--scale', 'smoke', '--backend', {backend!r}, '--out', {str(tmp_path)!r}]\n"
        "from icml25.lab.cli import main\nsys.exit(main())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"icml25: error: backend {backend}: the {backend} backend needs {module}: "
        f"pip install 'icml25[{backend}]'"
    ]
    assert not any(tmp_path.iterdir())


def _sigint_as_in_a_foreground_shell() -> None:
    """In the child before it starts: SIGINT by default, even when these tests run in the
    background (where a shell ignores SIGINT, and the child would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    "jobs, signum, code",
    [("1", signal.SIGINT, 130), ("1", signal.SIGTERM, 143), ("2", signal.SIGTERM, 143)],
)
def test_ctrl_c_or_sigterm_stops_keeps_finished_cells_and_leaves_no_worker(
    tmp_path, jobs, signum, code, alive
):
    command = [sys.executable, "-m", "icml25", "run", SLUG, "--scale", "default", "--jobs", jobs]
    process = subprocess.Popen(
        [*command, "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_sigint_as_in_a_foreground_shell,
    )
    cells = tmp_path / SLUG / "default" / "seed-0" / "cells"
    deadline = time.monotonic() + 60
    while len(list(cells.glob("*.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True)
    workers = [int(pid) for pid in workers.stdout.split()]
    assert len(workers) >= (2 if jobs == "2" else 0)  # the workers (and loky's tracker)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == code, err
    assert b"finished cells are kept on disk" in err and b"Traceback" not in err
    assert len(list(cells.glob("*.json"))) >= 2
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if alive(pid)]  # stopped with it, not orphaned


def test_list_and_show_the_committed_results_after_install(tmp_path, monkeypatch, capsys):
    from icml25.lab import store

    monkeypatch.undo()  # the real results shipped in the package
    committed = store.read_summary(store.summary_path(store.results_dir(), SLUG, "default", 0))
    assert main(["list", "--runs", str(tmp_path)]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(SLUG))
    counts = committed["counts"]
    assert "default seed 0 committed" in row
    assert f"{counts['reproduced']}/{counts['claims']} claims" in row
    assert main(["show", SLUG, "--runs", str(tmp_path)]) == 0
    assert "committed: scale default, seed 0" in capsys.readouterr().out


def _noisy_claims(slug):
    """ipd_pavlov's claims, a claim on the smoke run's one DQN replicate (one replicate: an
    unbounded interval, so inconclusive whatever its value), and a diagnostic."""
    from icml25.lab.claims import Claim

    noisy = Claim(
        "noisy",
        "one replicate says nothing of the spread",
        "mean_pavlov_share_dqn",
        ">=",
        0.5,
        replicates="pavlov_share[dqn,replicate=*]",
    )
    why = Claim("why", "Does the DQN switch?", "switches[dqn,replicate=0]", kind="diagnostic")
    return (*ipd_claims(), noisy, why)


def test_inconclusive_and_diagnostics_are_shown_apart_and_strict_refuses_inconclusive(
    runs, monkeypatch, capsys
):
    from icml25.lab import reproduction

    monkeypatch.setattr(reproduction, "load_claims", _noisy_claims)
    argv = ["run", SLUG, "--scale", "smoke", "--jobs", "1", "--out", str(runs)]
    assert main(argv) == 0
    summary = smoke_summary(runs)
    noisy = next(c for c in summary["claims"] if c["id"] == "noisy")
    assert noisy["verdict"] == "inconclusive" and noisy["interval"]["n"] == [1]
    inconclusive = sum(c["verdict"] == "inconclusive" for c in summary["claims"])
    assert summary["counts"]["inconclusive"] == inconclusive >= 1
    assert summary["counts"]["diagnostics"] == 1
    assert main(argv + ["--strict"]) == 1
    capsys.readouterr()
    assert main(["show", SLUG, "--runs", str(runs)]) == 0
    out = capsys.readouterr().out
    assert f"{inconclusive} inconclusive" in out and "[diagnostic] Does the DQN switch?" in out
    assert "[single run]" in out and "95% student-t, n=1" in out
    assert main(["report", "--runs", str(runs), "--out", str(runs / "site")]) == 0
    page = (runs / "site" / f"{SLUG}.html").read_text()
    assert "shown, not judged" in page and "inconclusive" in page and "single run" in page


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--llm-model", "m", "--llm-price", "nan", "1"], "--llm-price"),
        (["--llm-concurrency", "2"], "--llm-concurrency needs a model"),
        (["--llm-budget", "smoke"], "--llm-budget needs a model"),
        (["--llm-model", "local:/no/such/model.gguf"], "no file at /no/such/model.gguf"),
        (["--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m"], "no model server"),
    ],
)
def test_bad_model_settings_stop_the_run_in_one_line(tmp_path, capsys, extra, message):
    argv = ["run", "political_neutrality", "--scale", "smoke", "--out", str(tmp_path)]
    assert main([*argv, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_an_os_error_without_a_path_is_one_clean_line(tmp_path, capsys, monkeypatch):
    from icml25.lab import runner

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(runner, "run", full)
    assert main(["run", SLUG, "--scale", "smoke", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "icml25: error: No space left on device"


def test_absurd_jobs_are_refused_in_one_line(tmp_path, capsys):
    assert main(["run", SLUG, "--scale", "smoke", "--jobs", "10000", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "jobs must be a non-zero integer from -1024 to 1024" in err[0]


def test_a_model_run_is_shown_beside_the_offline_one_and_compared_with_its_own(
    tmp_path, capsys, monkeypatch
):
    from icml25.common.openai_stub import StubServer

    monkeypatch.setenv("ICML25_CACHE", str(tmp_path / "cache"))
    out = str(tmp_path / "runs")
    assert main(["run", "disco", "--scale", "smoke", "--jobs", "1", "--out", out]) == 0
    with StubServer(lambda body: '{"movie_name": "Frozen"}') as server:
        model = ["--llm-base-url", server.url, "--llm-model", "m"]
        run = ["run", "disco", "--scale", "smoke", "--jobs", "1", "--out", out, *model]
        assert main(run) == 0
        capsys.readouterr()
        assert main([*run, "--compare"]) == 2
        assert "no committed result for disco at scale smoke, seed 0 with model m" in (
            capsys.readouterr().err
        )
    assert main(["show", "disco", "--runs", out]) == 0
    shown = capsys.readouterr().out
    offline_at = shown.index("runs: scale smoke, seed 0,")
    model_at = shown.index("runs: scale smoke, seed 0 with model m at")
    assert offline_at < model_at
    assert "the model's own measurements: llm_" in shown
    assert "(offline" not in shown  # disco's model measurements have no offline value
