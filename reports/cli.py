"""The ``acceptability`` command line: ``acceptability <command> --help`` for each."""

from __future__ import annotations

import argparse
import sys

from data.errors import DataError


def _load_li_adger_published():
    import data

    return data.load_li_adger(), data.load_li_adger_scores()


def cmd_demo(args: argparse.Namespace) -> int:
    """Evaluate the published LI-Adger scores (thesis Table 3.1) when the data are
    available locally, else the bundled example transcribed from the papers."""
    import data
    import stats
    from data.published import THESIS_TABLE_3_1

    try:
        ds, sc = _load_li_adger_published()
        print(f"LI-Adger with the published thesis scores ({ds}).\n")
        thesis = THESIS_TABLE_3_1
    except DataError as err:
        print(f"LI-Adger not available ({err}).\nUsing the bundled example instead: minimal "
              "pairs printed in the papers, with the z-scores they print.\n")
        ds, sc = data.load_example()
        thesis = None
    table = stats.evaluate(ds, sc, deltas=(0.5, 1.0, 5.0))
    cols = ["model", "n_pairs", "blimp", "adc_0.5", "adc_1", "adc_5", "adc_area", "r_sentence",
            "r_pair", "variability", "mcc"]
    print(table[cols].to_string(index=False, float_format="%.3f"))
    if thesis is not None:
        both = table.merge(thesis, on="model", suffixes=("", " (thesis)"))
        print("\nThesis Table 3.1, ours beside the published values:")
        show = ["model"] + [c for k in ("blimp", "adc_0.5", "adc_1", "adc_5")
                            for c in (k, f"{k} (thesis)")]
        print(both[show].to_string(index=False, float_format="%.3f"))
    summary = stats.variability(ds, sc).summary
    print("\nWithin-type variability (seed 004: human 0.288, trigram log-prob 0.331):")
    print(summary.to_string(index=False, float_format="%.3f"))
    print("\nExcluded rows:")
    print(ds.exclusions.to_string(index=False))
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    """Evaluate a scores file against a dataset and print or save the results table."""
    import data
    import stats

    loaders = {"li-adger": data.load_li_adger, "blimp": data.load_blimp,
               "example": lambda: data.load_example()[0]}
    if args.dataset not in loaders:
        raise DataError(f"unknown dataset {args.dataset!r}", fix=f"use one of {sorted(loaders)}")
    ds = loaders[args.dataset]()
    if args.scores == "published":
        sc = data.load_li_adger_scores() if args.dataset == "li-adger" else data.load_example()[1]
    else:
        sc = data.read_scores(args.scores)
    table = stats.evaluate(ds, sc, deltas=args.delta, by=args.by)
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"wrote {args.out}")
    else:
        print(table.to_string(index=False, float_format="%.3f"))
    return 0


def _delta(text: str) -> float:
    value = float(text)
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"delta must be in (0, 100], got {text}")
    return value


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acceptability",
        description="Does a language model know language the way people do? Score sentences, "
                    "relate the scores to human acceptability judgments, report the statistics.",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    d = sub.add_parser("demo", help="evaluate the bundled default (LI-Adger if available)")
    d.set_defaults(func=cmd_demo)
    e = sub.add_parser("evaluate", help="BLiMP criterion, ADC, correlations, MCC, variability")
    e.add_argument("--dataset", default="li-adger", help="li-adger, blimp or example")
    e.add_argument("--scores", default="published",
                   help="a scores CSV/Parquet (sentence_id, model, score), or 'published'")
    e.add_argument("--delta", type=_delta, nargs="+", default=[0.5, 1.0, 5.0],
                   help="ADC deltas (default: 0.5 1 5)")
    e.add_argument("--by", help="break down by a column, e.g. phenomenon or paradigm")
    e.add_argument("--out", help="write the table as CSV instead of printing it")
    e.set_defaults(func=cmd_evaluate)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point: bad input prints one clear line and exits non-zero, no traceback."""
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (DataError, KeyError, ValueError, FileNotFoundError) as err:
        print(f"acceptability {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
