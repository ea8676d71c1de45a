"""The ``acceptability`` command line: ``acceptability <command> --help`` for each.

Bad input (unknown dataset or model, a delta out of range, an unreadable file) prints one
line and exits with status 2; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import shlex
import sys
import warnings
from pathlib import Path
from typing import NoReturn

from acceptability.data.errors import DataError
from acceptability.reports.cli import training as training_cli
from acceptability.reports.cli.choices import DATASETS, DTYPES, LEVELS
from acceptability.scoring.registry import METHODS, NORMALISATIONS
from acceptability.stats.defaults import (
    DEFAULT_DELTAS,
    DEFAULT_FORMULA,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
    NORMINGS,
)

EXAMPLES = """\
examples:
  acceptability demo
  acceptability evaluate --dataset li-adger --scores published
  acceptability score --dataset li-adger --model gpt2 --method logprob --out gpt2.parquet
  acceptability report --dataset li-adger --scores gpt2.parquet --out report/gpt2
  acceptability run --dataset li-adger --scores published --out report/li-adger
  acceptability run --config examples/experiment.toml
  acceptability evaluate --sentences my_sentences.csv --pairs my_pairs.csv --scores my_scores.csv
  acceptability run --sentences my_sentences.csv --pairs my_pairs.csv \\
      --model gpt2:logprob --model bert-base-uncased:pll --out report/mine
  acceptability report --dataset blimp --paradigm adjunct_island --scores blimp_scores.csv
  acceptability run --dataset syntaxgym --suite number_prep --suite mvrr --model gpt2 \\
      --out report/syntaxgym
  acceptability learning-curve --sizes 75000 150000 300000 600000 --out curves/
  acceptability finetune --model bert-base-uncased --restarts 10 --out cola-runs/
  acceptability training-order --model bert-base-uncased --shuffles 200 --out order/

