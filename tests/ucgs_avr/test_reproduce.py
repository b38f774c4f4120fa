import icml25.ucgs_avr.reproduce as repro
from icml25.lab import runner
from icml25.lab.claims import NOT_MEASURED
from icml25.ucgs_avr.claims import CLAIMS


def test_cells_cover_three_models_per_seed():
    config = repro.SCALES["default"]
    cells = repro.cells(config)
    assert len(cells) == 3 * config.seeds == 9
    assert {c["model"] for c in cells} == {"generative", "discriminative", "answer_only"}


def test_smoke_measures_every_claim(tmp_path):
    summary = runner.run(["ucgs_avr"], scale="smoke", out=tmp_path, jobs=1)["ucgs_avr"]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert all(c["verdict"] != NOT_MEASURED for c in summary["claims"])
    m = summary["measurements"]
    assert 0 <= m["a_matrix_accuracy_min"] <= 1 and 0 <= m["c_answer_only_gap_max"] <= 0.875


def test_which_declarations_are_checks():
    # (c) tests our own generator (the issue calls it a check), c_power the detector's power
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["c", "c_power"]
