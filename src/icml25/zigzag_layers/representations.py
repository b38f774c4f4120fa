"""Per-layer representations of prompts (Gardinazzi et al., ICML 2025, Sec. 3 "Setup").

The paper takes, for every prompt, one vector per layer: the hidden state of the *last token*
(decoder LLMs). :func:`layer_representations` returns them as an array (L + 1, prompts, dim):
index 0 is the embedding output, index ``i >= 1`` the output of block ``i - 1`` (Hugging Face's
``hidden_states``). ``pooling="mean"`` averages over the prompt's tokens instead (what a
sentence encoder such as all-MiniLM-L6-v2 was trained to use).

``model`` may be a local path to any Hugging Face encoder or decoder, a ``(model, tokenizer)``
pair, a ``sentence_transformers.SentenceTransformer``, a :class:`ToyEncoder`, or directly an array
(L, prompts, dim) of representations. ``drop_blocks`` runs the network without some blocks
(layer pruning, Sec. 5), which is how :func:`final_embeddings` measures a pruned model.
"""

from __future__ import annotations

import numbers
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from icml25.common.optional import require
from icml25.common.validate import check_int
from icml25.zigzag_layers.filtration import check_representations
from icml25.zigzag_layers.toy_encoder import ToyEncoder

POOLINGS = ("last", "mean")


def pool(states: np.ndarray, mask: np.ndarray, pooling: str) -> np.ndarray:
    """(L, B, d) from token states (L, B, T, d) and a 0/1 mask (B, T): last real token or mean.

    The last real token is found from the mask, so left and right padding both work."""
    mask = np.asarray(mask, dtype=float)
    if pooling == "mean":
        return (states * mask[None, :, :, None]).sum(axis=2) / mask.sum(axis=1)[None, :, None]
    last = mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)  # (B,)
    return states[:, np.arange(mask.shape[0]), last]


def _hf_parts(model):
    """(torch module, tokenizer) from a path, a pair or a SentenceTransformer."""
    if isinstance(model, str | Path):
        transformers = require("transformers", "text")
        path = str(model)
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
        net = transformers.AutoModel.from_pretrained(path, local_files_only=True)
        return net.eval(), tokenizer
    if isinstance(model, tuple) and len(model) == 2:
        return model
    if hasattr(model, "tokenizer") and hasattr(model[0], "auto_model"):  # SentenceTransformer
        return model[0].auto_model, model.tokenizer
    raise ValueError(
        "model must be a local model path, a (model, tokenizer) pair, a SentenceTransformer, "
        f"a ToyEncoder or an array (layers, prompts, dim), got {type(model).__name__}"
    )


def _block_list(net):
    """The ModuleList holding the network's ``num_hidden_layers`` blocks, and its owner."""
    torch = require("torch", "text")
    n = net.config.num_hidden_layers
    for name, module in net.named_modules():
        if isinstance(module, torch.nn.ModuleList) and len(module) == n:
            owner = net.get_submodule(name.rpartition(".")[0]) if "." in name else net
            return owner, name.rpartition(".")[2]
    raise ValueError(f"could not find the {n} blocks of {type(net).__name__}")


@contextmanager
def _without_blocks(net, drop: tuple[int, ...]):
    """Temporarily remove blocks ``drop`` (as the official code cuts a model's layer list)."""
    if not drop:
        yield
        return
    torch = require("torch", "text")
    owner, attr = _block_list(net)
    blocks = getattr(owner, attr)
    setattr(owner, attr, torch.nn.ModuleList([b for i, b in enumerate(blocks) if i not in drop]))
    try:
        yield
    finally:
        setattr(owner, attr, blocks)


def _check_drop(drop_blocks, n_blocks: int) -> tuple[int, ...]:
    if isinstance(drop_blocks, str) or not all(
        isinstance(b, numbers.Integral) and not isinstance(b, bool) for b in drop_blocks
    ):
        raise ValueError(f"drop_blocks must be a sequence of block indices, got {drop_blocks!r}")
    drop = tuple(int(b) for b in drop_blocks)
    if any(b < 0 or b >= n_blocks for b in drop) or len(set(drop)) != len(drop):
        raise ValueError(f"drop_blocks must be distinct blocks in [0, {n_blocks}), got {drop}")
    if len(drop) == n_blocks:
        raise ValueError("drop_blocks must leave at least one block")
    return drop


