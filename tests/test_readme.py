from pathlib import Path

from icml25.lab import catalog

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert "pytest" in command
    assert f"```bash\n{command}\n```" in readme


def test_readme_table_shows_each_paper_s_committed_verdicts():
    import re

    from icml25.lab import catalog, store
    from icml25.lab.claims import headline

    readme = (ROOT / "README.md").read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \|.*\| ([^|]*) \|$", readme, re.M))
    for slug in catalog.implemented():
        path = store.summary_path(store.results_dir(), slug, "default", 0)
        assert path.is_file(), f"{slug}: commit its default-scale summary to {path}"
        summary = store.read_summary(path)
        assert summary["complete"], f"{slug}: the committed run has failed cells"
        assert rows[slug].startswith(headline(summary["counts"])), (slug, rows[slug])


def test_each_readme_says_how_its_committed_run_was_made_as_the_summary_does():
    from icml25.lab import provenance

    stale = {
        slug: provenance.written(slug)
        for slug in catalog.implemented()
        if provenance.written(slug) != provenance.expected(slug)
    }
    assert not stale, f"run `python -m icml25.lab.provenance` for: {sorted(stale)}"