Data are read from $ACCEPTABILITY_DATA_DIR/<dataset> (or --data-path), else downloaded.
"""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (no usage dump)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _delta(text: str) -> float:
    from acceptability.reports.cli.experiment import check_delta

    try:
        return check_delta(text)
    except DataError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _command(args: argparse.Namespace) -> str:
    """The command line as typed, for the reproducibility block."""
    return shlex.join(["acceptability", *args.argv])


def _models_and_method(args: argparse.Namespace) -> tuple[tuple[str, ...], str | None]:
    """--model and --method: one --method for every model, or one per --model in order
    (then each model becomes ``model:method``)."""
    from acceptability.reports.cli.experiment import model_method

    models, methods = tuple(getattr(args, "model", None) or ()), getattr(args, "method", None)
    if not methods or len(methods) == 1:
        return models, methods[0] if methods else None
    if len(methods) != len(models):
        raise DataError(f"{len(methods)} --method for {len(models)} --model",
                        fix="give one --method for all models, or one per --model in the same "
                            "order, or write --model NAME:METHOD")
    specs = []
    for model, method in zip(models, methods, strict=True):
        name, own = model_method(model, method)
        if own != method:
            raise DataError(f"--model {model} names method {own!r} but its --method is "
                            f"{method!r}", fix="give the method once")
        specs.append(f"{name}:{method}")
    return tuple(specs), None


def _experiment(args: argparse.Namespace, **fixed):
    """An Experiment from the flags given (others keep their defaults)."""
    from acceptability.reports.cli.experiment import Experiment, from_toml

    if getattr(args, "sentences", None) and getattr(args, "dataset", None):
        raise DataError("--dataset and --sentences both name the data",
                        fix="give one: a named dataset, or your own --sentences [--pairs]")
    if getattr(args, "config", None):
        base = from_toml(args.config, trust_remote_code=bool(getattr(args, "trust_remote_code",
                                                                      None)))
        if getattr(args, "dataset", None):  # a flag overrides the file's own data
            base = dataclasses.replace(base, dataset=args.dataset, sentences=None, pairs=None,
                                       ratings=None, scale=None, columns=None,
                                       suites=base.suites if args.dataset == base.dataset
                                       else ())
    else:
        scoring = args.command == "score" or (args.command == "run" and args.scores is None
                                              and bool(args.model))
        base = Experiment(scores=None if scoring else "published",
                          models=tuple(args.model or ()))
    names = ("dataset", "data_path", "max_pairs", "max_sentences", "sentences", "pairs",
             "ratings", "scale", "human_scale", "scores", "revision", "norming",
             "dtype", "recheck", "normalise", "unigram", "trust_remote_code", "boundary",
             "start_token", "device", "device_map", "max_memory", "batch_tokens", "cache", "n_boot",
             "seed", "by", "formula", "level", "compare_metric", "correction", "sign", "out", "name")
    changes = {n: getattr(args, n, None) for n in names} | fixed
    models, changes["method"] = _models_and_method(args)
    if models:
        changes["models"] = models
    if getattr(args, "paradigm", None):
        changes["paradigms"] = tuple(args.paradigm)
    if getattr(args, "suite", None):
        changes["suites"] = tuple(args.suite)
    if getattr(args, "delta", None):
        changes["deltas"] = tuple(args.delta)
    if getattr(args, "column", None):
        from acceptability.data.tables import parse_column_map

        changes["columns"] = parse_column_map(args.column)
    return base.replace(**changes)


def _dataset_and_scores(args: argparse.Namespace, **fixed):
    """The experiment, its dataset and its scores: for SyntaxGym suites their region
    surprisals (``reports.cli.syntaxgym_data``), which ``analyse`` takes as scores."""
    from acceptability.reports.cli.experiment import load_dataset, load_scores
    from acceptability.reports.cli.syntaxgym_data import load_regions
    from acceptability.reports.syntaxgym.analysis import SYNTAXGYM

    exp = _experiment(args, **fixed)
    ds = load_dataset(exp)
    return exp, ds, (load_regions if ds.name == SYNTAXGYM else load_scores)(exp, ds)


def cmd_score(args: argparse.Namespace) -> int:
    """Score the dataset's sentences with each --model and write the long scores table
    (SyntaxGym suites: each region's surprisal, the scores evaluate and report take)."""
    from acceptability import data
    from acceptability.data.io.folders import check_writable
    from acceptability.reports.cli.experiment import load_dataset, score_models
    from acceptability.reports.cli.syntaxgym_data import score_regions
    from acceptability.reports.syntaxgym.analysis import SYNTAXGYM

    data.io.files.table_format(Path(args.out))  # a bad --out suffix fails before scoring
    check_writable(Path(args.out), "--out")  # so does one that could not be written
    exp = _experiment(args)
    ds = load_dataset(exp)
    plan = exp.scoring_plan()
    gym = ds.name == SYNTAXGYM  # its scores: region surprisals
    print(f"scoring {len(ds.sentences)} sentences of {ds.name}"
          f"{' (region surprisals)' if gym else ''} with "
          f"{', '.join(f'{m} ({method})' for m, method in plan)} ...", file=sys.stderr)
    table = score_regions(ds, plan, exp.revision, exp.dtype, exp.trust_remote_code,
                          exp.boundary, hardware=exp.hardware())[0] if gym else \
        score_models(ds, plan, exp.revision, exp.dtype, exp.recheck, exp.normalise,
                     exp.unigram, exp.trust_remote_code, exp.hardware())
    path = data.write_scores(table, args.out)
    print(f"wrote {path}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Evaluate scores against a dataset and print or save the one-row-per-model table
    (SyntaxGym suites: the accuracy per prediction, suite, circuit and over suites)."""
    from acceptability import stats
    from acceptability.data.io.atomic import write_csv
    from acceptability.reports.syntaxgym.analysis import is_region_table
    from acceptability.reports.tables import formatted

    exp, ds, sc = _dataset_and_scores(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = stats.syntaxgym_accuracy(sc, ds, n_boot=exp.n_boot, seed=exp.seed).rename(
            columns={"lower": "accuracy_lower", "upper": "accuracy_upper"}) \
            if is_region_table(sc) else \
            stats.evaluate(ds, sc, deltas=exp.deltas, by=args.by, ci=exp.n_boot > 0,
                           n_boot=exp.n_boot, seed=exp.seed, sign=exp.sign)
    if args.out:
        write_csv(table, args.out, index=False)
        print(f"wrote {args.out}")
    else:
        print(formatted(table).to_string(index=False))
    if exp.n_boot:
        from acceptability.reports.labels import resampled_units

        drawn = table.attrs.get("intervals")  # what the engine resampled, and how many
        of = f" of {resampled_units(drawn)}" if drawn else ""
        print(f"95% intervals from {exp.n_boot:,} bootstrap resamples{of} (--n-boot 0: "
              f"none){_resampled(table, args.by)}", file=sys.stderr)
    if "norming" in table.attrs:  # trial-level ratings: what human is
        print(table.attrs["norming"], file=sys.stderr)
    for w in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {w}", file=sys.stderr)
    return 0


def _resampled(table, by: str | None) -> str:
    """What each group's interval resampled (``ci_unit`` of ``evaluate(by=..., ci=True)``)."""
    from acceptability.stats.inference.resample import MIN_CLUSTERS

    if not by or "ci_unit" not in table:
        return ""
    units = table.drop_duplicates(by)["ci_unit"].value_counts()
    said = {"pair": f"by their pairs within each cluster (fewer than {MIN_CLUSTERS} clusters each)",
            "sentence": "by their sentences (no pairs)",
            "none": "without an interval (each holds one pair, or pairs sharing a sentence)"}
    parts = [f"{k} {by} group(s) {said.get(u, f'by their {u} clusters')}"
             for u, k in units.items()]
    return "; each group resampled within itself: " + ", ".join(parts)


def cmd_fit(args: argparse.Namespace) -> int:
    """Fit one mixed-effects judgment model per language model and print the summaries."""
    from acceptability.data.io.atomic import write_csv
    from acceptability.reports.analysis import fit_models, resolve_formula

    exp, ds, sc = _dataset_and_scores(args)
    formula, why = resolve_formula(ds, exp.formula)
    if formula is None:
        raise ValueError(why)
    fits = fit_models(ds, sc, formula)  # an error when no model fits
    for model, text in fits.summaries.items():
        print(f"=== {model}\n{text}\n")
    for note in fits.notes:
        print(note, file=sys.stderr)
    if args.out:
        write_csv(fits.table, args.out, index=False)
        print(f"wrote {args.out}")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Analyse and write the report (no resuming: see ``run``)."""
    from acceptability.reports.analysis import (
        analyse,
        check_formula,
        resolve_compare_metric,
        resolve_formula,
    )
    from acceptability.reports.cli.lock import folder_lock
    from acceptability.reports.render import build

    exp, ds, sc = _dataset_and_scores(args)
    formula, _ = resolve_formula(ds, exp.formula)
    if formula:
        check_formula(ds, formula)  # before the progress line: one line on a typo
    resolve_compare_metric(ds, exp.compare_metric)
    with folder_lock(exp.out):  # one writer per folder: a second one stops now
        print(f"analysing {sc['model'].nunique()} models on {ds.name} ...", file=sys.stderr)
        results = analyse(ds, sc, deltas=exp.deltas, n_boot=exp.n_boot, seed=exp.seed,
                          by=exp.by, formula=exp.formula or None,
                          compare_metric=exp.compare_metric, correction=exp.correction,
                          command=_command(args), extra=exp.scores_settings(),
                          sign=exp.sign, data_path=exp.data_path, norming=exp.norming)
        report = build(results, exp.out, title=exp.title())
    print(f"wrote {report.html}, {report.markdown}, {len(report.figures)} figures and "
          f"{len(report.tables)} table files in {report.out}")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """score -> evaluate -> fit -> report into --out, skipping steps already done."""
    from acceptability.reports.cli.pipeline import run

    exp = _experiment(args)
    report = run(exp, command=_command(args), force=args.force)
    print(f"report: {report.html}")
    return 0


def _print_demo_tables(results) -> None:
    from acceptability.reports import tables
    from acceptability.stats.metric_table import metric_names

    cols = ["model", "n_pairs", *metric_names(results.deltas)]
    ev = results.evaluation
    print(ev[[c for c in cols if c in ev]].to_string(index=False, float_format="%.3f"))
    if "table_3_1" in results.reference:
        t = tables.table_3_1(results)
        show = ["model"] + [c for k in tables.criteria_metrics(results)
                            for c in (k, f"{k} (thesis)")]
        print("\nThesis Table 3.1, ours beside the published values (ADC sign convention "
              "'thesis', (dh > 0) == (dlm > 0); the default 'strict', np.sign, fails the 2 "
              "pairs with identical texts):")
        print(t[show].to_string(index=False, float_format="%.3f"))
    print("\nWithin-type variability (seed 004 prints human 0.288, trigram log-prob 0.331, "
          "truncated rather than rounded to three decimals):")
    print(results.variability.summary.to_string(index=False, float_format="%.3f"))
    print("\nExcluded rows:")
    print(tables.exclusions(results).to_string(index=False))


def cmd_demo(args: argparse.Namespace) -> int:
    """Evaluate LI-Adger with the published thesis scores when the data are available,
    else the bundled example, print the main tables and write the full report. The ADC
    uses the thesis' sign convention (``--sign thesis``), so Table 3.1 matches it."""
    from acceptability import data
    from acceptability.reports.analysis import analyse
    from acceptability.reports.render import build

    try:
        ds, sc = data.load_li_adger(), data.load_li_adger_scores()
        print(f"LI-Adger with the published thesis scores ({ds}).\n")
    except DataError as err:
        print(f"LI-Adger not available ({err}).\nUsing the bundled example instead: minimal "
              "pairs printed in the papers, with the z-scores they print.\n")
        ds, sc = data.load_example()
    results = analyse(ds, sc, n_boot=args.n_boot, seed=args.seed, command=_command(args),
                      sign="thesis")
    _print_demo_tables(results)
    report = build(results, args.out)
    print(f"\nFull report: {report.html} (Markdown: {report.markdown}; LaTeX tables and "
          f"figures in {report.out})")
    return 0


# The data and scores options of every command that reads a dataset and scores.
DATA_OPTIONS = {
    "--dataset": {"choices": list(DATASETS), "help": "dataset to analyse (default: li-adger)"},
    "--data-path": {"metavar": "DIR", "help": "folder with the dataset's files (default: "
                    "$ACCEPTABILITY_DATA_DIR/<dataset>, else download)"},
    "--paradigm": {"action": "append", "metavar": "UID", "help": "with --dataset blimp or "
                   "zorro: a paradigm to load, e.g. adjunct_island; with marvin-linzen: a "
                   "construction, e.g. simple_agrmt; with turblimp: a phenomenon or an "
                   "experimental paradigm, e.g. binding (repeatable; default: all)"},
    "--suite": {"action": "append", "metavar": "NAME|FILE", "help": "with --dataset "
                "syntaxgym: a suite to load, by name (e.g. number_prep; the 34 of Hu et al. "
                "2020) or a suite JSON file of your own (repeatable; default: all 34)"},
    "--max-pairs": {"type": int, "metavar": "N", "help": "keep the first N pairs of each "
                    "paradigm (else phenomenon): a quick look at a large benchmark"},
    "--max-sentences": {"type": int, "metavar": "N", "help": "keep the first N sentences (of "
                        "each context condition of lau2020; whole lists of "
                        "megaacceptability, as many as fit): a quick look at a large dataset"},
    "--sentences": {"metavar": "FILE", "help": "your own sentences instead of --dataset: "
                    ".csv, .tsv or .parquet with sentence_id, text and optionally type_id, "
                    "phenomenon, label, human (docs/tables.md)"},
    "--pairs": {"metavar": "FILE", "help": "with --sentences: your minimal pairs (pair_id, "
                "good_id, bad_id)"},
    "--ratings": {"metavar": "FILE", "help": "with --sentences: your trial-level ratings, one "
                  "row per rating (participant, sentence_id, response; docs/tables.md)"},
    "--scale": {"metavar": "SCALE", "help": "with --ratings: the rating scale, likert:LOW-HIGH "
                "(e.g. likert:1-7), me (magnitude estimation) or binary"},
    "--column": {"action": "append", "metavar": "NAME=COLUMN", "help": "with --sentences: "
                 "read your files' column NAME as the package's COLUMN, e.g. "
                 "--column subject=participant (repeatable; every file that has NAME)"},
    "--norming": {"choices": ["auto", *NORMINGS], "help": "with trial-level ratings: the "
                  "human value of a sentence is the mean of its ratings z-scored within "
                  "participants (z), or of their normal scores by rank (rank), its mode under "
                  "an ordinal mixed model (ordinal) or its mean rating (mean); default auto: z "
                  "where the ratings name participants, else mean"},
    "--human-scale": {"choices": ["z", "raw"], "help": "with --sentences: the human column "
                      "holds z-scores (z, default; the ADC needs them) or raw ratings, "
                      "z-scored over the sentences (raw)"},
}
SCORES_OPTIONS = {
    "--scores": {"metavar": "SOURCE", "help": "'published' (the dataset's published model "
                 "scores; default) or a scores file (.csv/.parquet with sentence_id, model, "
                 "score; syntaxgym: region surprisals as `score --dataset syntaxgym` writes "
                 "them, or a suite SyntaxGym filled in, .json)"},
    "--model": {"action": "append", "metavar": "MODEL", "help": "a model of the scores to "
                "keep (repeatable); without --scores (run only), a model to score first: "
                "MODEL or MODEL:METHOD, e.g. gpt2:logprob"},
}


def _options(p: argparse.ArgumentParser, title: str, options: dict[str, dict]) -> None:
    """A group of options from a table of flag -> ``add_argument`` keywords."""
    g = p.add_argument_group(title)
    for flag, kwargs in options.items():
        g.add_argument(flag, **kwargs)


def _data_args(p: argparse.ArgumentParser) -> None:
    _options(p, "data", DATA_OPTIONS)


def _name_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--name", help="the report's title: 'acceptability report: NAME' (default: "
                                  "the dataset's name; of your own files, the sentences "
                                  "file's name without its suffixes)")


def _dtype_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dtype", choices=DTYPES,
                   help="weights and matrix products when scoring (default: float32; bfloat16 "
                        "is faster on AMX CPUs and recent GPUs: docs/scoring-speed.md)")
    p.add_argument("--recheck", action="store_true", default=None,
                   help="with --dtype bfloat16: rescore in float32 the minimal pairs too close "
                        "for bfloat16 to call, so their verdicts are float32's")


