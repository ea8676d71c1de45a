"""Random tables through every loader and ``evaluate`` (issue 30, "Done when"): ids with
whitespace and control characters, extreme and non-finite numbers, quoted newlines and
empty cells, written as CSV. Each table either raises a DataError that names the file, a
row whose record starts on that line and holds a bad cell in that column, or loads; then
``evaluate``'s metrics equal a recomputation written here over the rows it reports kept."""

from __future__ import annotations

import csv
import decimal
import io
import math
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acceptability import data, stats
from acceptability.data import DataError
from acceptability.stats.metrics import FLAT

CONTROL = ["\x00", "\n", "\t", "\x1b", "\x7f", "\x85"]
QUARTERS = [k / 4 for k in range(-12, 13)]
EXTREME = ["1e308", "-1.7e308", "1e200", "3e-310", "-5e-324"]
NON_FINITE = ["inf", "-inf", "Infinity", "1e999", "abc"]


def _number(finite: list, dirty: bool, extreme: list[str] = EXTREME) -> st.SearchStrategy[str]:
    """A number as a CSV cell: finite, empty, extreme (``extreme``), and where ``dirty``
    also non-finite, non-numeric or any extreme value."""
    rare = [""] + extreme + (EXTREME + NON_FINITE) * dirty
    return st.one_of(*[st.sampled_from([repr(v) for v in finite])] * 6, st.sampled_from(rare))


def _ident(base: str, dirty: bool = True) -> st.SearchStrategy[str]:
    """An id: plain, padded with whitespace (kept after stripping), and where ``dirty``
    also blank or holding a control character inside (refused)."""
    padded = st.sampled_from([" ", "\t", "  "]).map(lambda w: w + base + w)
    if not dirty:
        return st.one_of(st.just(base), st.just(base), padded)
    return st.one_of(*[st.just(base)] * 12, padded, st.sampled_from(["", " "]),
                     st.sampled_from(CONTROL).map(lambda c: base[:1] + c + base[1:]))


@st.composite
def tables(draw) -> dict:
    """Sentences, pairs and two models' scores; a clean draw (two in five) holds nothing
    the loaders must refuse, a dirty one may hold anything in one of the tables."""
    table = draw(st.sampled_from([None, None, "sentences", "pairs", "scores"]))
    dirty = {name: name == table for name in ("sentences", "pairs", "scores")}
    ids = {name: dirty[name] and draw(st.booleans()) for name in dirty}  # bad ids or values
    n_pairs = draw(st.integers(2, 6))
    n = 2 * n_pairs
    text = st.sampled_from([f"t{i}." for i in range(3)] + ["line\n1.", ""][
        : 1 + dirty["sentences"]])
    sent = {"sentence_id": [draw(_ident(f"s{i}", ids["sentences"])) for i in range(n)],
            "text": [draw(text) for i in range(n)], "label": [],
            "human": [draw(_number(QUARTERS, dirty["sentences"] and not ids["sentences"],
                                   ["3e-310", "-5e-324"]))
                      for _ in range(n)]}
    for _ in range(n_pairs):
        swap = dirty["pairs"] and draw(st.integers(0, 3)) == 0
        good, bad = ("0", "1") if swap else ("1", "0")
        sent["label"] += [draw(st.sampled_from([good, good, ""])),
                          draw(st.sampled_from([bad, bad, ""]))]
    pairs = {"pair_id": [draw(_ident(f"p{k}", ids["pairs"])) for k in range(n_pairs)],
             "good_id": [f"s{2 * k}" for k in range(n_pairs)],
             "bad_id": [f"s{2 * k + 1}" for k in range(n_pairs)]}
    scores = {"sentence_id": [], "model": [], "score": []}
    for model in ("m1", "m2"):
        for i in range(n):
            if draw(st.integers(0, 9)) == 0:
                continue  # no row: the sentence is unscored
            scores["sentence_id"].append(draw(_ident(f"s{i}", ids["scores"])))
            scores["model"].append(draw(_ident(model, ids["scores"])))
            scores["score"].append(draw(_number([q - 20 for q in QUARTERS] + [-7.0],
                                                dirty["scores"] and not ids["scores"])))
    return {"sentences": sent, "pairs": pairs, "scores": scores}


