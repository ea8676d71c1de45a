"""SyntaxGym test suites (Gauthier et al. 2020): the 34 suites of Hu et al. 2020 (ACL), MIT
licence, or any suite JSON file of SyntaxGym's format.

A suite (``meta``, ``region_meta``, ``predictions``, ``items``) holds items, each with the
same conditions, each condition a sentence cut into numbered regions; predictions are
formulas over region surprisals (`data.loaders.syntaxgym_formula`). The sentence is SyntaxGym's:
the regions' contents joined by single spaces, empty regions skipped (syntaxgym-core's
``Suite.iter_sentences`` at commit ab6b1f8). syntaxgym-core strips each content's leading
space and rejects contents with a trailing one (``Region``); 16 of the 34 published suites
have such contents (``npz_obj``: ``" shot"``), and both ends are stripped here, the count
kept per sentence (``stripped``).

Sentences: ``sentence_id`` ``<suite>:<item>:<condition>``, ``type_id``
``<suite>:<condition>``, ``item`` (the suite's ``item_number``), ``suite``, ``condition``,
``circuit`` (Hu et al.'s, `syntaxgym_circuits`; missing for other suites) and
``phenomenon`` (the circuit, else the suite), no labels and no human values. Three columns
carry the suite structure, so that a sentences table read back from a file still
evaluates: ``regions`` (JSON ``[[number, name, start, end], ...]``: each region's
character span in ``text``, an empty region an empty span), ``metric`` (the suite's
``meta.metric``; ``"all"``, which syntaxgym-core uses to compute every metric, reads as
``"sum"``) and ``predictions`` (JSON list of the suite's formulas). `syntaxgym_regions`
and `syntaxgym_predictions` turn them into tables. A SyntaxGym dataset has no pairs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import checksum, fetch, registered_names, source_folder
from acceptability.data.loaders.published import paper_table
from acceptability.data.loaders.syntaxgym_formula import FormulaError, parse_prediction
from acceptability.data.tables import PAIR_COLUMNS, require_columns, validate_sentences

NAME = "syntaxgym"
#: syntaxgym-core's region metrics (``utils.METRICS``).
METRICS = ("sum", "mean", "median", "range", "max", "min")
#: syntaxgym-core's early prediction form (its ``data/test/test_in.json``): a relation of
#: one region in two conditions, read as the formula ``(N;%l%) > (N;%r%)``.
_RELATIONS = {"greaterthan": ">", "lessthan": "<"}
SUITE_COLUMNS = ["suite", "condition", "circuit", "regions", "metric", "predictions",
                 "stripped"]


def syntaxgym_suites() -> list[str]:
    """The 34 test suites of Hu et al. 2020, sorted (``center_embed``, ..., ``subordination_src-src``).

    Returns
    -------
    list of str
        The suite names, as the registry lists ``suites/<name>.json``.

    Examples
    --------
    >>> from acceptability.data import syntaxgym_suites
    >>> len(syntaxgym_suites()), syntaxgym_suites()[:2]
    (34, ['center_embed', 'center_embed_mod'])
    """
    return registered_names(NAME, "suites", ".json")


def syntaxgym_circuits() -> pd.DataFrame:
    """Hu et al.'s suite -> circuit map (``data/paper_tables/hu2020_circuits.csv``; its header
    says where it comes from): ``suite``, ``tag``, ``circuit`` (one of the six, missing for
    ``nn-nv-rpl``), ``in_paper`` (False for the three suites the paper leaves out).

    Examples
    --------
    >>> from acceptability.data import syntaxgym_circuits
    >>> circuits = syntaxgym_circuits()
    >>> circuits.set_index("suite").loc["mvrr", "circuit"], int(circuits["in_paper"].sum())
    ('Garden-Path Effects', 31)
    """
    return paper_table("hu2020_circuits.csv")


def _suite_files(suites: Iterable[str | os.PathLike] | str | os.PathLike | None,
                 path) -> list[tuple[Path, bool]]:
    """The files of ``suites`` in the order given, each with whether it is a registered
    suite (fetched by name) rather than a path to a suite JSON file."""
    if isinstance(suites, (str, os.PathLike)):
        suites = [suites]
    known = syntaxgym_suites()
    entries = known if suites is None else list(suites)
    if not entries:
        raise DataError("no SyntaxGym suite selected", source=NAME,
                        fix="pass suite names or files, or suites=None for all 34")
    out = []
    for entry in entries:
        given = Path(entry).expanduser()
        if str(entry) in known or (given.suffix != ".json" and not given.is_file()):
            select_names([str(entry)], known, "SyntaxGym suite", NAME, fix_empty="",
                         fix_unknown="use a name of data.syntaxgym_suites() or the path of "
                                     "a suite JSON file")
            out.append((fetch(NAME, f"suites/{entry}.json", path), True))
        elif given.is_file():
            out.append((given, False))
        else:
            raise DataError(f"no suite file {str(given)!r}", source=NAME,
                            fix="give the path of a SyntaxGym suite JSON file")
    return out


def _read_json(file: Path) -> dict:
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise DataError(f"not a JSON file ({err})", source=str(file),
                        fix="give a SyntaxGym suite JSON file") from None
    missing = [k for k in ("meta", "region_meta", "items") if not isinstance(raw, dict)
               or k not in raw]
    if missing:
        raise DataError(f"missing field(s) {missing}", source=str(file),
                        fix="a SyntaxGym suite has meta, region_meta, predictions and items "
                            "(syntaxgym-core's docs/schemas/test_suite.json)")
    return raw


def _metric(meta: dict, file: Path) -> str:
    metric = meta.get("metric", "sum") if isinstance(meta, dict) else None
    metric = "sum" if metric == "all" else metric
    if metric not in METRICS:
        raise DataError(f"unknown metric {metric!r} in meta", source=str(file),
                        fix=f"use one of {list(METRICS)}")
    return metric


def _formulas(raw: dict, file: Path) -> list[str]:
    """The suite's predictions as formula strings, each parsed once here."""
    out = []
    for k, pred in enumerate(raw.get("predictions", [])):
        where = f"prediction {k}"
        if isinstance(pred, dict) and pred.get("type") == "formula":
            text = pred.get("formula")
        elif isinstance(pred, dict) and pred.get("relation") in _RELATIONS:
            text = (f"({pred.get('region_number')};%{pred.get('l_operand')}%) "
                    f"{_RELATIONS[pred['relation']]} "
                    f"({pred.get('region_number')};%{pred.get('r_operand')}%)")
        else:
            raise DataError(f"{where} is neither a formula nor a known relation: {pred!r}",
                            source=str(file), fix='give {"type": "formula", "formula": "..."}')
        try:
            parse_prediction(text)
        except FormulaError as err:
            raise DataError(f"{where}: {err}", source=str(file),
                            fix="write the formula in SyntaxGym's language "
                                "(data.loaders.syntaxgym_formula)") from None
        out.append(text)
    return out