def _hardware_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--device", help="where models are scored: cpu, cuda, cuda:1, mps "
                                     "(default: cuda, then mps, then cpu)")
    p.add_argument("--device-map", metavar="MAP",
                   help="spread a model too large for one device over the GPUs, then the CPU "
                        "and the disk: auto (transformers' device_map; not with --device)")
    p.add_argument("--max-memory", metavar="SIZES",
                   help="with --device-map: the most each device holds, e.g. "
                        "0=70GiB,1=70GiB,cpu=200GiB")
    p.add_argument("--batch-tokens", type=int, metavar="N",
                   help="tokens per forward pass, masked copies and padding included "
                        "(default: 16384 on a GPU; on the CPU 16 sentences, PLL passes of "
                        "2048/4096 tokens)")
    p.add_argument("--no-cache", dest="cache", action="store_false", default=None,
                   help="score without the score cache: nothing read from it or written to "
                        "it (in Python: cache=False)")


def _boundary_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--boundary", choices=["sum", "corrected"],
                   help="with --dataset syntaxgym: a region's surprisal is the sum of its "
                        "tokens' (sum, SyntaxGym's; default) or, for causal LMs, with the "
                        "word-boundary correction of leading-space vocabularies (corrected; "
                        "Pimentel & Meister 2024)")