def _write(folder: Path, name: str, table: dict) -> tuple[Path, list[int]]:
    """The table as CSV, and the line where each record starts."""
    buffer, lines, line = io.StringIO(), [], 2
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(table)
    for row in zip(*table.values(), strict=True):
        start = buffer.tell()
        writer.writerow(row)
        lines.append(line)
        line += buffer.getvalue()[start:].count("\n")
    (folder / name).write_text(buffer.getvalue())
    return folder / name, lines


def _id_bad(value: str) -> bool:
    return not value.strip() or any(c in value.strip() for c in CONTROL)


def _number_bad(value: str, limit: float = math.inf) -> bool:
    try:
        x = float(value) if value.strip() else 0.0
    except ValueError:
        return True
    return not math.isfinite(x) or abs(x) > limit


def _bad_cells(tab: dict) -> set[tuple[str, str, int]]:
    """(table, column, record) of every cell the loaders must refuse."""
    s, p, sc = tab["sentences"], tab["pairs"], tab["scores"]
    bad = {("sentences", "sentence_id", i) for i, v in enumerate(s["sentence_id"]) if _id_bad(v)}
    bad |= {("sentences", "text", i) for i, v in enumerate(s["text"]) if not v.strip()}
    bad |= {("sentences", "human", i) for i, v in enumerate(s["human"]) if _number_bad(v, 1000)}
    label = s["label"]
    bad |= {("pairs", "pair_id", k) for k, v in enumerate(p["pair_id"]) if _id_bad(v)}
    bad |= {("pairs", "good_id", k) for k in range(len(p["pair_id"]))
            if (label[2 * k], label[2 * k + 1]) == ("0", "1")}
    for col in ("sentence_id", "model"):
        bad |= {("scores", col, r) for r, v in enumerate(sc[col]) if _id_bad(v)}
    bad |= {("scores", "score", r) for r, v in enumerate(sc["score"]) if _number_bad(v)}
    return bad


def _one_sign(human: list[str]) -> bool:
    known = [float(v) for v in human if v.strip()]
    return len(known) >= 2 and (min(known) >= 0 or max(known) <= 0)


def _check_error(err: DataError, name: str, lines: list[int], bad: set, tab: dict) -> None:
    message = str(err)
    assert message.startswith(str(err.source)) and err.source.endswith(f"{name}.csv"), message
    if err.row is None and name == "sentences" and err.column == "human":
        assert _one_sign(tab["sentences"]["human"]) and "all of one sign" in message
        return
    line = int(str(err.row).removesuffix(" (line)"))
    assert (name, err.column, lines.index(line)) in bad, (message, sorted(bad))