def _region_names(raw: dict, file: Path) -> dict[int, str]:
    try:
        names = {int(k): str(v) for k, v in raw["region_meta"].items()}
    except (AttributeError, ValueError):
        raise DataError("region_meta is not a map from region numbers to names",
                        source=str(file)) from None
    if sorted(names) != list(range(1, len(names) + 1)):
        raise DataError(f"region numbers {sorted(names)} are not 1..{len(names)}",
                        source=str(file), column="region_meta",
                        fix="number the regions 1, 2, ... (the schema's contiguous range)")
    return names


def _condition_row(cond: dict, names: dict[int, str], where: dict) -> dict:
    """One condition as a sentence row: SyntaxGym's text and each region's span in it."""
    name = cond.get("condition_name") if isinstance(cond, dict) else None
    if not isinstance(name, str) or not name.strip():
        raise DataError(f"a condition without a condition_name: {str(cond)[:80]}", **where,
                        fix="name every condition")
    regions = cond.get("regions")
    numbers = ([r.get("region_number") if isinstance(r, dict) else None for r in regions]
               if isinstance(regions, list) else None)
    if numbers != list(names):
        raise DataError(f"condition {cond.get('condition_name')!r} has regions {numbers}; "
                        f"region_meta numbers 1..{len(names)}, in order", **where,
                        fix="give every condition each region of region_meta once, in order")
    parts, spans, pos, stripped = [], [], 0, 0
    for r in regions:
        content = r.get("content")
        if not isinstance(content, str):
            raise DataError(f"region {r.get('region_number')} of condition "
                            f"{cond.get('condition_name')!r} has content {content!r}, not a "
                            "string", **where, fix="give each region a (possibly empty) string")
        piece = content.strip()
        stripped += piece != content
        if piece and parts:
            pos += 1  # the joining space
        spans.append([r["region_number"], names[r["region_number"]], pos, pos + len(piece)])
        if piece:
            parts.append(piece)
            pos += len(piece)
    return {"condition": cond.get("condition_name"), "text": " ".join(parts),
            "regions": json.dumps(spans), "stripped": stripped}


