"""`Scored`: one text's score with its per-token detail, as computed and as cached."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1


@dataclass
class Scored:
    """A sentence-level score plus, for token-based methods, the per-token log-probabilities.

    `logprobs` are natural-log probabilities of `tokens`; `offsets` are their (start, end)
    character spans in the scored text, so tokens can be grouped into words. `boundary`
    (causal LMs scored with `word_boundaries`, else empty): n + 1 log-probabilities that
    the next token leaves a whole word before it (`backends.causal.iter_logprobs`), for
    `scoring.word_scores(boundary="corrected")`.
    """

    score: float
    n_tokens: int
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    boundary: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        out = asdict(self)
        if not self.boundary:  # entries without it stay as they were written before it existed
            del out["boundary"]
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Scored:
        return cls(
            score=d["score"],
            n_tokens=d["n_tokens"],
            tokens=d.get("tokens", []),
            offsets=[tuple(o) for o in d.get("offsets", [])],
            logprobs=d.get("logprobs", []),
            boundary=d.get("boundary", []),
        )

    @classmethod
    def from_tokens(
        cls, tokens: list[str], offsets: list[tuple[int, int]], logprobs: list[float]
    ) -> Scored:
        """Sum of token log-probabilities (log P(s) for logprob, PLL for masked LMs)."""
        return cls(float(sum(logprobs)), len(logprobs), tokens, offsets, logprobs)
