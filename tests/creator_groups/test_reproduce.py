import numpy as np
import pytest

import icml25.creator_groups.reproduce as cg
from icml25.creator_groups.claims import CLAIMS


def test_cells_cover_every_part():
    config = cg.SCALES["default"]
    parts = [c["part"] for c in cg.cells(config)]
    assert parts.count("lbr") * config.lbr_batch == 64  # at least 64 replicates
    assert parts.count("poa") == config.poa_batches
    assert parts.count("trap") == len(config.trap_Ks) * len(config.trap_epsilons)


def test_claims_keep_the_issue_thresholds():
    by_id = {c.id: (c.comparison, c.threshold) for c in CLAIMS}
    assert by_id["a"] == ("<=", 0.05)
    assert by_id["b2"] == (">", 0.1)
    assert by_id["c"] == (">", 0.0)
    assert by_id["d1"] == ("<=", 1.0) and by_id["d2"] == ("<=", 2.0)
    assert by_id["d3"] == (">", 1.0)


def test_which_rows_are_checks():
    # total exposure is constant: a grand group paid by exposure never moves (b1), and every
    # profile of our exposure trap is a PNE, so its PoA is 1 / epsilon at K = 1 (d3)
    # and Self-Greedy stopping only at a PNE is how the algorithm is written (sg)
    assert [c.id for c in CLAIMS if c.kind == "check"] == ["b1", "d3", "sg"]
    assert [c.id for c in CLAIMS if c.kind == "claim"] == ["a", "b2", "c", "d1", "d2"]


def test_largest_sure_drop():
    assert cg._largest_sure_drop([[1.0, 1.2], [0.5, 0.9], None]) == pytest.approx(0.1)
    assert cg._largest_sure_drop([[1.0, 1.2], [1.1, 1.3]]) < 0
    assert cg._largest_sure_drop([None, [1.0, 1.0]]) == -np.inf


def test_smoke_run_measures_every_claim(smoke):
    summary = smoke("creator_groups")[0]
    assert summary["cells"]["failed"] == 0, summary["failures"]
    verdicts = {c["id"]: c["verdict"] for c in summary["claims"]}
    assert "not measured" not in verdicts.values()
    # the exact statements hold at any scale: the checks b1, d3 (algebra) and the bounds d1, d2
    assert {k: verdicts[k] for k in ("b1", "d3", "sg")} == dict.fromkeys(
        ("b1", "d3", "sg"), "holds"
    )
    assert {k: verdicts[k] for k in ("d1", "d2")} == {"d1": "reproduced", "d2": "reproduced"}
    assert summary["measurements"]["exposure_grand_max_change"] == 0.0
