"""The report's tokenization section (issue 46, item 7): per language and model, the model's
tokens per word and per character of the scored sentences, from the scores' ``n_tokens``;
shown when the dataset has a language column and the scores count tokens."""

from __future__ import annotations

import pandas as pd

from acceptability.reports.analysis import Results
from acceptability.reports.section import Section

TEXT = ("Tokens per whitespace word and per character of the scored sentences, per language "
        "and model (the scores' n_tokens): token counts are not comparable across scripts, and "
        "a model that spells a script in pieces is not measured by its accuracy there. "
        "scoring.tokenization_stats(dataset, model) adds the share of unknown or byte-fallback "
        "tokens.")


def tokenization_table(results: Results) -> pd.DataFrame | None:
    """Per language and model: sentences, words, characters, tokens, tokens per word and per
    character; None without a language column or token counts."""
    s, sc = results.dataset.sentences, results.scores
    if "language" not in s or "n_tokens" not in sc or s["language"].isna().all():
        return None
    text = s.set_index("sentence_id")[["language", "text"]]
    rows = sc.dropna(subset=["n_tokens"]).join(text, on="sentence_id", how="inner")
    rows = rows.assign(words=rows["text"].str.split().str.len(), characters=rows["text"].str.len())
    out = rows.groupby(["language", "model"], sort=True).agg(
        sentences=("sentence_id", "size"), words=("words", "sum"),
        characters=("characters", "sum"), tokens=("n_tokens", "sum")).reset_index()
    out["tokens_per_word"] = out["tokens"] / out["words"]
    out["tokens_per_char"] = out["tokens"] / out["characters"]
    return out


def tokenization_tables(results: Results) -> dict[str, tuple[str, pd.DataFrame | None]]:
    """The section's table for `reports.tables.all_tables`."""
    return {"tokenization": ("Tokens per word and per character, per language and model",
                             tokenization_table(results))}


def tokenization_sections(results: Results) -> list[Section]:
    """The section, when `tokenization_table` has one."""
    if tokenization_table(results) is None:
        return []
    return [Section("tokenization", "Tokenization by language", TEXT, tables=["tokenization"])]
