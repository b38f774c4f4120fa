"""Political neutrality in AI, approximated (Fisher, Appel, Park et al., ICML 2025 position
paper): the paper's eight techniques at three levels as data (:data:`TECHNIQUES`), an
evaluation suite of prompt families each mapped to the technique a neutral system should use
(:func:`build_suite`), judges that label a reply with one of the six output-level categories
(:class:`LLMJudge` through any OpenAI-compatible endpoint, :class:`ProxyJudge` offline), and a
model's technique profile (:func:`ask`, :func:`technique_profile`, :func:`profile_figure`).
"""

from icml25.political_neutrality.framework import JUDGE_LABELS, LEVELS, TECHNIQUES, Technique
from icml25.political_neutrality.judge import LLMJudge, ProxyJudge, parse_label
from icml25.political_neutrality.profile import (
    ask,
    expected_rate,
    profile_figure,
    technique_profile,
)
from icml25.political_neutrality.replies import LabelledReply, labelled_replies
from icml25.political_neutrality.suite import SuitePrompt, build_suite, families

__all__ = [
    "JUDGE_LABELS",
    "LEVELS",
    "TECHNIQUES",
    "LLMJudge",
    "LabelledReply",
    "ProxyJudge",
    "SuitePrompt",
    "Technique",
    "ask",
    "build_suite",
    "expected_rate",
    "families",
    "labelled_replies",
    "parse_label",
    "profile_figure",
    "technique_profile",
]
