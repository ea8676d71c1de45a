"""Figures of a rating data set's report (``reports.ratings.sections``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from acceptability.reports.figures import plain_text


@plain_text
def context_shifts(shifts: pd.DataFrame) -> Figure:
    """Mean rating in each condition (x) for each group of sentences (a line each;
    ``reports.context.quality_shifts``), one panel per way of grouping.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.reports.ratings.figures import context_shifts
    >>> shifts = pd.DataFrame({"group": ["original", "round-trip translated"],
    ...                        "classified_by": "translation", "n_sentences": [50, 200],
    ...                        "none": [3.6, 2.6], "random": [3.5, 2.7], "real": [3.5, 2.8]})
    >>> fig = context_shifts(shifts)
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[0].lines)
    (['translation'], 2)
    """
    start = list(shifts.columns).index("n_sentences") + 1
    conditions = [c for c in shifts.columns[start:] if "_minus_" not in c]
    ways = list(pd.unique(shifts["classified_by"]))
    fig, axes = plt.subplots(1, len(ways), figsize=(4.2 * len(ways), 3.6), sharey=True,
                             squeeze=False)
    for ax, way in zip(axes[0], ways, strict=True):
        for _, row in shifts[shifts["classified_by"] == way].iterrows():
            ax.plot(conditions, [row[c] for c in conditions], marker="o",
                    label=f"{row['group']} (n={row['n_sentences']})")
        ax.set_title(way)
        ax.set_xlabel("context")
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("mean rating")
    fig.tight_layout()
    return fig
