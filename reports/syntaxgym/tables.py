"""The report's SyntaxGym tables and section: the SG score per system, accuracy per suite,
circuit and prediction, scored models beside the paper's (``reports.syntaxgym.analysis``)."""

from __future__ import annotations

import pandas as pd

from acceptability.reports.section import Section

SECTION_TEXT = (
    "Each suite's items are sentences in several conditions, cut into regions; a "
    "prediction is a formula over region surprisals, such as a verb being less surprising "
    "after a subject that agrees with it (Gauthier et al. 2020). A region's surprisal is the "
    "sum of its tokens' surprisals in bits, −log2 P, for a causal LM after BOS and the "
    "earlier tokens, for a masked LM the pseudo-log-likelihood terms "
    "(scoring.region_surprisals; every region surprisal is in regions.parquet beside this "
    "report when the run scored them). An item is correct when all its suite's predictions "
    "hold; a suite's accuracy is the share of its items correct, a circuit's the mean of "
    "its suites', the SG score the mean over suites (Hu et al. 2020) and beside it the mean "
    "over circuits. One bootstrap of the items within each suite gives every interval (an "
    "item carries all its conditions and predictions).")


def _intervals(acc: pd.DataFrame) -> str:
    """Caption text on the intervals of the accuracy tables."""
    a = acc.attrs
    if not a.get("n_boot"):
        return "no intervals (n_boot = 0)"
    return (f"{a['ci']:.0%} percentile intervals from {a['n_boot']:,} bootstrap resamples of "
            "the items within each suite")


def _with_systems(rows: pd.DataFrame, part: pd.DataFrame, key: list[str]) -> pd.DataFrame:
    """``rows`` (one per group, keyed by ``key``) with a column per system of ``part`` (its
    accuracy at that level) and ``<system>_lower``/``_upper`` where resampled."""
    out = rows.reset_index(drop=True)
    at = pd.MultiIndex.from_frame(out[key])
    names = []
    for system, g in part.groupby("system", sort=False):
        g = g.set_index(key)
        g.index = pd.MultiIndex.from_frame(g.index.to_frame())
        names.append(system)
        out[system] = g["accuracy"].reindex(at).to_numpy(float)
        if g["lower"].notna().any():
            out[f"{system}_lower"] = g["lower"].reindex(at).to_numpy(float)
            out[f"{system}_upper"] = g["upper"].reindex(at).to_numpy(float)
    out.attrs["names"] = names
    return out


def scores_table(acc: pd.DataFrame) -> pd.DataFrame:
    """Per system: its source, suites and items, the SG score (mean over suites) and the
    mean over circuits, with intervals where resampled; both again on the paper's suites
    alone where the data have others.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.reports.syntaxgym.tables import scores_table
    >>> acc = pd.DataFrame({"level": ["overall", "circuits"], "system": "lm",
    ...     "source": "scored", "n_suites": 2, "n_items": 40, "accuracy": [0.5, 0.6],
    ...     "lower": float("nan"), "upper": float("nan")})
    >>> scores_table(acc).to_numpy().tolist()
    [['lm', 'scored', 2, 40, 0.5, 0.6]]
    """
    parts = {"sg_score": acc[acc["level"] == "overall"],
             "circuit_mean": acc[acc["level"] == "circuits"],
             "sg_score_paper": acc[acc["level"] == "overall_paper"],
             "circuit_mean_paper": acc[acc["level"] == "circuits_paper"]}
    first = parts["sg_score"]
    out = first[["system", "source", "n_suites", "n_items"]].reset_index(drop=True)
    for name, part in parts.items():
        if part.empty:
            continue
        p = part.set_index("system").reindex(out["system"])
        out[name] = p["accuracy"].to_numpy(float)
        if p["lower"].notna().any():
            out[f"{name}_lower"] = p["lower"].to_numpy(float)
            out[f"{name}_upper"] = p["upper"].to_numpy(float)
    return out


def suite_table(acc: pd.DataFrame, suites: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per suite (rows: ``suite, circuit, n_items``), a column per system."""
    rows = suites[["suite", "circuit", "n_items"]]
    return _with_systems(rows, acc[acc["level"] == "suite"].assign(suite=lambda t: t["group"]),
                         ["suite"])


def circuit_table(acc: pd.DataFrame, suites: pd.DataFrame) -> pd.DataFrame | None:
    """Accuracy per circuit (the mean of its suites'), a column per system; None when no
    suite belongs to a circuit."""
    part = acc[acc["level"] == "circuit"].assign(circuit=lambda t: t["group"])
    if part.empty:
        return None
    rows = (suites.dropna(subset=["circuit"]).groupby("circuit", sort=True).size()
            .rename("n_suites").reset_index())
    return _with_systems(rows, part, ["circuit"])


def prediction_table(acc: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per prediction of each suite (the share of items on which its formula
    holds), a column per scored model (the published outcomes are per item, not per
    prediction)."""
    part = acc[(acc["level"] == "prediction") & (acc["source"] == "scored")]
    rows = (part.drop_duplicates(["suite", "prediction"])[["suite", "prediction", "formula"]]
            .sort_values(["suite", "prediction"]))
    return _with_systems(rows, part, ["suite", "prediction"])


def syntaxgym_tables(results) -> dict[str, tuple[str, pd.DataFrame | None]]:
    """The SyntaxGym tables by file stem (caption, table), none without SyntaxGym results."""
    sg = getattr(results, "syntaxgym", None)
    if sg is None:
        return {}
    acc, ci = sg.accuracy, _intervals(sg.accuracy)
    return {
        "syntaxgym_scores": ("SG score (Hu et al. 2020): accuracy (proportion of items "
                             "correct) averaged over the suites"
                             + (", and over the circuits (each the mean of its suites)"
                                if (acc["level"] == "circuits").any() else "")
                             + ", per system"
                             + ("; and both on the suites of which the paper has outcomes"
                                if (acc["level"] == "overall_paper").any() else "")
                             + f"; {ci}",
                             scores_table(acc)),
        "syntaxgym_suite": ("Accuracy (proportion of items on which all the suite's "
                            f"predictions hold) per suite; {ci}", suite_table(acc, sg.suites)),
        "syntaxgym_circuit": (f"Accuracy per circuit (the mean of its suites'); {ci}",
                              circuit_table(acc, sg.suites)),
        "syntaxgym_prediction": ("Accuracy per prediction (proportion of items on which the "
                                 f"formula holds), the scored models; {ci}",
                                 prediction_table(acc)),
    }


def syntaxgym_summary(results) -> list[tuple[str, object]]:
    """Data summary rows of a SyntaxGym dataset: suites, items and predictions."""
    sg = getattr(results, "syntaxgym", None)
    if sg is None:
        return []
    s = sg.suites
    return [("SyntaxGym suites", len(s)), ("items (all suites)", int(s["n_items"].sum())),
            ("predictions (all suites)", int(s["n_predictions"].sum()))]


def syntaxgym_sections(results) -> list[Section]:
    """The SyntaxGym section (none without SyntaxGym results)."""
    sg = getattr(results, "syntaxgym", None)
    if sg is None:
        return []
    return [Section("syntaxgym", "SyntaxGym accuracy", SECTION_TEXT,
                    tables=["syntaxgym_scores", "syntaxgym_suite", "syntaxgym_circuit",
                            "syntaxgym_prediction"], notes=list(sg.notes))]
