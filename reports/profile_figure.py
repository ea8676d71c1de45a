"""The likelihood profile of a mixed model drawn as lme4's ``xyplot(profile(m))``
(Bates et al. 2015, J. Stat. Softw. 67(1), fig. 6): zeta against each parameter, one panel
per parameter with its own x scale, horizontal lines at the zeta of the 50, 80, 90, 95
and 99% intervals and vertical ones down to where the profile crosses them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy import stats as sps

from acceptability.reports.figures import plain_text

__all__ = ["profile_figure"]

CONF = (0.5, 0.8, 0.9, 0.95, 0.99)  # lme4's xyplot.thpr levels


@plain_text
def profile_figure(frame: pd.DataFrame, conf: tuple[float, ...] = CONF) -> Figure:
    """One panel per parameter (``.par``) of a profile's tidy frame (``m.profile().frame``,
    lme4's ``as.data.frame(profile(m))``): zeta (y) against the parameter (x).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.reports.profile_figure import profile_figure
    >>> frame = pd.DataFrame({".zeta": [-2.0, 0, 2.1, -1.9, 0, 2.0], ".par": ["sigma"] * 3 + ["x"] * 3,
    ...                       ".focal": [0.8, 1.0, 1.3, 1.5, 2.0, 2.5]})
    >>> fig = profile_figure(frame)
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[0].lines)
    (['sigma', 'x'], 18)
    """
    names = list(dict.fromkeys(frame[".par"]))
    levels = sps.norm.ppf((1 + np.asarray(conf)) / 2)
    ncol = min(3, len(names))
    nrow = -(-len(names) // ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.2 * ncol, 2.8 * nrow), squeeze=False, sharey=True)
    for ax, name in zip(axes.flat, names, strict=False):
        rows = frame[frame[".par"] == name].sort_values(".focal")
        x, z = rows[".focal"].to_numpy(), rows[".zeta"].to_numpy()
        ax.plot(x, z, color="C0")
        for level in (*-levels, *levels):
            if z.min() <= level <= z.max():
                at = np.interp(level, z, x)  # zeta rises with the parameter
                ax.plot([x.min(), at], [level, level], color="grey", lw=0.6, ls=":")
                ax.plot([at, at], [0, level], color="grey", lw=0.6, ls=":")
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_title(name, fontsize=9)
    for ax in axes.flat[len(names):]:
        ax.remove()
    for ax in axes[:, 0]:
        ax.set_ylabel("zeta")
    fig.tight_layout()
    return fig
