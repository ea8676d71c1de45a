"""`Scored`: one text's score with its per-token detail, as computed and as cached."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class Scored:
    """A sentence-level score plus, for token-based methods, the per-token log-probabilities.

    `logprobs` are natural-log probabilities of `tokens`; `offsets` are their (start, end)
    character spans in the scored text, so tokens can be grouped into words.
    """

    score: float
    n_tokens: int
    tokens: list[str] = field(default_factory=list)
    offsets: list[tuple[int, int]] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Scored:
        return cls(
            score=d["score"],
            n_tokens=d["n_tokens"],
            tokens=d.get("tokens", []),
            offsets=[tuple(o) for o in d.get("offsets", [])],
            logprobs=d.get("logprobs", []),
        )

    @classmethod
    def from_tokens(
        cls, tokens: list[str], offsets: list[tuple[int, int]], logprobs: list[float]
    ) -> Scored:
        """Sum of token log-probabilities (log P(s) for logprob, PLL for masked LMs)."""
        return cls(float(sum(logprobs)), len(logprobs), tokens, offsets, logprobs)
