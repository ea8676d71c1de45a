"""The training commands: ``learning-curve``, ``finetune`` and ``training-order``.

Each takes flags or ``--config FILE.toml`` (keys = the flags' names with underscores, e.g.
``shuffles = 10``; flags win; checked as experiment files are: ``from_file``) and writes its tables (CSV), figure (PNG) and a Markdown
summary into ``--out``; rerun with the same settings, it resumes where it stopped.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from acceptability import data
from acceptability.data.errors import DataError
from acceptability.data.io.atomic import write_csv, write_figure

# Each command's settings and their defaults (None: required or computed).
SETTINGS: dict[str, dict[str, Any]] = {
    "learning-curve": {"corpus": "aochildes", "sizes": None, "benchmark": ["zorro", "blimp"],
                       "max_pairs": None, "kind": "causal", "replicates": 1,
                       "save_steps": None},
    "finetune": {"model": None, "train": "cola", "eval": None, "restarts": 10,
                 "until_kept": False, "select_on": "out_of_domain_dev"},
    "training-order": {"model": None, "train": "cola", "test": "li-adger", "shuffles": 10,
                       "seed": 0},
}
COMMON = {"out": None, "epochs": None, "batch_size": None, "learning_rate": None,
          "device": None, "dtype": None}
MODEL_SIZE = ("hidden_size", "layers", "heads", "intermediate_size", "max_length")
LM = {"vocab_size": None, **dict.fromkeys(MODEL_SIZE)}


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The command's settings: defaults, then the TOML file, then flags given; the file's
    and the flags' values checked against ``experiment_schema.TRAINING`` before anything
    runs, the file's paths relative to its folder (``from_file``)."""
    from acceptability.reports.cli import experiment_schema as schema

    known = {**COMMON, **SETTINGS[args.command],
             **(LM if args.command == "learning-curve" else {})}
    merged = dict(known)
    if args.config:
        merged.update(from_file(Path(args.config), args.command))
    flags = {k: v for k, v in vars(args).items() if k in known and v is not None}
    schema.check_flags(flags, schema.training_keys(args.command))
    merged.update(flags)
    missing = [k for k in ("out", "model", "sizes") if k in known and merged.get(k) is None]
    if missing:
        raise DataError(f"{args.command} needs {', '.join('--' + m.replace('_', '-') for m in missing)}",
                        fix="give it as a flag or in the --config file")
    return merged


def from_file(path: Path, command: str) -> dict[str, Any]:
    """The settings ``command``'s TOML file sets, every key checked as an experiment
    file's (``experiment_schema.read_training``); ``out``, the data files and a corpus
    file relative to the file's folder, ``~`` the home, and ``model`` as an experiment
    file's models (``experiment.resolve_model``: a local-looking path that is not there
    is refused, never sent to the hub)."""
    from acceptability.reports.cli import experiment_schema as schema
    from acceptability.reports.cli.experiment import HUB, beside, resolve_model

    values = schema.read_training(schema.load(path, "settings file"), command, str(path))
    for key, names in (("out", ()), ("corpus", ("aochildes",)), ("train", ("cola",)),
                       ("test", ("li-adger",))):
        if key in values and values[key] not in names:
            values[key] = str(beside(path, values[key]))
    if "eval" in values:
        values["eval"] = [str(beside(path, f)) for f in values["eval"]]
    if "model" in values:  # "hub:owner/name" says the hub (docs/training.md)
        values["model"] = resolve_model(values["model"], path).removeprefix(HUB)
    return values


def _options(s: dict[str, Any]) -> dict[str, Any]:
    """Training options given (the rest keep scoring.training's defaults)."""
    keys = ["epochs", "batch_size", "learning_rate", "device", "dtype", "vocab_size"]
    options = {k: s[k] for k in keys if s.get(k) is not None}
    size = {k: s[k] for k in MODEL_SIZE if s.get(k) is not None}
    return {**options, "size": size} if size else options


