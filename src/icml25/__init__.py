"""icml25: ICML 2025 papers as working software.

Each paper is a subpackage ``icml25.<slug>`` with its method, its reproduction
(``icml25.<slug>.reproduce``) and a README; ``icml25.lab`` is the machinery that runs them.
"""

__version__ = "0.1.0"