def _trust_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--trust-remote-code", action="store_true", default=None,
                   help="let a model that needs code of its own (its config's auto_map) run "
                        "it; off by default: read the code in its folder or hub repository "
                        "first")


def _normalise_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--normalise", choices=NORMALISATIONS,
                   help="normalise log-probabilities (Lau et al. 2017, 2020): mean (per "
                        "token), penlp (length penalty), slor or normlp (these two need "
                        "--unigram); the model is named "
                        "<model>_<method>_<normalise>")
    p.add_argument("--unigram", metavar="FILE",
                   help="with --normalise slor or normlp: the unigram model's corpus (.txt, "
                        "one sentence per line; ideally the language model's training text) or "
                        "word frequencies (.csv/.tsv with columns word and count)")


def _scoring_args(p: argparse.ArgumentParser, method: str, revision: str) -> None:
    """--method (the registry's methods, ``method`` its help), --revision and the other
    options of scoring."""
    p.add_argument("--method", action="append", metavar="METHOD", help=method)
    p.add_argument("--revision", help=revision)
    _trust_arg(p)
    _boundary_arg(p)
    p.add_argument("--start-token", metavar="bos|eos|none|TOKEN",
                   help="what a causal LM's first token is conditioned on: its BOS token, "
                        "end-of-text (eos, as GPT-2 and lm-eval-harness), a token of its "
                        "vocabulary, or none (the first token unscored); default auto: bos, "
                        "or eos where the tokenizer has no BOS or its BOS opens a chat turn "
                        "(docs/scoring.md)")
    _dtype_arg(p)
    _hardware_args(p)
    _normalise_args(p)