def corpus_texts(corpus: str) -> list[str]:
    """'aochildes' (data.load_childes) or a text file with one utterance per line."""
    if corpus == "aochildes":
        return list(data.load_childes()["text"])
    path = Path(corpus)
    if not path.is_file():
        raise DataError(f"corpus {corpus!r} is neither 'aochildes' nor a text file",
                        fix="give a file with one utterance or sentence per line")
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def labelled_dataset(source: str, split: str | None = None):
    """'cola' (its split), 'li-adger', or a sentences file (CSV/TSV/Parquet with
    sentence_id, text and label; docs/tables.md)."""
    if source == "cola":
        return data.load_cola(split=split or "in_domain_train")
    if source == "li-adger":
        return data.load_li_adger()
    return data.read_dataset(source)


def cmd_learning_curve(args: argparse.Namespace) -> int:
    """Train small LMs from scratch on nested subsets of a corpus, score benchmarks with each
    and fit accuracy per phenomenon on log2 of the training words (BLiMP §6.3, Fig 5)."""
    from acceptability.reports.cli.experiment import head_pairs
    from acceptability.reports.cli.training_experiments import curve_slopes, learning_curve
    from acceptability.reports.figures import learning_curve_figure

    s = settings(args)
    loaders = {"zorro": data.load_zorro, "blimp": data.load_blimp}
    benchmarks = {}
    for name in s["benchmark"]:
        if name not in loaders:
            raise DataError(f"unknown benchmark {name!r}", fix="use zorro and/or blimp")
        ds = loaders[name]()
        benchmarks[name] = head_pairs(ds, s["max_pairs"]) if s["max_pairs"] else ds
    out = Path(s["out"])
    curve = learning_curve(corpus_texts(s["corpus"]), s["sizes"], benchmarks, out,
                           kind=s["kind"], replicates=s["replicates"],
                           save_steps=s["save_steps"], **_options(s))
    slopes = curve_slopes(curve)
    write_csv(slopes, out / "slopes.csv", index=False)
    write_figure(learning_curve_figure(curve, slopes), out / "learning_curve.png", dpi=150)
    print(slopes.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0


def cmd_finetune(args: argparse.Namespace) -> int:
    """Fine-tune a binary acceptability classifier with restarts, drop degenerate runs and
    select the best on a held-out split (thesis §2.2, Table 2.1). With CoLA (the default):
    trained on in_domain_train, selected on out_of_domain_dev, MCC also on
    out_of_domain_test and by the analysis sets' features (Figs 2-1/2-2)."""
    from acceptability.reports.cli.training_experiments import finetune_restarts

    s = settings(args)
    if s["eval"]:
        evaluate = {Path(f).name.split(".")[0]: data.read_dataset(f) for f in s["eval"]}
        analysis = {}
    elif s["train"] == "cola":
        evaluate = {k: data.load_cola(split=k) for k in ("out_of_domain_dev",
                                                         "out_of_domain_test")}
        analysis = {k: data.load_cola(split=k) for k in ("analysis_major", "analysis_minor")}
    else:
        raise DataError("finetune --train FILE needs --eval FILE (the split to select on)",
                        fix="add --eval dev.csv --select-on dev")
    result = finetune_restarts(s["model"], labelled_dataset(s["train"]), evaluate, s["out"],
                               restarts=s["restarts"], until_kept=s["until_kept"],
                               select_on=s["select_on"], analysis=analysis,
                               **_options(s))
    print(result.summary.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"selected: {result.selected}")
    return 0


def cmd_training_order(args: argparse.Namespace) -> int:
    """Fine-tune one initialisation in K training orders and count the test sentences whose
    predicted label flips (thesis §2.3, Fig 2-3)."""
    from acceptability.reports.cli.training_experiments import training_order
    from acceptability.reports.figures import flip_figure

    s = settings(args)
    result = training_order(s["model"], labelled_dataset(s["train"]),
                            labelled_dataset(s["test"]), s["out"], shuffles=s["shuffles"],
                            seed=s["seed"], **_options(s))
    write_figure(flip_figure(result.curve), Path(s["out"]) / "flips.png", dpi=150)
    print(result.curve.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


def add_commands(sub: Any) -> None:
    """The three training subcommands on the main parser's subparsers."""
    lc = sub.add_parser("learning-curve", help="LMs trained on nested corpus subsets, scored "
                        "on benchmarks (BLiMP §6.3)", description=cmd_learning_curve.__doc__)
    lc.add_argument("--corpus", help="'aochildes' (default) or a text file, one utterance a line")
    lc.add_argument("--sizes", type=int, nargs="+", metavar="WORDS",
                    help="training sizes in words, e.g. 75000 150000 300000 600000")
    lc.add_argument("--benchmark", action="append", choices=["zorro", "blimp"],
                    help="benchmark to score (repeatable; default: zorro and blimp)")
    lc.add_argument("--max-pairs", type=int, metavar="N",
                    help="the first N pairs of each paradigm (a quicker curve)")
    lc.add_argument("--kind", choices=["causal", "masked"], help="model kind (default causal)")
    lc.add_argument("--replicates", type=int, help="shuffles of the corpus (default 1)")
    lc.add_argument("--save-steps", type=int, help="also score a checkpoint every N steps")
    lc.add_argument("--vocab-size", type=int, help="tokenizer vocabulary (default 8192)")
    for name in MODEL_SIZE:
        lc.add_argument(f"--{name.replace('_', '-')}", type=int, help="model size setting")
    lc.set_defaults(func=cmd_learning_curve)

    ft = sub.add_parser("finetune", help="fine-tune an acceptability classifier on CoLA with "
                        "restarts (thesis Table 2.1)", description=cmd_finetune.__doc__)
    ft.add_argument("--model", help="hub id or local folder to start from")
    ft.add_argument("--train", help="'cola' (default) or a sentences file with sentence_id, "
                                    "text and label")
    ft.add_argument("--eval", action="append", metavar="FILE",
                    help="a labelled sentences file to evaluate on, named by its file name "
                         "without extension (repeatable; default with cola: its "
                         "out-of-domain dev and test sets)")
    ft.add_argument("--restarts", type=int, help="seeds to train (default 10)")
    ft.add_argument("--until-kept", action="store_true", default=None,
                    help="go on until --restarts runs are not degenerate")
    ft.add_argument("--select-on", help="split to select the best run on "
                                        "(default out_of_domain_dev)")
    ft.set_defaults(func=cmd_finetune)

    to = sub.add_parser("training-order", help="fine-tune one initialisation in K training "
                        "orders; count flipping predictions (thesis Fig 2-3)",
                        description=cmd_training_order.__doc__)
    to.add_argument("--model", help="hub id or local folder to start from")
    to.add_argument("--train", help="'cola' (default) or a sentences file with "
                                    "sentence_id, text and label")
    to.add_argument("--test", help="'li-adger' (default) or a sentences file with "
                                   "sentence_id, text and label")
    to.add_argument("--shuffles", type=int, help="training orders (default 10)")
    to.add_argument("--seed", type=int, help="seed of the one initialisation (default 0)")
    to.set_defaults(func=cmd_training_order)

    for p in (lc, ft, to):
        p.add_argument("--config", metavar="TOML", help="settings file (flags win)")
        p.add_argument("--out", help="output folder")
        lm = p is lc
        p.add_argument("--epochs", type=float,
                       help=f"training epochs (default {5 if lm else 3})")
        p.add_argument("--batch-size", type=int,
                       help=f"training batch size (default {16 if lm else 32}"
                            f"{' blocks of 128 tokens' if lm else ' sentences'})")
        p.add_argument("--learning-rate", type=float,
                       help=f"peak learning rate (default {'1e-3' if lm else '2e-5'})")
        p.add_argument("--device", help="cpu, cuda, ... (default: the best available)")
        p.add_argument("--dtype", choices=["float32", "bfloat16"],
                       help="default: bfloat16 where the hardware has it natively")
