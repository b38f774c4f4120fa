import icml25.ucgs_avr.reproduce as repro
from icml25.lab.claims import NOT_MEASURED
from icml25.ucgs_avr.claims import CLAIMS


def test_cells_cover_three_models_per_seed():
    config = repro.SCALES["default"]
    cells = repro.cells(config)
    assert len(cells) == 3 * config.seeds == 9
    assert {c["model"] for c in cells} == {"generative", "discriminative", "answer_only"}


def test_smoke_measures_every_claim(smoke):
    summary = smoke("ucgs_avr")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    assert all(c["verdict"] != NOT_MEASURED for c in summary["claims"])
    m = summary["measurements"]
    assert 0 <= m["a_matrix_accuracy_min"] <= 1 and 0 <= m["c_answer_only_gap_max"] <= 0.875


def test_which_declarations_are_checks():
    # (c) tests our own generator (the issue calls it a check), c_power the detector's power
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["c", "c_power"]


def test_the_held_out_pair_is_new_to_training():
    """No matrix of the held-out (attribute, rule) also obeys a rule of that attribute that stays
    in training: colour progression over three values failed this (always colour arithmetic)."""
    import numpy as np

    from icml25.ucgs_avr.generator import generate_matrices
    from icml25.ucgs_avr.rules import ALLOWED, attribute_values, satisfies

    attribute, rule = repro.SCALES["default"].held_out
    novel = generate_matrices(300, 3, force=(attribute, rule))
    values = attribute_values(novel.panels, attribute).reshape(-1, 3, 3)
    params = {
        "arithmetic": ({"op": "add"}, {"op": "sub"}),
        "distribute_three": ({"shift": 1}, {"shift": 2}),
    }
    other = np.zeros(len(values), bool)
    for r in ALLOWED[attribute]:
        if r != rule:
            for extra in params.get(r, ({},)):
                other |= satisfies({"attribute": attribute, "rule": r, **extra}, values)
    assert not other.any()