def _scores_args(p: argparse.ArgumentParser) -> None:
    _options(p, "scores", SCORES_OPTIONS)


def _formula_arg(p, what: str, default: str) -> None:
    """--formula and --level, the help naming the default mixed models (``reports.analysis``,
    ``stats.rating_model``)."""
    p.add_argument("--formula", help=f"lme4-style {what}: human ~ score ... (score = the "
                                     "model's z-score), dh ~ dlm ... (pair deltas) or "
                                     "response_z ~ lm_z ... (each rating: the columns of "
                                     "stats.rating_model_frame, e.g. condition, pair_id, "
                                     f"participant, item){default}: the trial-level models "
                                     "where there are trial ratings, else "
                                     f"'{DEFAULT_FORMULA}' where the sentences have human "
                                     "judgments and phenomena)")
    p.add_argument("--level", choices=LEVELS,
                   help="what the mixed model fits: each rating (trial; without --formula "
                        "the default for the design, docs/ratings.md), each sentence's "
                        "normed judgment (sentence) or as --formula says (auto, the default)")


def _analysis_args(p: argparse.ArgumentParser, report: bool = True) -> None:
    g = p.add_argument_group("analysis")
    g.add_argument("--delta", type=_delta, nargs="+", metavar="D",
                   help=f"ADC deltas in (0, 100] (default: {' '.join(f'{d:g}' for d in DEFAULT_DELTAS)})")
    g.add_argument("--n-boot", type=int, metavar="N",
                   help=f"bootstrap resamples for confidence intervals and comparisons "
                        f"(default: {DEFAULT_N_BOOT:,}; 0 = none)")
    g.add_argument("--seed", type=int,
                   help=f"random seed for the bootstrap (default: {DEFAULT_SEED})")
    g.add_argument("--sign", choices=["strict", "thesis"],
                   help="ADC sign agreement: strict = np.sign(dh) == np.sign(dlm), eq. 1.1 "
                        "(default); thesis = (dh > 0) == (dlm > 0), as in the thesis' tables")
    if report:
        g.add_argument("--by", help="column for per-group accuracy bars (default: paradigm, "
                                    "else sub-dataset, else phenomenon)")
        _formula_arg(g, "mixed model fitted per language model", "; '' for none (default auto")
        g.add_argument("--compare-metric",
                       help="metric for model comparisons (default auto: adc_1 with pairs and "
                            "human judgments, else blimp with pairs, else r_sentence)")
        g.add_argument("--correction", help="multiple-comparison correction (default: holm)")