def _hf_representations(net, tokenizer, texts, pooling, drop, batch_size, max_length):
    torch = require("torch", "text")
    drop = _check_drop(drop, net.config.num_hidden_layers)
    if tokenizer.pad_token is None:  # decoders: pad with end-of-sequence
        tokenizer.pad_token = tokenizer.eos_token
    out = []
    with torch.inference_mode(), _without_blocks(net, drop):
        for start in range(0, len(texts), batch_size):
            enc = tokenizer(
                texts[start : start + batch_size],
                padding=True,
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            )
            hidden = net(**enc, output_hidden_states=True).hidden_states  # L+1 x (B, T, d)
            states = torch.stack(hidden).double().numpy()  # (L+1, B, T, d)
            out.append(pool(states, enc["attention_mask"].numpy(), pooling))
    return np.concatenate(out, axis=1)  # (L+1, n, d)


def check_texts(texts) -> list[str]:
    if (
        texts is None
        or isinstance(texts, str)
        or not all(isinstance(t, str) for t in texts)
        or len(texts) < 1
    ):
        raise ValueError("texts must be a non-empty sequence of strings")
    return list(texts)


def layer_representations(
    model,
    texts=None,
    pooling: str = "last",
    drop_blocks=(),
    batch_size: int = 64,
    max_length: int = 128,
) -> np.ndarray:
    """(L + 1, prompts, dim) float64: one vector per prompt at every layer.

    Parameters
    ----------
    model : str, pathlib.Path, tuple, SentenceTransformer, ToyEncoder or numpy.ndarray
        Local path, ``(model, tokenizer)``, ``SentenceTransformer``, :class:`ToyEncoder`, or
        an array (L, prompts, dim) returned as is (``texts`` must then be None).
    texts : sequence of str, optional
        The prompts (required unless ``model`` is an array).
    pooling : {"last", "mean"}, default "last"
        ``"last"`` (the paper: last real token) or ``"mean"`` (mean over tokens).
    drop_blocks : sequence of int, default ()
        Blocks to skip (pruning); the result then has ``L + 1 - len(drop)`` layers.
    batch_size : int, default 64
        Prompts per forward pass of a Hugging Face model.
    max_length : int, default 128
        Tokens per prompt after truncation, for a Hugging Face model (at least 2).

    Returns
    -------
    numpy.ndarray of float64, shape (L + 1, prompts, dim)
        Index 0 the embedding output, index ``i >= 1`` the output of (kept) block ``i - 1``.

    Raises
    ------
    ValueError
        If ``pooling`` is unknown, ``texts`` is not a non-empty sequence of strings,
        ``drop_blocks`` names invalid blocks, or ``model`` is of an unsupported kind.
    """
    if pooling not in POOLINGS:
        raise ValueError(f"pooling must be one of {POOLINGS}, got {pooling!r}")
    if isinstance(model, np.ndarray):
        if texts is not None:
            raise ValueError("texts must be None when model is an array of representations")
        if drop_blocks:
            raise ValueError("drop_blocks must be empty when model is an array of representations")
        return check_representations(model)
    texts = check_texts(texts)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    max_length = check_int("max_length", max_length, minimum=2)
    if isinstance(model, ToyEncoder):
        states, mask = model.token_states(texts, _check_drop(drop_blocks, model.n_blocks))
        return pool(states, mask, pooling)
    net, tokenizer = _hf_parts(model)
    return _hf_representations(
        net, tokenizer, texts, pooling, tuple(drop_blocks), batch_size, max_length
    )


def final_embeddings(model, texts, pooling: str = "mean", drop_blocks=()) -> np.ndarray:
    """(prompts, dim) unit-norm last-layer embeddings of the (possibly pruned) network.

    For all-MiniLM-L6-v2 with ``pooling="mean"`` this is ``SentenceTransformer.encode``.

    Parameters
    ----------
    model : str, pathlib.Path, tuple, SentenceTransformer or ToyEncoder
        The network, as in :func:`layer_representations`.
    texts : sequence of str
        The prompts.
    pooling : {"mean", "last"}, default "mean"
        Mean over tokens or last real token.
    drop_blocks : sequence of int, default ()
        Blocks to skip (pruning).

    Returns
    -------
    numpy.ndarray of float64, shape (prompts, dim)
        The last layer's vectors, each scaled to unit Euclidean norm.

    Raises
    ------
    ValueError
        As :func:`layer_representations`, or if a prompt's last-layer vector is zero.
    """
    last = layer_representations(model, texts, pooling, drop_blocks)[-1]  # (n, d)
    norms = np.linalg.norm(last, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError(
            f"the last layer gives prompt {int(np.argmax(norms[:, 0] == 0))} a zero vector: "
            "it has no unit-norm embedding"
        )
    return last / norms