def _exact_z(values: dict[str, float]) -> dict[str, float]:
    xs = {k: Fraction(v) for k, v in values.items()}
    mean = sum(xs.values()) / len(xs)
    var = sum((x - mean) ** 2 for x in xs.values()) / len(xs)
    if var == 0:
        return dict.fromkeys(xs, math.nan)
    with decimal.localcontext(prec=60):
        sd = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
        return {k: float(Decimal((x - mean).numerator) / Decimal((x - mean).denominator) / sd)
                for k, x in xs.items()}


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    ok = ~(np.isnan(x) | np.isnan(y))
    x, y = x[ok], y[ok]
    if len(x) < 3:
        return math.nan
    cx, cy = x - x.mean(), y - y.mean()
    if (cx @ cx) <= FLAT * (x @ x) or (cy @ cy) <= FLAT * (y @ y):
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def _recompute(ds: data.Dataset, tab: dict, model: str) -> dict:
    """The metrics of ``model`` by hand from the rows of the files."""
    sc = tab["scores"]
    raw = {i.strip(): float(v) for i, m, v in zip(sc["sentence_id"], sc["model"], sc["score"],
                                                  strict=True) if m.strip() == model and v}
    z = _exact_z(raw) if raw else {}
    s = ds.sentences.set_index("sentence_id")
    zs = s.index.map(lambda i: z.get(i, math.nan)).to_numpy(float)
    human, label = s["human"].to_numpy(float), s["label"].to_numpy(float)
    p = ds.pairs
    zg, zb = p["good_id"].map(pd.Series(zs, s.index)), p["bad_id"].map(pd.Series(zs, s.index))
    dlm = (zg - zb).to_numpy(float)
    dh = (p["good_id"].map(s["human"]) - p["bad_id"].map(s["human"])).to_numpy(float)
    kept, both = ~np.isnan(dlm), ~np.isnan(dlm) & ~np.isnan(dh)
    out = {"n_pairs": int(kept.sum()), "n_pairs_human": int(both.sum()),
           "n_sentences": int((~np.isnan(zs)).sum()),
           "blimp": float(np.mean(dlm[kept] > 0)) if kept.any() else math.nan,
           "r_sentence": _pearson(human, zs), "r_pair": _pearson(dh, dlm)}
    for delta in (0.5, 1.0, 5.0):
        ok = (np.sign(dh) == np.sign(dlm)) & (np.abs(dh - dlm) < delta)
        out[f"adc_{delta:g}"] = float(ok[both].mean()) if both.any() else math.nan
    labelled = ~np.isnan(label) & ~np.isnan(zs)
    pred = np.where(np.isnan(zs), math.nan, (zs > 0).astype(float))
    r = _pearson(pred[labelled], label[labelled])
    flat_label = math.isnan(_pearson(label[labelled], label[labelled]))
    out["mcc"] = 0.0 if math.isnan(r) and not flat_label else r
    unscored = int(np.isnan(s.index.map(lambda i: raw.get(i, math.nan)).to_numpy(float)).sum())
    flat = bool(raw) and len(set(raw.values())) == 1
    reasons = ["constant scores (SD 0): no z-scores"] * flat + [
        f"no score for {unscored} sentence{'s' * (unscored > 1)}"] * bool(unscored)
    if len(human) and np.isnan(human).all():  # the metrics of human judgments: why NaN
        reasons.append("no human judgments (no human values and no trial-level ratings): "
                       "ADC, r_sentence and r_pair undefined")
    elif len(dh) and np.isnan(dh).all():
        reasons.append("no pair has human judgments of both its sentences: ADC and r_pair "
                       "undefined")
    out["excluded_because"] = "; ".join(reasons)
    return out


def _load(tab: dict, folder: Path):
    """The dataset and scores, or the DataError and the file it names."""
    bad = _bad_cells(tab)
    files = {name: _write(folder, f"{name}.csv", tab[name]) for name in tab}
    try:
        ds = data.read_dataset(files["sentences"][0], files["pairs"][0])
        scores = data.read_scores(files["scores"][0], ds)
    except DataError as err:
        name = Path(str(err.source)).stem
        _check_error(err, name, files[name][1], bad, tab)
        return None
    assert not bad, f"loaded although {sorted(bad)} are bad"
    assert not _one_sign(tab["sentences"]["human"])
    return ds, scores


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_random_tables_raise_a_located_error_or_give_recomputable_metrics(tab):
    with tempfile.TemporaryDirectory() as tmp:
        loaded = _load(tab, Path(tmp))
    if loaded is None:
        return
    ds, scores = loaded
    assert ds.sentences["sentence_id"].tolist() == [f"s{i}" for i in range(len(ds.sentences))]
    table = stats.evaluate(ds, scores).set_index("model")
    for model in table.index:
        expected = _recompute(ds, tab, model)
        got = table.loc[model]
        for key, value in expected.items():
            if isinstance(value, float):
                assert math.isclose(got[key], value, rel_tol=1e-9, abs_tol=1e-12) or (
                    math.isnan(got[key]) and math.isnan(value)), (model, key, got[key], value)
            else:
                assert got[key] == value, (model, key, got[key], value)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_ident("w"), _ident("p")), min_size=1, max_size=6))
def test_trials_ids_are_stripped_or_refused_naming_row_and_column(ids):
    trials = pd.DataFrame(ids, columns=["participant", "pair_id"]).assign(chose_good=1)
    bad = {(col, r) for col in ("participant", "pair_id")
           for r, v in enumerate(trials[col]) if _id_bad(v)}
    try:
        out = data.validate_trials(trials)
    except DataError as err:
        assert (err.column, err.row) in bad, str(err)
        return
    assert not bad
    assert out["participant"].tolist() == [v.strip() for v, _ in ids]
