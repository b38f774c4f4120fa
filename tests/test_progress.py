"""A cell's progress (``icml25.common.progress``), the run's display (``icml25.lab.progress``),
and what the runner and the CLI tell a user about the time a run takes."""

import json
import sys
import types

import pytest
from click.testing import CliRunner

from icml25.common import progress as cell_progress
from icml25.common.progress import read_progress, report_progress, reporting_to
from icml25.lab import runner, store
from icml25.lab.cli import cli
from icml25.lab.progress import LINE_EVERY_S, RunProgress, duration, estimate_left
from icml25.lab.reproduction import code_fingerprint, summary_fingerprint

# ---------------------------------------------------------------- the cell's side


def test_report_progress_outside_a_run_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report_progress(3, 10)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("done, total", [(-1, 5), (6, 5), (0, 0), (1.5, 5), (1, "5")])
def test_report_progress_refuses_counts_out_of_order(done, total):
    with pytest.raises(ValueError, match="0 <= done <= total"):
        report_progress(done, total)


def test_a_reporting_cell_writes_at_most_every_interval_and_cleans_up(tmp_path, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(cell_progress.time, "monotonic", lambda: now[0])
    path = tmp_path / "cell.progress"
    with reporting_to(path):
        report_progress(1, 40, "epochs")
        assert read_progress(path) == (1, 40, "epochs")
        now[0] += cell_progress.INTERVAL_S / 2
        report_progress(2, 40, "epochs")  # too soon: not written
        assert read_progress(path) == (1, 40, "epochs")
        now[0] += cell_progress.INTERVAL_S
        report_progress(3, 40, "epochs")
        assert read_progress(path) == (3, 40, "epochs")
    assert not path.exists()
    assert read_progress(path) is None


def test_a_progress_file_that_cannot_be_written_does_not_fail_the_cell(tmp_path):
    with reporting_to(tmp_path / "no such folder" / "cell.progress"):
        report_progress(1, 2)


# ---------------------------------------------------------------- the code fingerprint


def _tree(root, body):
    files = {
        "paper/__init__.py": "",
        "paper/train.py": (
            "import numpy as np\n"
            "from icml25.common.progress import report_progress\n"
            f"def fit(steps):\n    x = 0\n    for t in range(steps):\n        x += t\n{body}"
            "    return x\n"
        ),
        "paper/reproduce.py": (
            "from icml25.paper.train import fit\n"
            "from icml25.common import progress\n"
            "SCALES = {}\n"
            "def cells(config):\n    return [{}]\n"
            "def run_cell(config, cell, seed):\n    return {'x': fit(3)}\n"
        ),
        "paper/summary.py": "def summarize(config, results):\n    return {}\n",
        "common/progress.py": "def report_progress(done, total, what='steps'):\n    pass\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _fingerprints(root, body):
    _tree(root, body)
    return code_fingerprint("paper", root), summary_fingerprint("paper", root)


@pytest.mark.parametrize(
    "body",
    [
        "        report_progress(t + 1, steps)\n",
        "        report_progress(t + 1, steps, what='epochs')\n",
        "    else:\n        report_progress(steps, steps)\n",
    ],
)
def test_reporting_progress_leaves_the_code_fingerprint(tmp_path, body):
    assert _fingerprints(tmp_path / "a", body) == _fingerprints(tmp_path / "b", "")


@pytest.mark.parametrize(
    "body",
    [
        "        done = report_progress(t + 1, steps)\n",  # an assignment could compute
        "        x += 1\n",
        "        report(t + 1, steps)\n",  # another function
    ],
)
def test_other_statements_change_the_code_fingerprint(tmp_path, body):
    assert _fingerprints(tmp_path / "a", body)[0] != _fingerprints(tmp_path / "b", "")[0]


def test_editing_the_progress_module_changes_no_fingerprint(tmp_path):
    before = _fingerprints(tmp_path, "")
    path = tmp_path / "common" / "progress.py"
    path.write_text(path.read_text() + "INTERVAL_S = 5.0\n")
    assert (code_fingerprint("paper", tmp_path), summary_fingerprint("paper", tmp_path)) == before


# ---------------------------------------------------------------- the estimate


def test_estimate_left_scales_the_committed_times_by_this_run():
    # a: 4 cells left at 10 s committed; this run's a cells took twice their committed time
    left = estimate_left({"a": 4, "b": 0}, {"a": 10.0, "b": 1.0}, {"a": [20.0, 20.0]}, 2)
    assert left == pytest.approx(4 * 10.0 * 2 / 2)


def test_estimate_left_without_a_committed_run_uses_the_cells_done():
    # b has no committed time: its own mean (30 s); c has neither: the mean of all done cells
    finished = {"b": [30.0], "c": [], "a": [10.0]}
    left = estimate_left({"b": 2, "c": 1}, {"a": None, "b": None, "c": None}, finished, 1)
    assert left == pytest.approx(2 * 30.0 + 1 * 20.0)
    assert estimate_left({"c": 1}, {"c": None}, {"c": []}, 1) is None


def test_duration_reads_like_a_wait():
    assert [duration(s) for s in (40, 720, 5400)] == ["40 s", "12 min", "1.5 h"]


# ---------------------------------------------------------------- the display


def test_off_a_terminal_a_line_at_most_every_30_seconds(tmp_path):
    now = [0.0]
    lines = []
    display = RunProgress(
        {"a": 5}, {"a": 10.0}, 1, files={}, bar=False, write=lines.append, clock=lambda: now[0]
    )
    try:
        for index in range(5):
            now[0] += LINE_EVERY_S / 2
            display.cell_done("a", index, 10.0)
    finally:
        display.close()
    assert len(lines) == 2  # at 30 s and 60 s; none in the first 30 s
    assert lines[0] == "2 of 5 cells done, 30 s elapsed: a 2/5, about 30 s left"


def test_the_latest_progress_of_a_running_cell_shows(tmp_path):
    path = tmp_path / "cell.progress"
    path.write_text(json.dumps({"done": 120, "total": 400, "what": "steps"}))
    lines = []
    display = RunProgress(
        {"a": 2}, {"a": None}, 1, files={("a", 1): path}, bar=False, write=lines.append
    )
    try:
        display._poll_once()
        assert "a cell 1: 120/400 steps" in display.status()
        display.cell_done("a", 1, 3.0)
        assert "cell 1" not in display.status()  # a finished cell's progress is gone
    finally:
        display.close()


# ---------------------------------------------------------------- the runner and the CLI


def test_a_run_tells_its_plan_and_leaves_no_progress_files(tmp_path, monkeypatch):
    def run_cell(config, cell, seed):
        for step in range(3):
            report_progress(step + 1, 3)
        return {"value": float(cell["i"])}

    fake = types.ModuleType("icml25.fakepaper.reproduce")
    fake.run_cell = run_cell
    monkeypatch.setitem(sys.modules, "icml25.fakepaper.reproduce", fake)
    code = runner._worker_fingerprint("fakepaper")
    progress_file = tmp_path / "cell.progress"
    _, _, record = runner._execute(
        "fakepaper", 0, None, {"i": 1}, 0, code, None, progress_file, None
    )
    assert record["status"] == "ok"
    assert not progress_file.exists()

    messages = []
    runner.run(["ipd_pavlov"], scale="smoke", out=tmp_path, jobs=1, on_message=messages.append)
    assert messages == []  # no committed smoke run to time it by, and shorter than 30 s
    assert not list(tmp_path.rglob("*.progress"))
    monkeypatch.setattr(runner, "expected_cell_seconds", lambda slug, scale, model: 20.0)
    runner.run(
        ["ipd_pavlov"], scale="smoke", out=tmp_path, jobs=1, force=True, on_message=messages.append
    )
    assert messages == [
        "9 cells of 1 paper to compute: about 3 min of cell time by the committed runs, "
        "3 min on 1 worker"
    ]


def test_the_plan_counts_the_committed_cell_time():
    line = runner._plan_line({"a": 10, "b": 3}, {"a": 60.0, "b": None}, 2)
    assert line == (
        "13 cells of 2 papers to compute: about 10 min of cell time by the committed runs, "
        "5 min on 2 workers (1 without a committed run not counted)"
    )


def test_list_shows_each_papers_committed_default_time():
    cells, seconds = store.committed_cell_time("hiref")
    result = CliRunner().invoke(cli, ["list"])
    assert result.exit_code == 0
    row = next(line for line in result.output.splitlines() if line.startswith("hiref "))
    assert duration(seconds) in row
    data = json.loads(CliRunner().invoke(cli, ["list", "--json"]).output)
    hiref = next(p for p in data if p["slug"] == "hiref")
    assert hiref["default_run"] == {"cells": cells, "cell_seconds": round(seconds, 1)}
    assert next(p for p in data if p["status"] != "implemented")["default_run"] is None