def parser() -> argparse.ArgumentParser:
    """The ``acceptability`` command's parser, a subcommand per task.

    Examples
    --------
    >>> from acceptability.reports.cli import parser
    >>> args = parser().parse_args(["evaluate", "--dataset", "example", "--n-boot", "0"])
    >>> args.command, args.dataset, args.n_boot
    ('evaluate', 'example', 0)
    """
    p = Parser(
        prog="acceptability",
        description="Does a language model know language the way people do? Score sentences, "
                    "relate the scores to human gradient acceptability judgments, and report "
                    "the statistics (BLiMP criterion, ADC, correlations, MCC, within-type "
                    "variability, mixed models).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND",
                           title="commands")
    for add in (_score_command, _analysis_commands, _run_command, _demo_command,
                training_cli.add_commands):
        add(sub)
    return p


def _score_command(sub) -> None:
    """``acceptability score``."""
    s = sub.add_parser("score", help="score a dataset's sentences with language models",
                       description=cmd_score.__doc__)
    _data_args(s)
    s.add_argument("--model", action="append", required=True, metavar="MODEL[:METHOD]",
                   help="model to score with: a hub id, a local folder, a .gguf file or "
                        "(ngram) an ARPA file, optionally with its method, e.g. gpt2:logprob or "
                        "bert-base-uncased:pll (repeatable)")
    _scoring_args(s, f"{', '.join(METHODS)}: for every --model without its own; or "
                     "repeated, one per --model in order (default: logprob; "
                     "docs/scoring.md gives each one's equation)",
                  "model revision (branch, tag or commit) to load")
    s.add_argument("--out", default="scores.parquet",
                   help="scores file to write (.parquet, .csv or .tsv; default: scores.parquet)")
    s.set_defaults(func=cmd_score)


