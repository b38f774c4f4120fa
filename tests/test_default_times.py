"""The README's default-times table: rows from a runs folder and earlier commits, totals."""

import json
import subprocess

import pytest

from icml25.lab import default_times
from icml25.lab.papers_table import replace_block


def _summary(cells: int, computed: float, cached: float = 0.0, finished: str = "") -> dict:
    return {
        "cells": {"total": cells},
        "timing": {"computed_cell_seconds": computed, "cached_cell_seconds": cached},
        "provenance": {
            "started": "2026-12-07T10:00:00+00:00",
            "finished": finished or "2026-12-07T10:30:00+00:00",
        },
    }


def test_the_table_gives_each_paper_its_cell_minutes_span_and_budget_and_adds_them_up():
    runs = {
        "hiref": _summary(4, 600.0, 60.0, "2026-12-07T10:12:00+00:00"),
        "defog": _summary(10, 2400.0, 0.0, "2026-12-07T11:00:00+00:00"),
    }
    before = {"abc1234": {"hiref": _summary(8, 1200.0), "defog": None}}
    lines = default_times.table(runs, before).splitlines()
    assert lines[0].startswith("| paper | before (abc1234): cells, cell min | this run")
    assert lines[2] == "| `defog` |  | 10, 40.0 | 60 | **no** |"  # slug order; no earlier run
    assert lines[3] == "| `hiref` | 8, 20.0 | 4, 11.0 | 12 | yes |"  # 660 s within 900 s
    # totals: the earlier commit's papers that had a run; this run's cells, hours, wall
    assert lines[4] == "| **all** | 8, 0.33 h | 14, 0.85 h | 1.00 h wall | 1 of 2 |"


def test_a_paper_rerun_on_its_own_is_marked_with_its_own_span_and_command():
    rerun = _summary(5, 300.0, 0.0, "2026-12-08T09:04:00+00:00")
    rerun["provenance"] |= {"started": "2026-12-08T09:00:00+00:00", "command": "icml25 run x"}
    runs = {
        "defog": _summary(1, 60.0, 0.0, "2026-12-07T10:06:00+00:00"),
        "hiref": _summary(4, 600.0, 0.0, "2026-12-07T10:12:00+00:00"),
        "omnibal": rerun,
    }
    lines = default_times.table(runs, {}).splitlines()
    assert lines[4] == "| `omnibal` | 5, 5.0 | 4 (own run) | yes |"
    # its cells count in the cell hours, its day not in the run's wall time
    assert lines[5] == "| **all** | 10, 0.27 h | 0.20 h wall | 3 of 3 |"
    assert lines[7] == "`omnibal` (own run): `icml25 run x`, 2026-12-08."


def test_the_table_refuses_a_runs_folder_without_summaries():
    with pytest.raises(ValueError, match="runs: no default-scale summary"):
        default_times.table({}, {})


def test_the_table_replaces_only_the_block_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("head\n<!-- times -->\nold\n<!-- /times -->\ntail\n")
    replace_block(readme, "times", "new")
    assert readme.read_text() == "head\n<!-- times -->\nnew\n<!-- /times -->\ntail\n"
    (tmp_path / "other.md").write_text("no markers\n")
    with pytest.raises(ValueError, match="needs one <!-- times -->"):
        replace_block(tmp_path / "other.md", "times", "new")


def test_at_commit_reads_a_committed_summary_from_git_and_none_where_there_is_none(tmp_path):
    folder = tmp_path / "src/icml25/results/hiref/default/seed-0"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps(_summary(3, 90.0)))
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    assert default_times.at_commit("HEAD", "hiref", tmp_path)["cells"]["total"] == 3
    assert default_times.at_commit("HEAD", "defog", tmp_path) is None
