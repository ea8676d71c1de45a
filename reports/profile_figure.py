"""The likelihood profile of a mixed model drawn as lme4's ``xyplot(profile(m))``
(Bates et al. 2015, J. Stat. Softw. 67(1), fig. 6): zeta against each parameter, one panel
per parameter with its own x scale, horizontal lines at the zeta of the 50, 80, 90, 95
and 99% intervals and vertical ones down to where the profile crosses them."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy import stats as sps

from acceptability.reports.figures import plain_text
from acceptability.stats.mixed.profile import MixedProfile

__all__ = ["profile_figure"]

CONF = (0.5, 0.8, 0.9, 0.95, 0.99)  # lme4's xyplot.thpr levels


@plain_text
def profile_figure(profile: MixedProfile, conf: tuple[float, ...] = CONF) -> Figure:
    """One panel per parameter of ``profile.frame``: zeta (y) against the parameter (x).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import lmer
    >>> from acceptability.reports.profile_figure import profile_figure
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5, 6.9, 8.8], "x": [1, 2, 3, 4] * 2,
    ...                    "g": list("aabbccdd")})
    >>> fig = profile_figure(lmer("y ~ x + (1 | g)", df).profile())
    >>> [ax.get_title() for ax in fig.axes]
    ['sd_(Intercept)|g', 'sigma', '(Intercept)', 'x']
    """
    frame = profile.frame
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