def _reader(sub, name: str, summary: str, func) -> argparse.ArgumentParser:
    """A subcommand that reads a dataset and scores (the data and scores options)."""
    p = sub.add_parser(name, help=summary, description=func.__doc__)
    _data_args(p)
    _scores_args(p)
    p.set_defaults(func=func)
    return p


def _analysis_commands(sub) -> None:
    """``acceptability evaluate``, ``fit`` and ``report``."""
    e = _reader(sub, "evaluate", "BLiMP criterion, ADC, correlations, MCC, variability",
                cmd_evaluate)
    _analysis_args(e, report=False)
    e.add_argument("--by", help="break down by a column, e.g. phenomenon, dataset or paradigm")
    e.add_argument("--out", help="write the table as CSV instead of printing it")
    f = _reader(sub, "fit", "mixed-effects judgment models, one per language model", cmd_fit)
    _formula_arg(f, "formula", " (default")
    f.add_argument("--out", help="also write the fixed effects as CSV")
    r = _reader(sub, "report", "analyse and write the HTML/Markdown/LaTeX report", cmd_report)
    _analysis_args(r)
    r.add_argument("--out", help="report folder (default: report)")
    _name_arg(r)


def _run_command(sub) -> None:
    """``acceptability run``: the resumable pipeline, from flags and/or a TOML file."""
    u = sub.add_parser("run", help="score -> evaluate -> fit -> report, resumable",
                       description=cmd_run.__doc__ + " Settings come from --config (TOML, see "
                       "examples/experiment.toml) and/or flags; flags win.")
    u.add_argument("--config", metavar="TOML", help="experiment file")
    _data_args(u)
    _scores_args(u)
    _scoring_args(u, f"scoring method for --model without --scores ({', '.join(METHODS)}): "
                     "one for all, or one per --model in order (default: logprob; or "
                     "--model NAME:METHOD)", "model revision for --model without --scores")
    _analysis_args(u)
    u.add_argument("--out", help="output folder (default: report)")
    _name_arg(u)
    u.add_argument("--force", action="store_true",
                   help="rerun every step, also in a folder that is not empty and has no "
                        "manifest of this version (it removes no file the run did not write)")
    u.set_defaults(func=cmd_run)


def _demo_command(sub) -> None:
    """``acceptability demo``."""
    d = sub.add_parser("demo", help="the full report for LI-Adger (published scores) or the "
                                    "bundled example, offline", description=cmd_demo.__doc__)
    d.add_argument("--out", default="report", help="report folder (default: report)")
    d.add_argument("--n-boot", type=int, default=DEFAULT_N_BOOT,
                   help=f"bootstrap resamples (default: {DEFAULT_N_BOOT:,})")
    d.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"random seed (default: {DEFAULT_SEED})")
    d.set_defaults(func=cmd_demo)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``acceptability`` command: bad input prints one clear line and
    exits non-zero, no traceback (``--debug`` shows it).

    Parameters
    ----------
    argv
        The arguments after the command's name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on an error it reported.

    Examples
    --------
    The evaluation table of the bundled example, written as CSV:

    >>> import tempfile
    >>> import pandas as pd
    >>> from acceptability.reports.cli import main
    >>> out = tempfile.mkdtemp() + "/evaluate.csv"
    >>> main(["evaluate", "--dataset", "example", "--model", "trigram_slor",
    ...       "--n-boot", "0", "--out", out])
    wrote .../evaluate.csv
    0
    >>> print(pd.read_csv(out)[["model", "n_pairs", "blimp"]].to_string(index=False))
           model  n_pairs  blimp
    trigram_slor        8  0.875
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    args.argv = argv
    try:
        return args.func(args)
    except (DataError, ValueError, OSError, ImportError) as err:
        if args.debug:
            raise
        print(f"acceptability {args.command}: error: {err}", file=sys.stderr)
    except KeyError as err:
        if args.debug:
            raise
        print(f"acceptability {args.command}: error: {err.args[0] if err.args else err}",
              file=sys.stderr)
    except Exception as err:  # anything else: still one line, the traceback behind --debug
        if args.debug:
            raise
        print(f"acceptability {args.command}: unexpected error: {type(err).__name__}: {err} "
              "(rerun with --debug for the traceback)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