def _suite_rows(raw: dict, suite: str, file: Path) -> list[dict]:
    """The sentences of one suite, checked item by item."""
    names, metric = _region_names(raw, file), _metric(raw["meta"], file)
    formulas = _formulas(raw, file)
    rows, conditions, seen = [], None, set()
    for k, item in enumerate(raw["items"]):
        number = item.get("item_number") if isinstance(item, dict) else None
        where = {"source": str(file), "row": f"item {number if number is not None else k}"}
        if not isinstance(number, int) or number in seen:
            raise DataError(f"item_number {number!r} is not a new integer", **where,
                            fix="number the items with distinct integers")
        seen.add(number)
        conds = [_condition_row(c, names, where) for c in item.get("conditions") or []]
        got = [c["condition"] for c in conds]
        if conditions is None:
            conditions = got
        if len(set(got)) != len(got) or set(got) != set(conditions) or not got:
            raise DataError(f"conditions {got}, but the suite's are {conditions}", **where,
                            fix="give every item the same conditions, each once")
        rows += [c | {"suite": suite, "item": number, "metric": metric,
                      "predictions": json.dumps(formulas)} for c in conds]
    if not rows:
        raise DataError("the suite has no items", source=str(file))
    _check_references(formulas, set(conditions), names, file)
    return rows


def _check_references(formulas: list[str], conditions: set[str], names: dict[int, str],
                      file: Path) -> None:
    """Every region a prediction reads exists in the suite."""
    for k, text in enumerate(formulas):
        for region in parse_prediction(text).regions:
            if region.condition not in conditions or (region.number is not None
                                                      and region.number not in names):
                raise DataError(f"prediction {k} ({text!r}) reads {region}, but the suite has "
                                f"conditions {sorted(conditions)} and regions 1..{len(names)}",
                                source=str(file), fix="correct the formula or the suite")


def load_syntaxgym(path: str | os.PathLike | None = None,
                   suites: Iterable[str | os.PathLike] | str | os.PathLike | None = None
                   ) -> Dataset:
    """SyntaxGym test suites as a Dataset of sentences with their regions and predictions.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``suites/<name>.json``; default ``$ACCEPTABILITY_DATA_DIR/syntaxgym``,
        else a checksummed download from github.com/cpllab/syntactic-generalization.
    suites : str, path or iterable of them, optional
        Suite names ([syntaxgym_suites][acceptability.data.syntaxgym_suites]) and/or paths
        of suite JSON files of one's own; all 34 of Hu et al. for None.

    Returns
    -------
    Dataset
        One sentence per item and condition (module docstring), no pairs;
        [syntaxgym_regions][acceptability.data.syntaxgym_regions] and
        [syntaxgym_predictions][acceptability.data.syntaxgym_predictions] read its
        structure back.

    Raises
    ------
    DataError
        Naming the file and item: an unknown suite, a file that is not a suite, an item
        whose conditions or regions differ from the suite's, a region content that is not
        a string, a formula outside SyntaxGym's language or reading a region the suite
        lacks, or two suites of one name.

    Examples
    --------
    A suite file of one's own (the published ones load by name: ``suites="number_prep"``):

    >>> import json, pathlib, tempfile
    >>> from acceptability.data import load_syntaxgym, syntaxgym_regions
    >>> def condition(name, verb):
    ...     return {"condition_name": name, "regions": [{"region_number": 1, "content": "The keys"},
    ...             {"region_number": 2, "content": ""}, {"region_number": 3, "content": verb}]}
    >>> suite = {"meta": {"name": "agr", "metric": "sum"},
    ...          "region_meta": {"1": "subject", "2": "modifier", "3": "verb"},
    ...          "predictions": [{"type": "formula", "formula": "(3;%good%) < (3;%bad%)"}],
    ...          "items": [{"item_number": 1, "conditions": [condition("good", "are"),
    ...                                                      condition("bad", "is")]}]}
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "agr.json"
    >>> _ = file.write_text(json.dumps(suite))
    >>> ds = load_syntaxgym(suites=[file])
    >>> ds.sentences[["sentence_id", "text"]].to_numpy().tolist()
    [['agr:1:good', 'The keys are'], ['agr:1:bad', 'The keys is']]
    >>> syntaxgym_regions(ds).iloc[:3][["name", "content", "start", "end"]].to_numpy().tolist()
    [['subject', 'The keys', 0, 8], ['modifier', '', 8, 8], ['verb', 'are', 9, 12]]
    """
    files = _suite_files(suites, path)
    rows, sums, owner = [], {}, {}
    for f, registered in files:
        raw = _read_json(f)
        suite = raw["meta"].get("name") if isinstance(raw["meta"], dict) else None
        if not isinstance(suite, str) or not suite.strip() or suite in owner:
            raise DataError(f"suite name {suite!r} is missing or also that of {owner.get(suite)}",
                            source=str(f), column="meta.name",
                            fix="give each suite its own meta.name")
        owner[suite] = str(f)
        rows += _suite_rows(raw, suite, f)
        sums[f"suites/{f.name}" if registered else str(f)] = checksum(f)
    fetched = [f for f, registered in files if registered]
    source = (source_folder(NAME, path, fetched[0].parent) if fetched else
              ", ".join(dict.fromkeys(str(f.parent) for f, _ in files)))
    return Dataset(name=NAME, sentences=_sentences(rows), pairs=pd.DataFrame(columns=PAIR_COLUMNS),
                   source=source, checksums=sums)


