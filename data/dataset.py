"""``Dataset``: sentences + pairs (+ forced-choice trials), and how they were made."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .tables import validate_pairs, validate_sentences, validate_trials


@dataclass
class Dataset:
    """A validated dataset with its provenance.

    ``exclusions`` lists what the loader set aside and why (one row per reason with
    ``table``, ``reason``, ``n``); nothing is dropped silently.
    """

    name: str
    sentences: pd.DataFrame
    pairs: pd.DataFrame
    trials: pd.DataFrame | None = None
    source: str = "user frames"
    checksums: dict[str, str] = field(default_factory=dict)
    exclusions: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["table", "reason", "n"])
    )

    def __repr__(self) -> str:
        n_ex = int(self.exclusions["n"].sum()) if len(self.exclusions) else 0
        trials = f", {len(self.trials)} trials" if self.trials is not None else ""
        same = int(self.pairs["identical_text"].sum()) if "identical_text" in self.pairs else 0
        flag = f" ({same} pairs with identical texts, kept)" if same else ""
        return (f"<Dataset {self.name!r}: {len(self.sentences)} sentences, "
                f"{len(self.pairs)} pairs{flag}{trials}, {n_ex} rows excluded; "
                f"from {self.source}>")

    def subset(self, pair_ids: pd.Index | list[str]) -> Dataset:
        """The same dataset restricted to some pairs (and all its sentences)."""
        pairs = self.pairs[self.pairs["pair_id"].isin(pair_ids)].reset_index(drop=True)
        return Dataset(self.name, self.sentences, pairs, self.trials, self.source,
                       self.checksums, self.exclusions)


def from_frames(sentences: pd.DataFrame, pairs: pd.DataFrame, trials: pd.DataFrame | None = None,
                name: str = "user") -> Dataset:
    """A Dataset from the user's own tables (validated; the columns are defined in docs/tables.md).

    ``pairs`` may be empty for a sentence-only dataset.
    """
    s = validate_sentences(sentences, source=f"{name} sentences")
    if pairs is None or len(pairs) == 0:
        p = pd.DataFrame(columns=["pair_id", "good_id", "bad_id", "phenomenon"])
    else:
        p = validate_pairs(pairs, s, source=f"{name} pairs")
    t = validate_trials(trials, source=f"{name} trials") if trials is not None else None
    return Dataset(name=name, sentences=s.reset_index(drop=True), pairs=p.reset_index(drop=True),
                   trials=t)
