"""Zorro (Huebner et al. 2021): 23 paradigms x 2,000 minimal pairs with a child-directed
vocabulary, MIT licence (github.com/phueb/Zorro).

Each paradigm is a file ``sentences/<phenomenon>-<paradigm>.txt`` of 4,000 lines; a pair
is lines (1, 2), (3, 4), ...: the odd line is ungrammatical, the even line grammatical
(Zorro's ``zorro/data.py``). Sentence ids ``<paradigm>_<k>_bad``/``_good`` and pair ids
``<paradigm>_<k>`` number the pairs from 0 in line order; ``paradigm`` is the file stem
(``agreement_subject_verb-across_relative_clause``), ``phenomenon`` the part before its
last ``-`` (13 phenomena; ``filler-gap`` and ``island-effects`` contain a ``-`` themselves),
and a sentence type is a paradigm's good or bad condition (``<paradigm>_good``). The
sentences table keeps each sentence's 1-based ``line`` in its file.

The published RoBERTa-base (Liu et al. 2019) cross-entropies that Zorro ships as its
reference load with [load_zorro_reference_scores][acceptability.data.load_zorro_reference_scores].
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import checksum, fetch, registered_names, source_folder
from acceptability.data.tables import validate_pairs, validate_scores, validate_sentences

NAME = "zorro"
REFERENCE_DIR = "reference-roberta-base"
REFERENCE_MODEL = "RoBERTa-base"
REFERENCE_METHOD = "zorro_cross_entropy"
_REFERENCE_STEP = 500_000  # the file names' training step, as Zorro's repository names them


def zorro_paradigms() -> list[str]:
    """The 23 Zorro paradigms as ``<phenomenon>-<paradigm>``, sorted.

    Returns
    -------
    list of str
        The stems of the registered ``sentences/*.txt`` files.

    Examples
    --------
    >>> from acceptability.data import zorro_paradigms
    >>> names = zorro_paradigms()
    >>> len(names), names[0]
    (23, 'agreement_determiner_noun-across_1_adjective')
    """
    return registered_names(NAME, "sentences", ".txt")


def zorro_phenomenon(paradigm: str) -> str:
    """The phenomenon of a paradigm name: the part before its last ``-``
    (``filler-gap-wh_question_object`` -> ``filler-gap``)."""
    return paradigm.rsplit("-", 1)[0]


def check_paradigms(names: Iterable[str] | str | None) -> list[str]:
    """The paradigms to load, in the order given (all 23 for None); an unknown name is an
    error that lists the closest names."""
    return select_names(names, zorro_paradigms(), "Zorro paradigm", NAME,
                        fix_empty="pass paradigm names, or paradigms=None for all 23",
                        fix_unknown="use the names of zorro_paradigms() (23 names "
                                    "'<phenomenon>-<paradigm>' such as 'binding-principle_a')")


def _lines(f: Path) -> list[str]:
    """The lines of a text file, without line ends; one final newline ends the last line."""
    lines = [line.removesuffix("\r") for line in f.read_text(encoding="utf-8").split("\n")]
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _read_paradigm(paradigm: str, path) -> tuple[list[str], Path]:
    f = fetch(NAME, f"sentences/{paradigm}.txt", path)
    lines = _lines(f)
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            raise DataError("blank line; every line must hold one sentence", source=str(f),
                            row=f"{lineno} (line)",
                            fix="remove the blank line (pairs are consecutive lines)")
    if not lines or len(lines) % 2:
        raise DataError(f"{len(lines)} lines, not a positive even number: Zorro's pairs are "
                        "lines (1, 2), (3, 4), ... (ungrammatical, then grammatical)",
                        source=str(f), row=f"{len(lines)} (line)",
                        fix="use the Zorro sentence files as published (4,000 lines each)")
    return lines, f


def load_zorro(path: str | os.PathLike | None = None,
               paradigms: Iterable[str] | str | None = None) -> Dataset:
    """Zorro (Huebner et al. 2021) as sentences + pairs: all 23 paradigms, or some.

    Only the files of the paradigms asked for are read. Odd lines are labelled 0
    (ungrammatical), even lines 1.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``sentences/<phenomenon>-<paradigm>.txt``; default
        ``$ACCEPTABILITY_DATA_DIR/zorro``, else a checksummed download from
        github.com/phueb/Zorro.
    paradigms : str or iterable of str, optional
        The paradigms to load ([zorro_paradigms][acceptability.data.zorro_paradigms] lists
        them); all 23 for None.

    Returns
    -------
    Dataset
        Sentences ``<paradigm>_<k>_bad``/``_good`` with their 1-based ``line`` in the file,
        and pairs ``<paradigm>_<k>`` with ``paradigm`` and ``phenomenon``.

    Raises
    ------
    DataError
        For an unknown paradigm, a missing file, a blank line or an odd number of lines.

    Examples
    --------
    A folder with one paradigm file of one pair (the published files hold 2,000 each):

    >>> import pathlib, tempfile
    >>> from acceptability.data import load_zorro
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "sentences").mkdir()
    >>> lines = "Ben thinks about himself calling this fuel .\\nBen thinks about himself called this fuel .\\n"
    >>> _ = (folder / "sentences" / "binding-principle_a.txt").write_text(lines)
    >>> ds = load_zorro(folder, paradigms=["binding-principle_a"])
    >>> ds.sentences[["sentence_id", "label", "line"]].to_dict("list")
    {'sentence_id': ['binding-principle_a_0_bad', 'binding-principle_a_0_good'], 'label': [0.0, 1.0], 'line': [1, 2]}
    """
    wanted = check_paradigms(paradigms)
    frames, sums, folder = [], {}, None
    for paradigm in wanted:
        lines, f = _read_paradigm(paradigm, path)
        sums[f"sentences/{paradigm}.txt"], folder = checksum(f), f.parent
        n = len(lines)
        frames.append(pd.DataFrame({"paradigm": paradigm, "line": np.arange(1, n + 1),
                                    "text": lines}))
    raw = pd.concat(frames, ignore_index=True)
    k = (raw["line"] - 1) // 2
    good = raw["line"] % 2 == 0
    condition = np.where(good, "good", "bad")
    pair_id = raw["paradigm"] + "_" + k.astype(str)
    phenomenon = raw["paradigm"].map(zorro_phenomenon)
    sentences = pd.DataFrame({
        "sentence_id": pair_id + "_" + condition, "text": raw["text"], "dataset": NAME,
        "type_id": raw["paradigm"] + "_" + condition, "item": k, "phenomenon": phenomenon,
        "label": good.astype(float), "human": np.nan, "paradigm": raw["paradigm"],
        "line": raw["line"]})
    sentences = validate_sentences(sentences, source=NAME)
    bad_rows = raw[~good]
    pid = pair_id[~good]
    pairs = pd.DataFrame({"pair_id": pid, "good_id": pid + "_good", "bad_id": pid + "_bad",
                          "phenomenon": phenomenon[~good], "paradigm": bad_rows["paradigm"]})
    pairs = validate_pairs(pairs.reset_index(drop=True), sentences, source=NAME)
    return Dataset(name=NAME, sentences=sentences, pairs=pairs, source=source_folder(NAME, path, folder),
                   checksums=sums)


def _read_reference(paradigm: str, path) -> tuple[list[str], np.ndarray, Path]:
    """A reference file's sentences (whitespace-normalised) and cross-entropies."""
    f = fetch(NAME, f"{REFERENCE_DIR}/probing_{paradigm}_results_{_REFERENCE_STEP}.txt", path)
    texts, xe = [], []
    for lineno, line in enumerate(_lines(f), 1):
        words = line.split()
        try:
            value = float(words[-1]) if len(words) > 1 else None
        except ValueError:
            value = None
        if value is None:
            raise DataError(f"line {line!r} is not '<sentence> <cross-entropy>'", source=str(f),
                            row=f"{lineno} (line)",
                            fix="use Zorro's reference files as published: one sentence and "
                                "its cross-entropy per line")
        texts.append(" ".join(words[:-1]))
        xe.append(value)
    return texts, np.asarray(xe, dtype=float), f


def load_zorro_reference_scores(path: str | os.PathLike | None = None,
                                dataset: Dataset | None = None) -> pd.DataFrame:
    """The RoBERTa-base cross-entropies Zorro publishes as its reference, as a long scores table.

    The model is the pretrained Hugging Face RoBERTa-base (Liu et al. 2019; the files'
    ``param2val.yaml``), scored by Zorro's authors; the cross-entropies are printed with
    4 decimals, so some pairs tie exactly. ``score`` is minus the cross-entropy (higher =
    preferred, as every score here; `stats.zorro_accuracy`). Line ``i`` of
    ``reference-roberta-base/probing_<paradigm>_results_500000.txt`` scores line ``i``
    of the sentences file and must hold its sentence (up to whitespace).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The Zorro folder (as for [load_zorro][acceptability.data.load_zorro]).
    dataset : Dataset, optional
        A [load_zorro][acceptability.data.load_zorro] dataset (default: all 23 paradigms
        from ``path``); only its paradigms' reference files are read.

    Returns
    -------
    pandas.DataFrame
        ``sentence_id, model, score, method``: model ``"RoBERTa-base"``, method
        ``"zorro_cross_entropy"``. ``.attrs``: ``n_matched`` (sentences aligned) and
        ``checksums``.

    Raises
    ------
    DataError
        For a dataset not made by ``load_zorro``, or a line that does not match.

    Examples
    --------
    Needs the data (Zorro's ``reference-roberta-base`` folder):

    >>> from acceptability.data import load_zorro, load_zorro_reference_scores
    >>> ds = load_zorro("zorro", paradigms="binding-principle_a")  # doctest: +SKIP
    >>> load_zorro_reference_scores("zorro", ds)["model"].unique().tolist()  # doctest: +SKIP
    ['RoBERTa-base']
    """
    if dataset is None:
        dataset = load_zorro(path)
    s = dataset.sentences
    if not {"paradigm", "line"} <= set(s.columns):
        raise DataError("the dataset's sentences have no 'paradigm' and 'line' columns",
                        source=f"{getattr(dataset, 'name', 'dataset')} sentences",
                        fix="pass a dataset made by load_zorro")
    frames, sums = [], {}
    for paradigm, g in s.groupby("paradigm", sort=False):
        check_paradigms([paradigm])
        texts, xe, f = _read_reference(paradigm, path)
        sums[f"{REFERENCE_DIR}/{f.name}"] = checksum(f)
        line = g["line"].to_numpy(dtype=int)
        # against the sentences file itself: the dataset may hold some of its pairs only
        n_lines = len(_read_paradigm(paradigm, path)[0])
        if len(texts) != n_lines:
            raise DataError(f"{len(texts)} lines, but sentences/{paradigm}.txt has "
                            f"{n_lines}", source=str(f),
                            row=f"{min(len(texts), n_lines) + 1} (line)",
                            fix="use the reference file scored on this version of the "
                                "sentences: one line per sentence, in the same order")
        got = np.asarray(texts, dtype=object)[line - 1]
        want = g["text"].map(lambda t: " ".join(t.split())).to_numpy(dtype=object)
        differ = np.flatnonzero(got != want)
        if len(differ):
            i = differ[0]
            raise DataError(f"sentence {got[i]!r} differs from line {line[i]} of "
                            f"sentences/{paradigm}.txt, {want[i]!r} ({len(differ)} of {len(g)} "
                            "lines differ)",
                            source=str(f), row=f"{line[i]} (line)",
                            fix="use the reference file scored on this version of the "
                                "sentences: line i scores line i of the sentences file")
        frames.append(pd.DataFrame({"sentence_id": g["sentence_id"].to_numpy(),
                                    "model": REFERENCE_MODEL, "score": -xe[line - 1],
                                    "method": REFERENCE_METHOD}))
    out = validate_scores(pd.concat(frames, ignore_index=True), s, source=NAME)
    out.attrs = {"n_matched": len(out), "checksums": sums}
    return out