def _sentences(rows: list[dict]) -> pd.DataFrame:
    raw = pd.DataFrame(rows)
    circuit = raw["suite"].map(syntaxgym_circuits().set_index("suite")["circuit"])
    raw["circuit"] = circuit
    ids = raw["suite"] + ":" + raw["item"].astype(str) + ":" + raw["condition"]
    sentences = pd.DataFrame({"sentence_id": ids, "text": raw["text"], "dataset": NAME,
                              "type_id": raw["suite"] + ":" + raw["condition"],
                              "item": raw["item"], "phenomenon": circuit.fillna(raw["suite"]),
                              "label": np.nan, "human": np.nan, **raw[SUITE_COLUMNS]})
    return validate_sentences(sentences, source=NAME)


def _suite_table(data) -> pd.DataFrame:
    sentences = getattr(data, "sentences", data)
    if not isinstance(sentences, pd.DataFrame):
        raise DataError(f"expected a SyntaxGym Dataset or sentences table, got "
                        f"{type(data).__name__}", fix="pass data.load_syntaxgym(...)")
    require_columns(sentences, ["sentence_id", "text", "item", *SUITE_COLUMNS[:2], "regions",
                                "metric", "predictions"], "SyntaxGym sentences")
    return sentences


def syntaxgym_regions(data) -> pd.DataFrame:
    """The regions of a SyntaxGym dataset, one row per sentence and region.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
        A [load_syntaxgym][acceptability.data.load_syntaxgym] dataset or its sentences.

    Returns
    -------
    pandas.DataFrame
        ``sentence_id, suite, item, condition, region, name, content, start, end``:
        ``content`` is ``text[start:end]`` (empty for an empty region).

    Raises
    ------
    DataError
        For a table without the SyntaxGym columns, or a span outside its sentence.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import syntaxgym_regions
    >>> sentences = pd.DataFrame({"sentence_id": ["s:1:a"], "text": ["The dog barks"],
    ...     "item": [1], "suite": ["s"], "condition": ["a"], "metric": ["sum"],
    ...     "regions": ['[[1, "subj", 0, 7], [2, "adv", 7, 7], [3, "verb", 8, 13]]'],
    ...     "predictions": ["[]"]})
    >>> syntaxgym_regions(sentences)[["region", "name", "content"]].to_numpy().tolist()
    [[1, 'subj', 'The dog'], [2, 'adv', ''], [3, 'verb', 'barks']]
    """
    s = _suite_table(data)
    rows = []
    for sid, text, suite, item, cond, spans in zip(
            s["sentence_id"], s["text"], s["suite"], s["item"], s["condition"], s["regions"],
            strict=True):
        for number, name, start, end in json.loads(spans):
            if not 0 <= start <= end <= len(text):
                raise DataError(f"region {number} spans {start}..{end}, outside the "
                                f"sentence's {len(text)} characters", source="sentences",
                                row=f"sentence {sid!r}", column="regions",
                                fix="reload the suite with data.load_syntaxgym")
            rows.append((sid, suite, item, cond, number, name, text[start:end], start, end))
    return pd.DataFrame(rows, columns=["sentence_id", "suite", "item", "condition", "region",
                                       "name", "content", "start", "end"])


