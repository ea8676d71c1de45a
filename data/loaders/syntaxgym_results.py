"""Hu et al. 2020's published per-item SyntaxGym outcomes (github.com/cpllab/syntactic-generalization
at commit 43f1f86, ``data/raw/sg_results/``): one CSV per model and training corpus,
``model,suite,item,correct``, the model id ``<model>_<corpus>_<seed>`` (``gpt-2-pretrained__0``:
an off-the-shelf model, no corpus).

What the paper's analysis (``notebooks/main.py``) does with them is kept here as data, so
that `stats.sg_scores` reproduces its SG scores: `HU2020_MODELS` (the model names as its
figures print them), `HU2020_EXCLUDED_MODELS` (``1gram``, ``ngram-no-rand``) and the
suites it leaves out (``in_paper`` of `data.syntaxgym_circuits`). The n-gram "seeds" are
51 runs of one 5-gram model that differ only in how ties are broken at random (the
notebook's comment); the ``ngram-single`` files hold run 0, under the model name ``ngram``.
"""

from __future__ import annotations

import os

import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.io.sources import fetch, registered_names
from acceptability.data.loaders.syntaxgym import NAME, syntaxgym_circuits

RESULTS_DIR = "hu2020_results"
#: model name -> as the paper's figures print it (``PRETTY_COLUMN_MAPS``; * = off the shelf).
HU2020_MODELS = {"vanilla": "LSTM", "ordered-neurons": "ON-LSTM", "rnng": "RNNG",
                 "ngram": "n-gram", "gpt-2": "GPT-2", "gpt-2-pretrained": "GPT-2*",
                 "gpt-2-xl-pretrained": "GPT-2-XL*", "transformer-xl": "Transformer-XL*",
                 "grnn": "GRNN*", "jrnn": "JRNN*"}
#: models the paper's analysis drops (``exclude_models``).
HU2020_EXCLUDED_MODELS = ("1gram", "ngram-no-rand")
#: the paper's controlled models trained on word-level corpora (``controlled_nonbpe_models``):
#: their runs on BPE corpora are dropped, as are GPT-2's on corpora not ending in "gptbpe".
_WORD_LEVEL = ("ngram", "ordered-neurons", "vanilla", "rnng")
#: models whose runs differ only in random tie-breaking: one outcome per item by majority.
HU2020_TIE_BREAKING = ("1gram", "ngram", "ngram-single")
RESULT_COLUMNS = ["model", "corpus", "seed", "suite", "item", "item_number", "correct",
                  "circuit", "in_paper", "model_id", "file"]


def _read(rel: str, path) -> pd.DataFrame:
    file = fetch(NAME, rel, path)
    try:
        raw = pd.read_csv(file, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DataError(f"unreadable results file ({err})", source=str(file)) from None
    missing = [c for c in ("model", "suite", "item", "correct") if c not in raw]
    if missing:
        raise DataError(f"missing column(s) {missing}", source=str(file), column=missing[0],
                        fix="use Hu et al.'s data/raw/sg_results/*.csv as published")
    parts = raw["model"].str.split("_")
    bad = (parts.str.len() != 3) | ~raw["correct"].isin(["True", "False"]) | \
        ~raw["item"].str.fullmatch(r"\d+")
    if bad.any():
        i = int(bad.to_numpy().argmax())
        raise DataError(f"row {raw.iloc[i].tolist()} is not '<model>_<corpus>_<seed>, suite, "
                        "0-based item, True/False'", source=str(file), row=f"{i + 2} (line)")
    item = raw["item"].astype(int)
    return pd.DataFrame({"model": parts.str[0], "corpus": parts.str[1], "seed": parts.str[2],
                         "suite": raw["suite"], "item": item, "item_number": item + 1,
                         "correct": raw["correct"] == "True", "model_id": raw["model"],
                         "file": rel})


def load_syntaxgym_results(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """Hu et al. 2020's published per-item outcomes of every model run as a long table.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The SyntaxGym folder (as for [load_syntaxgym][acceptability.data.load_syntaxgym]),
        holding ``hu2020_results/``.

    Returns
    -------
    pandas.DataFrame
        ``model`` (``gpt-2``, ``rnng``, ...; `HU2020_MODELS` names them as the paper does),
        ``corpus`` (``bllip-lg``, ..., empty for off-the-shelf models), ``seed`` (as
        written, e.g. ``0111``), ``suite``, ``item`` (the files' 0-based item),
        ``item_number`` (item + 1: the suite's ``item_number``), ``correct`` (bool),
        ``circuit`` (`data.syntaxgym_circuits`), ``in_paper`` (False for the suites and
        models the paper's analysis leaves out, and for runs on corpora of the other
        tokenization), ``model_id`` (the file's model column) and ``file``. 37 files,
        213,868 rows (no file of the paper's ``random`` baseline is public).

    Raises
    ------
    DataError
        For a missing file or column, or a row that is not a model id, a 0-based item and
        True/False (naming the file and line).

    Examples
    --------
    Needs the data (``syntaxgym/hu2020_results``):

    >>> from acceptability.data import load_syntaxgym_results
    >>> results = load_syntaxgym_results()  # doctest: +SKIP
    >>> results.groupby("model")["model_id"].nunique()["rnng"]  # doctest: +SKIP
    11
    """
    files = [f"{RESULTS_DIR}/{n}.csv" for n in
             registered_names(NAME, RESULTS_DIR, ".csv") if n.startswith("syntaxgym_results_")]
    out = pd.concat([_read(rel, path) for rel in files], ignore_index=True)
    circuits = syntaxgym_circuits().set_index("suite")
    out["circuit"] = out["suite"].map(circuits["circuit"])
    bpe = out["corpus"].str.endswith("bpe")
    dropped_runs = ((out["model"].isin(_WORD_LEVEL) & bpe)
                    | ((out["model"] == "gpt-2") & ~out["corpus"].str.endswith("gptbpe")))
    out["in_paper"] = (out["suite"].map(circuits["in_paper"]).fillna(False).astype(bool)
                       & ~out["model"].isin(HU2020_EXCLUDED_MODELS) & ~dropped_runs)
    return out[RESULT_COLUMNS]
