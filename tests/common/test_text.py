import numpy as np
import pytest

from icml25.common.text import embed


def test_embeddings_are_unit_rows_and_close_for_paraphrases():
    e = embed(["When did this bridge open?", "In which year did this bridge open?", "Cats purr."])
    assert e.shape == (3, 384) and e.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    assert e[0] @ e[1] > e[0] @ e[2]
    with pytest.raises(TypeError, match="sequence of strings"):
        embed("one string")
