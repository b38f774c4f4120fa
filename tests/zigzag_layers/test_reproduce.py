import numpy as np

import icml25.zigzag_layers.reproduce as zr
from icml25.zigzag_layers.claims import CLAIMS


def test_cells_cover_every_part():
    config = zr.SCALES["default"]
    parts = [c["part"] for c in zr.cells(config)]
    assert parts.count("check") == config.check_cells
    assert parts.count("layers") == 1
    assert parts.count("sensitivity") == config.sensitivity_replicates * len(
        config.sensitivity_sizes
    )
    assert config.check_cells * config.check_per_cell == 50  # the issue's 50 random filtrations
    assert len(config.families) >= 3 and len(config.families) * config.per_family >= 300


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: c for c in CLAIMS}
    assert (by_id["a"].comparison, by_id["a"].threshold) == ("<=", 0.0)
    assert (by_id["b"].comparison, by_id["b"].threshold) == ("<=", 0.0)
    assert (by_id["c"].comparison, by_id["c"].threshold) == (">", 3.0)
    assert by_id["d1"].threshold == by_id["d2"].threshold == 0.0
    assert by_id["d3"].threshold == by_id["d4"].threshold == 5.0


def test_which_rows_are_checks():
    # (a) two implementations of one barcode, (b) zigzag Betti numbers = static homology by
    # algebra: both hold by construction; (c) and (d) are the paper's findings
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["a", "b"]
    assert [c.id for c in CLAIMS if c.kind == "claim"] == ["c", "d1", "d2", "d3", "d4"]


def test_check_cell_counts_disagreements():
    out = zr.run_cell(zr.SCALES["smoke"], {"part": "check", "batch": 0}, seed=1)
    assert out["mismatches"] == 0 and out["betti_bad"] == 0
    assert len(out["sizes"]) == zr.SCALES["smoke"].check_per_cell


def test_smoke_runs_and_measures_every_claim(smoke):
    summary = smoke("zigzag_layers")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert verdicts["a"] == verdicts["b"] == "holds"  # the two checks
    assert "not measured" not in verdicts.values()
    m = summary["measurements"]
    assert np.isfinite(m["sensitivity_ratio"]) and m["n_prompts"] == 90