def syntaxgym_predictions(data) -> pd.DataFrame:
    """The predictions of a SyntaxGym dataset's suites, from its sentences' ``predictions``
    and ``metric`` columns.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
        What `syntaxgym_regions` takes.

    Returns
    -------
    pandas.DataFrame
        ``suite, prediction`` (0, 1, ... in the suite's order, syntaxgym-core's ``idx``),
        ``formula``, ``metric``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import syntaxgym_predictions
    >>> sentences = pd.DataFrame({"sentence_id": ["s:1:a"], "text": ["x"], "item": [1],
    ...     "suite": ["s"], "condition": ["a"], "regions": ["[]"], "metric": ["sum"],
    ...     "predictions": ['["(1;%a%) > 0", "(*;%a%) < 9"]']})
    >>> syntaxgym_predictions(sentences).to_numpy().tolist()
    [['s', 0, '(1;%a%) > 0', 'sum'], ['s', 1, '(*;%a%) < 9', 'sum']]
    """
    s = _suite_table(data).drop_duplicates("suite")
    rows = [(suite, k, formula, metric)
            for suite, metric, formulas in zip(s["suite"], s["metric"], s["predictions"],
                                               strict=True)
            for k, formula in enumerate(json.loads(formulas))]
    return pd.DataFrame(rows, columns=["suite", "prediction", "formula", "metric"])


def read_syntaxgym_surprisals(file: str | os.PathLike, metric: str | None = None,
                              model: str | None = None) -> pd.DataFrame:
    """The region values of a suite that SyntaxGym filled in (each region's ``metric_value``,
    as syntaxgym-core's ``syntaxgym run`` writes it), as a region surprisal table.

    Parameters
    ----------
    file : str or os.PathLike
        The filled-in suite JSON file.
    metric : str, optional
        The ``metric_value`` key to read; default the suite's metric (``"sum"`` for
        ``"all"``).
    model : str, optional
        The model column; default the file's ``meta.model``, else its stem.

    Returns
    -------
    pandas.DataFrame
        ``suite, item, condition, region, content, surprisal, metric, model``: the input
        of ``stats.syntaxgym_accuracy`` with the suite's
        [load_syntaxgym][acceptability.data.load_syntaxgym] dataset.

    Raises
    ------
    DataError
        For a region without a finite value of the metric (naming the file and item).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from acceptability.data import read_syntaxgym_surprisals
    >>> regions = [{"region_number": 1, "content": "The dog", "metric_value": {"sum": 9.5}},
    ...            {"region_number": 2, "content": "barks", "metric_value": {"sum": 4.25}}]
    >>> suite = {"meta": {"name": "toy", "metric": "sum", "model": "lstm"},
    ...          "region_meta": {"1": "subject", "2": "verb"}, "predictions": [],
    ...          "items": [{"item_number": 1, "conditions": [
    ...              {"condition_name": "good", "regions": regions}]}]}
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "toy_lstm.json"
    >>> _ = file.write_text(json.dumps(suite))
    >>> read_syntaxgym_surprisals(file)[["region", "content", "surprisal", "model"]].to_numpy().tolist()
    [[1, 'The dog', 9.5, 'lstm'], [2, 'barks', 4.25, 'lstm']]
    """
    file = Path(file)
    raw = _read_json(file)
    metric = metric or _metric(raw["meta"], file)
    model = model or raw["meta"].get("model") or file.stem
    rows = []
    for item in raw["items"]:
        where = {"source": str(file), "row": f"item {item.get('item_number')}"}
        for cond in item.get("conditions", []):
            for r in cond.get("regions", []):
                value = (r.get("metric_value") or {}).get(metric)
                if not isinstance(value, (int, float)) or not np.isfinite(value):
                    raise DataError(f"region {r.get('region_number')} of condition "
                                    f"{cond.get('condition_name')!r} has no finite "
                                    f"metric_value[{metric!r}] ({value!r})", **where,
                                    fix="give a suite that SyntaxGym filled in, or another "
                                        "metric")
                rows.append((raw["meta"]["name"], item["item_number"], cond["condition_name"],
                             r["region_number"], str(r.get("content", "")).strip(),
                             float(value)))
    out = pd.DataFrame(rows, columns=["suite", "item", "condition", "region", "content",
                                      "surprisal"])
    return out.assign(metric=metric, model=model)
