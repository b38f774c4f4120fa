from pathlib import Path

import pytest

from icml25.lab import catalog

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert "pytest" in command
    assert f"```bash\n{command}\n```" in readme


def test_the_tally_and_the_papers_table_are_written_from_the_committed_summaries():
    from icml25.lab import papers_table

    readme = (ROOT / "README.md").read_text()
    assert papers_table.written(readme) == papers_table.blocks(), (
        "run `python -m icml25.lab.papers_table README.md`"
    )


def test_the_quick_start_runs_as_written_and_prints_what_its_comments_say():
    import re
    import subprocess
    import sys

    readme = (ROOT / "README.md").read_text()
    snippet = re.search(r"## Quick start\n.*?```python\n(.*?)```", readme, re.S).group(1)
    assert len(snippet.strip().splitlines()) <= 14
    done = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    cost, policies, mse = done.stdout.strip().splitlines()
    assert abs(float(cost) - 18.0) < 0.5  # "about 18": W2^2 of the shift is |(3, 3)|^2
    assert policies.count("'CDDC'") == 8  # eight learners, each at Pavlov
    assert 0 <= float(mse) < 0.05  # sin(3 x) is fitted (its variance is about 0.5)


def test_each_readme_says_how_its_committed_run_was_made_as_the_summary_does():
    from icml25.lab import provenance

    stale = {
        slug: provenance.written(slug)
        for slug in catalog.implemented()
        if provenance.written(slug) != provenance.expected(slug)
    }
    assert not stale, f"run `python -m icml25.lab.provenance` for: {sorted(stale)}"


def test_the_default_times_table_is_written_from_the_committed_summaries():
    import re
    import subprocess

    from icml25.lab import default_times, store

    commits = ("7a00f5c", "06798ff")
    for commit in commits:
        found = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", commit])
        if found.returncode:
            pytest.skip("needs the repository's history (a clone, not an archive)")
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- times -->\n(.*?)\n<!-- /times -->", readme, re.S).group(1)
    runs = default_times.run_rows(store.results_dir())
    before = {c: {s: default_times.at_commit(c, s, ROOT) for s in runs} for c in commits}
    assert block == default_times.table(runs, before), (
        "run `python -m icml25.lab.default_times src/icml25/results --before 7a00f5c "
        "--before 06798ff README.md`"
    )
