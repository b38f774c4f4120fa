"""The panel-level transformer shared by the generative solver and the discriminative baseline.

A panel's four cell tokens ``z_{i,1..4}`` are embedded, ``e_{i,j} = E[z_{i,j}] + c_j``,
concatenated and projected to one vector per panel, ``u_i = W [e_{i,1}; ...; e_{i,4}] + p_i``
(``p_i`` the learned embedding of the panel's place in the 3 x 3 grid; a hidden panel's
``u_i`` is a learned mask vector ``m + p_i``), then ``n_layer`` pre-norm transformer encoder
blocks (bidirectional attention over the panels) give ``h_i``. Attending over 9 panel vectors
rather than 36 tokens is what UCGS's panel encoder does too (Shi, Li & Xue, ICML 2025: panels
are encoded, then the target attends to the context panels), and it is four times cheaper.
"""

from __future__ import annotations

import torch
from torch import nn

TOKENS = 4  # cell tokens per panel


def seeded(seed: int, build):
    """Build a module with torch's initialisers seeded, leaving the global state untouched."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return build()


class PanelTransformer(nn.Module):
    """Tokens ``(B, P, 4)`` and hidden ``(B, P)`` bool -> panel states ``(B, P, d)``."""

    def __init__(self, n_codes: int, n_panels: int, n_embd: int, n_head: int, n_layer: int):
        super().__init__()
        self.tok = nn.Embedding(n_codes, n_embd)
        self.cell = nn.Parameter(torch.zeros(TOKENS, n_embd))
        self.proj = nn.Linear(TOKENS * n_embd, n_embd)
        self.place = nn.Parameter(torch.zeros(n_panels, n_embd))
        self.mask = nn.Parameter(torch.zeros(n_embd))
        nn.init.normal_(self.cell, std=0.5)
        nn.init.normal_(self.place, std=0.5)
        nn.init.normal_(self.mask, std=0.5)
        layer = nn.TransformerEncoderLayer(
            n_embd, n_head, 4 * n_embd, dropout=0.0, batch_first=True, norm_first=True
        )
        self.body = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(n_embd)

    def forward(self, tokens: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
        e = self.tok(tokens) + self.cell  # (B, P, 4, d)
        u = self.proj(e.flatten(2))  # (B, P, d)
        u = torch.where(hidden[..., None], self.mask, u) + self.place
        return self.norm(self.body(u))
