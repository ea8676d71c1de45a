"""Training experiments end to end with tiny models (hidden size 32, 2 layers) on the real
corpora: LMs trained from scratch and resumed, fine-tuning restarts with a forced
degenerate run, the training-order experiment and a learning curve with its slopes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import data, scoring
from acceptability.reports.cli import training_experiments as rt
from acceptability.reports.cli.experiment import head_pairs
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.training.lm import finetune, train_lm
from tests.conftest import need_data

TINY = {"hidden_size": 32, "layers": 2, "heads": 2, "intermediate_size": 64, "max_length": 64}
FAST = {"size": TINY, "vocab_size": 400, "epochs": 1, "batch_size": 32, "progress": False}


@pytest.fixture(scope="module")
def childes() -> list[str]:
    need_data("aochildes")
    return list(data.load_childes()["text"])


@pytest.fixture(scope="module")
def base(childes, tmp_path_factory) -> str:
    """A tiny masked LM trained on the corpus: the model the classifiers start from."""
    out = tmp_path_factory.mktemp("base") / "masked"
    return str(train_lm(childes[:2000], out, kind="masked", **{**FAST, "vocab_size": 1000,
                                                              "size": {**TINY, "max_length": 128}}))


@pytest.fixture(scope="module")
def cola():
    need_data("cola")
    return {split: data.load_cola(split=split) for split in
            ("in_domain_train", "out_of_domain_dev", "out_of_domain_test", "analysis_major")}


def _first(ds, n: int):
    return ds.subset(sentence_ids=ds.sentences["sentence_id"].iloc[:n])


def _model_files(folder) -> bytes:
    return (folder / "model.safetensors").read_bytes()


@pytest.mark.parametrize("kind, method", [("causal", "logprob"), ("masked", "pll")])
def test_train_lm_scores_and_resumes(tmp_path, childes, kind, method):
    texts = childes[:1000]
    opts = {**FAST, "batch_size": 4}
    whole = train_lm(texts, tmp_path / "whole", kind=kind, save_steps=10, **opts)
    record = json.loads((whole / "training.json").read_text())
    steps = -(-record["n_blocks"] // 4)
    assert 20 < steps < 60 and record["steps"] == steps
    saved = sorted({*range(10, steps + 1, 10), steps})
    assert record["checkpoints"] == [f"checkpoint-{k}" for k in saved]
    assert record["n_texts"] == 1000 and record["dtype"] in ("bfloat16", "float32")
    # the final model and every checkpoint are model folders that scoring reads
    for folder in (whole, whole / "checkpoints" / "checkpoint-10"):
        sc = scoring.score(["the dog is here .", "here dog the is ."], model=str(folder),
                           method=method, cache=False, progress=False)
        assert np.isfinite(sc["score"]).all()
    # asked again: nothing is retrained
    stamp = (whole / "training.json").stat().st_mtime_ns
    train_lm(texts, tmp_path / "whole", kind=kind, save_steps=10, **opts)
    assert (whole / "training.json").stat().st_mtime_ns == stamp
    # interrupted after its last checkpoint but one: resumes from it to the same weights
    cut = tmp_path / "cut"
    train_lm(texts, cut, kind=kind, save_steps=10, **opts)
    for name in ("training.json", "model.safetensors"):
        (cut / name).unlink()
    shutil.rmtree(cut / "checkpoints" / f"checkpoint-{steps}")
    train_lm(texts, cut, kind=kind, save_steps=10, **opts)
    resumed = json.loads((cut / "training.json").read_text())
    assert resumed["resumed"] is True and resumed["steps"] == steps
    if kind == "causal":
        assert _model_files(cut) == _model_files(whole)
    # masked: the collator draws each batch's masks one batch ahead of the checkpoint's
    # random state, so the resumed run masks differently from there (scoring.training)


def test_finetune_restarts_drop_a_forced_degenerate_run(tmp_path, base, cola, monkeypatch):
    import torch
    from transformers import AutoModelForSequenceClassification

    real = rt.finetune

    def forced(model, train, out, *, seed, **kw):
        """Seed 1's classifier gets a head bias that makes it say 'acceptable' to everything."""
        folder = real(model, train, out, seed=seed, **kw)
        if seed == 1:
            net = AutoModelForSequenceClassification.from_pretrained(folder)
            head = getattr(net.classifier, "out_proj", net.classifier)  # RoBERTa's head
            with torch.no_grad():
                head.bias[:] = torch.tensor([-100.0, 100.0])
            net.save_pretrained(folder)
        return folder

    monkeypatch.setattr(rt, "finetune", forced)
    train = _first(cola["in_domain_train"], 400)
    evaluate = {"train": train, "out_of_domain_dev": cola["out_of_domain_dev"]}
    result = rt.finetune_restarts(base, train, evaluate, tmp_path / "runs", restarts=3,
                                  select_on="train", analysis={"major": cola["analysis_major"]},
                                  epochs=8, learning_rate=3e-3, progress=False)
    row = result.summary.set_index("split").loc["train"]
    assert row["n_runs"] == 2 and row["n_degenerate"] == 1
    assert result.summary.attrs["degenerate_runs"] == ["seed-1"]
    assert result.selected.name in ("seed-0", "seed-2")
    # the selected run is a classifier folder scoring reads; its MCC is Table 2.1's "selected"
    pred = rt.classifier_predictions(result.selected, {"train": evaluate["train"]}, cache=False)
    from sklearn.metrics import matthews_corrcoef
    assert row["selected"] == pytest.approx(matthews_corrcoef(pred["label"], pred["prediction"]))
    assert set(result.features["split"]) == {"major"}
    assert (tmp_path / "runs" / "summary.csv").is_file()


