"""Query oracles served by an OpenAI-compatible chat-completions endpoint (what the paper used).

Boehmer, Fish & Procaccia (ICML 2025), Section 6: PROSE implements ``Disc`` and ``Gen`` with
GPT-4o(-mini). :class:`HTTPOracles` sends the same two kinds of question to any
OpenAI-compatible server through the project's one model client,
:class:`icml25.common.llm.LLMClient` (retries, cache, usage counts), configured like every other
paper's: an :class:`~icml25.common.llm.Endpoint`, a ready ``client``, or the environment
(``ICML25_LLM_MODEL``, ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``; :func:`endpoint_from_env`).

``Disc(i, alpha)`` asks for agreement on the paper's 1-6 scale and reads the first digit 1-6 of
the answer (answers are cached per agent and statement); an answer without one raises, or with
``unusable="lowest"`` counts as 1 and is counted in :attr:`HTTPOracles.unusable`. ``Gen(S, l,
x)`` asks for one statement of at most ``x`` words that as many of the listed participants as
possible rate ``>= l``, and keeps its first ``x`` words so that ``c(alpha) <= x`` holds whatever
the model writes.
"""

from __future__ import annotations

import re

import numpy as np

from icml25.common.llm import Endpoint, LLMClient, LLMConfigError, endpoint_from_env
from icml25.social_choice.opinions import Opinions
from icml25.social_choice.text_oracles import word_count

SCALE = (
    "1 = strongly disagree, 2 = disagree, 3 = slightly disagree, 4 = slightly agree, "
    "5 = agree, 6 = strongly agree"
)


class HTTPOracles:
    """``Disc`` and ``Gen`` answered by a chat-completions endpoint; statements are strings.

    Use ``disc``, ``gen`` and ``cost`` as the queries of
    :func:`~icml25.social_choice.democratic_process`.

    Parameters
    ----------
    opinions : Opinions
        The agents' sentences, at least one agent.
    endpoint : Endpoint or None, default None
        The server and model; None reads them from the environment (``endpoint_from_env``).
        Ignored when ``client`` is given.
    client : LLMClient or None, default None
        A ready client, used instead of ``endpoint``.
    unusable : {"raise", "lowest"}, default "raise"
        What a rating answer without a digit 1-6 does: raise ValueError, or count as 1 (and
        add one to ``unusable``).

    Raises
    ------
    LLMConfigError
        If neither ``client`` nor ``endpoint`` is given and the environment names no model.
    """

    def __init__(
        self,
        opinions: Opinions,
        endpoint: Endpoint | None = None,
        *,
        client: LLMClient | None = None,
        unusable: str = "raise",
    ) -> None:
        if not opinions.sentences:
            raise ValueError("opinions must hold at least one agent")
        if unusable not in ("raise", "lowest"):
            raise ValueError(f"unusable must be 'raise' or 'lowest', got {unusable!r}")
        self.opinions, self.on_unusable, self.unusable = opinions, unusable, 0
        if client is None:
            endpoint = endpoint if endpoint is not None else endpoint_from_env()
            if endpoint is None:
                raise LLMConfigError(
                    "HTTPOracles needs a model: pass endpoint=Endpoint(url, model), a client, "
                    "or set ICML25_LLM_MODEL (and OPENAI_BASE_URL for a local server)"
                )
            if not isinstance(endpoint, Endpoint):
                raise TypeError(f"endpoint must be an icml25.common.llm.Endpoint, got {endpoint!r}")
            client = LLMClient.from_endpoint(endpoint)
        elif not isinstance(client, LLMClient):
            raise TypeError(f"client must be an icml25.common.llm.LLMClient, got {client!r}")
        self.client = client
        self._ratings: dict[tuple[int, str], float] = {}

    @property
    def ratings_asked(self) -> int:
        """Distinct (agent, statement) ratings asked of the model so far."""
        return len(self._ratings)

    def chat(self, prompt: str) -> str:
        """One chat completion (temperature 0); returns the message text."""
        return self.client.chat([{"role": "user", "content": prompt}], temperature=0.0).text

    def _opinion_text(self, i: int) -> str:
        return "\n".join(f"- {s}" for s in self.opinions.sentences[i])

    def rate(self, i: int, statement: str) -> float:
        """Agent ``i``'s agreement with ``statement`` on 1-6, as the model predicts it."""
        key = (int(i), statement)
        if key not in self._ratings:
            answer = self.chat(
                f"A participant wrote these opinions:\n{self._opinion_text(i)}\n\n"
                f'How much would this participant agree with the statement:\n"{statement}"\n'
                f"Answer with a single integer ({SCALE})."
            )
            digit = re.search(r"[1-6]", answer)
            if digit is None and self.on_unusable == "raise":
                raise ValueError(f"the endpoint answered {answer!r}, expected a rating 1-6")
            self.unusable += digit is None
            self._ratings[key] = 1.0 if digit is None else float(digit.group())
        return self._ratings[key]

    def disc(self, agents: np.ndarray, alpha: str) -> np.ndarray:
        return np.array([self.rate(i, alpha) for i in np.asarray(agents)])

    def gen(self, agents: np.ndarray, level: float, x: float) -> str | None:
        words = int(x)
        if words < 1:
            return None
        listing = "\n\n".join(
            f"Participant {k + 1}:\n{self._opinion_text(i)}" for k, i in enumerate(agents)
        )
        answer = self.chat(
            f"{listing}\n\nWrite one statement of at most {words} words that as many of these "
            f"participants as possible would rate at least {level:g} on the scale {SCALE}. "
            "Answer with the statement only."
        )
        statement = " ".join(answer.strip().strip('"').split()[:words])
        return statement or None

    @staticmethod
    def cost(alpha: str) -> float:
        return float(word_count(alpha))