def test_training_order_flips_and_resume(tmp_path, base, cola, monkeypatch):
    need_data("li-adger")
    train = _first(cola["in_domain_train"], 300)
    test = _first(data.load_li_adger(), 200)
    result = rt.training_order(base, train, test, tmp_path / "order", shuffles=3, seed=0,
                               epochs=2, learning_rate=3e-3, progress=False)
    wide = result.predictions.pivot(index="sentence_id", columns="shuffle", values="prediction")
    flipped = ((wide[2] != wide[1]) | (wide[3] != wide[2])).sum()
    assert result.curve["acrobatic"].tolist()[-1] == flipped
    assert not (tmp_path / "order" / "shuffle-1").exists()  # models removed, predictions kept
    # a rerun reads the saved predictions and trains nothing
    monkeypatch.setattr(rt, "finetune", lambda *a, **k: pytest.fail("retrained"))
    again = rt.training_order(base, train, test, tmp_path / "order", shuffles=3, seed=0,
                              epochs=2, learning_rate=3e-3)
    pd.testing.assert_frame_equal(again.curve, result.curve)
    # other settings in the same folder: refused, not answered with the saved predictions
    with pytest.raises(ScoringError, match="holds a training run with other settings"):
        rt.training_order(base, train, test, tmp_path / "order", shuffles=3, seed=0, epochs=1)


def test_shuffles_share_one_initialisation(tmp_path, base, cola):
    """Thesis §2.3: the order seed changes the training order and nothing else."""
    train = cola["in_domain_train"].sentences.iloc[:64]
    a = finetune(base, train, tmp_path / "a", seed=0, order_seed=1, epochs=1, progress=False)
    b = finetune(base, train, tmp_path / "b", seed=0, order_seed=1, epochs=1, progress=False)
    c = finetune(base, train, tmp_path / "c", seed=0, order_seed=2, epochs=1, progress=False)
    assert _model_files(a) == _model_files(b) != _model_files(c)


def test_learning_curve_and_its_slopes(tmp_path, childes):
    need_data("zorro")
    zorro = head_pairs(data.load_zorro(paradigms=["agreement_subject_verb-across_prepositional_phrase",
                                                  "island-effects-adjunct_island"]), 20)
    sizes = [1000, 2000, 4000]
    curve = rt.learning_curve(childes, sizes, {"zorro": zorro}, tmp_path / "lc",
                              save_steps=4, **{**FAST, "batch_size": 4})
    final = curve[curve["final"]]
    # the checkpoints are scored too: every 4 steps, then the final model
    steps = curve[curve["n_words"] == 4000].groupby("step")["final"].first()
    assert list(steps.index[:-1]) == list(range(4, steps.index[-1], 4)) and steps.iloc[-1]
    assert sorted(final["n_words"].unique()) == sizes
    assert (final.groupby("n_words")["n_pairs"].sum() == 40).all()
    # the nested subsets: each size is a prefix of the next
    subsets = rt.nested_subsets(childes, sizes)
    assert all(a == b[: len(a)] for a, b in zip(subsets, subsets[1:], strict=False))
    assert all(sum(len(t.split()) for t in s) >= n for s, n in zip(subsets, sizes, strict=True))
    # slopes per doubling, against a hand computation of OLS on log2(words)
    slopes = rt.curve_slopes(curve).set_index("phenomenon")
    for phen, part in final.groupby("phenomenon"):
        x, y = np.log2(part["n_words"].to_numpy(float)), part["accuracy"].to_numpy(float)
        sxx = ((x - x.mean()) ** 2).sum()
        slope = ((x - x.mean()) * (y - y.mean())).sum() / sxx
        resid = y - (y.mean() + slope * (x - x.mean()))
        se = np.sqrt((resid ** 2).sum() / (len(x) - 2) / sxx)
        half = sps.t.ppf(0.975, len(x) - 2) * se
        got = slopes.loc[phen]
        assert got["slope"] == pytest.approx(slope, abs=1e-12)
        assert (got["lower"], got["upper"]) == pytest.approx((slope - half, slope + half),
                                                             abs=1e-12)


def test_bad_training_input(tmp_path, base, cola):
    ones = cola["in_domain_train"].sentences.query("label == 1").iloc[:50]
    with pytest.raises(ScoringError, match="only label 1 .* needs acceptable"):
        finetune(base, ones, tmp_path / "x", progress=False)
    with pytest.raises(ScoringError, match="training corpus is empty"):
        train_lm(["", "  "], tmp_path / "y", progress=False)
    from transformers import ViTConfig
    ViTConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
              intermediate_size=64).save_pretrained(tmp_path / "vit")
    with pytest.raises(ScoringError, match="no sequence-classification head"):
        finetune(str(tmp_path / "vit"), cola["in_domain_train"].sentences.iloc[:50],
                 tmp_path / "z", progress=False)
    with pytest.raises(ScoringError, match="fewer than the largest size"):
        rt.nested_subsets(["a b c"], [10])
