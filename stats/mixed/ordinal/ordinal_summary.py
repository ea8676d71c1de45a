"""The summaries of ``clm`` and ``clmm`` fits in the layout of ordinal's
``print.summary.clm`` and ``print.summary.clmm`` (Christensen 2019, the ordinal package),
with R's number formatting: ``format`` (``formatReal``: common decimals, fixed unless
scientific is narrower), ``format.pval`` and ``printCoefmat``. By hand: no Python library
prints R's layout."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.mixed.results import Summary

__all__ = ["clm_summary", "clmm_summary", "print_coefmat", "r_format"]

_LEGEND = "Signif. codes:  0 \u2018***\u2019 0.001 \u2018**\u2019 0.01 \u2018*\u2019 0.05 \u2018.\u2019 0.1 \u2018 \u2019 1"


def _scientific(x: float, digits: int) -> tuple[bool, int, int, bool]:
    """R's ``scientific``: sign, exponent and significant digits of x to ``digits``, and
    whether rounding raised the exponent (99.99 -> 1.0e2)."""
    if x == 0:
        return False, 0, 1, False
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    kp = int(exponent)
    nsig = max(1, len(mantissa.replace(".", "").rstrip("0")))
    return x < 0, kp, nsig, 0 < kp <= 22 and abs(x) < 10.0**kp


def r_format(values, digits: int = 7) -> list[str]:
    """R's ``format(x, digits = digits)`` of a numeric vector: every element with the
    same number of decimals, the fewest that show each to ``digits`` significant digits,
    in fixed notation unless scientific notation is narrower (``formatReal``).

    Examples
    --------
    >>> from acceptability.stats.mixed.ordinal.ordinal_summary import r_format
    >>> r_format([2.50310, 0.52874, 1.52780], 4), r_format([2.19e-06], 3)
    (['2.5031', '0.5287', '1.5278'], ['2.19e-06'])
    """
    xs = np.asarray(values, float)
    finite = xs[np.isfinite(xs)]
    if not len(finite):
        cells = ["NaN" if np.isnan(x) else ("Inf" if x > 0 else "-Inf") for x in xs]
        width = max(map(len, cells))
        return [c.rjust(width) for c in cells]
    neg = rgt = mxl = mxsl = mxns = 0
    rgt, mxl, mxsl, mxns, mnl = -10**9, -10**9, -10**9, -10**9, 10**9
    for x in finite:
        negative, kp, nsig, widens = _scientific(float(x), digits)
        left = kp + 1 - widens
        rgt = max(rgt, nsig - left)
        mxl, mnl = max(mxl, left), min(mnl, left)
        mxsl = max(mxsl, negative + (1 if left <= 0 else left))
        mxns = max(mxns, nsig)
        neg = neg or negative
    if mxl < 0:
        mxsl = 1 + neg
    rgt = max(rgt, 0)
    fixed_width = mxsl + rgt + (rgt != 0)
    e = 2 if (mxl > 100 or mnl <= -99) else 1
    sci_width = neg + (mxns > 1) + (mxns - 1) + 4 + e
    if fixed_width <= sci_width:
        cells = [f"{x:.{rgt}f}" if np.isfinite(x) else _nonfinite(x) for x in xs]
    else:
        cells = [f"{x:.{mxns - 1}e}" if np.isfinite(x) else _nonfinite(x) for x in xs]
    width = max(map(len, cells))
    return [c.rjust(width) for c in cells]


def _nonfinite(x: float) -> str:
    return "NaN" if np.isnan(x) else ("Inf" if x > 0 else "-Inf")


def format_pval(pv, digits: int) -> list[str]:
    """R's ``format.pval(pv, digits)`` with eps = machine epsilon: fixed and small
    p-values formatted as two groups, those below eps as ``<2e-16``."""
    pv = np.asarray(pv, float)
    eps = np.finfo(float).eps
    out = [""] * len(pv)
    small = pv < eps
    rest = np.flatnonzero(~small)
    if len(rest):
        expo = np.floor(np.log10(np.where(pv[rest] > 0, pv[rest], 1e-50)))
        fixp = (expo >= -3) | ((expo == -4) & (digits > 1))
        for group in (rest[fixp], rest[~fixp]):
            if len(group):
                for i, cell in zip(group, r_format(pv[group], digits), strict=True):
                    out[i] = cell
    if small.any():
        d = max(1, digits - 2)
        nc = max((len(out[i]) for i in rest), default=0)
        if len(rest) and d > 1 and d + 6 > nc:
            d = max(1, nc - 7)
        sep = "" if (d == 1 and (not len(rest) or nc <= 6)) else " "
        for i in np.flatnonzero(small):
            out[i] = "<" + sep + r_format([eps], d)[0]
    return out


def _stars(p: float) -> str:
    for cut, sym in ((0.001, "***"), (0.01, "**"), (0.05, "*"), (0.1, ".")):
        if p <= cut:
            return sym
    return " "


def _char_matrix(rownames: list[str], header: list[str], cells: list[list[str]], right: bool) -> list[str]:
    """R's ``print.default`` of a character matrix with ``quote = FALSE``."""
    rw = max(map(len, rownames), default=0)
    widths = [max(len(h), *(len(r[j]) for r in cells)) for j, h in enumerate(header)]

    def just(s: str, w: int) -> str:
        return s.rjust(w) if right else s.ljust(w)

    lines = [" " * rw + "".join(" " + just(h, w) for h, w in zip(header, widths, strict=True))]
    for name, row in zip(rownames, cells, strict=True):
        lines.append(name.ljust(rw) + "".join(" " + just(c, w) for c, w in zip(row, widths, strict=True)))
    return lines


def print_coefmat(table: pd.DataFrame, digits: int = 4, signif_stars: bool = True) -> list[str]:
    """R's ``printCoefmat`` of an estimate / standard error / z value [/ p-value] table:
    estimates and errors rounded together to the decimals of the smallest, z values to
    ``digits - 1`` decimals, p-values by ``format.pval`` with significance stars.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed.ordinal.ordinal_summary import print_coefmat
    >>> tab = pd.DataFrame({"Estimate": [2.5031], "Std. Error": [0.5287], "z value": [4.7345]},
    ...                    index=["tempwarm"])
    >>> print("\\n".join(print_coefmat(tab)))
             Estimate Std. Error z value
    tempwarm   2.5031     0.5287   4.734
    """
    xm = table.to_numpy(dtype=float)
    has_p = table.shape[1] == 4
    dig_tst = max(1, min(5, digits - 1))
    cells = [[""] * table.shape[1] for _ in range(len(table))]
    coef_se = xm[:, :2]
    acs = np.abs(coef_se[np.isfinite(coef_se) & (coef_se != 0)])
    decimals = max(1, digits - (1 + int(np.floor(np.log10(acs.min()))) if len(acs) else 1))
    flat = r_format(np.round(coef_se.T.ravel(), decimals), digits)  # column-major, as R
    zeros = (coef_se.T.ravel() == 0) != (np.array([float(c) if c.strip() not in ("NaN", "NA") else np.nan
                                                   for c in flat]) == 0)
    for k in np.flatnonzero(zeros):  # a value that prints as 0 but is not (and vice versa)
        flat[k] = r_format([coef_se.T.ravel()[k]], max(1, digits - 1))[0]
    for k, cell in enumerate(flat):
        cells[k % len(table)][k // len(table)] = cell
    for i, cell in enumerate(r_format(np.round(xm[:, 2], dig_tst), digits)):
        cells[i][2] = cell
    header = list(table.columns)
    stars = False
    if has_p:
        pv = xm[:, 3]
        for i, cell in enumerate(format_pval(pv, dig_tst)):
            cells[i][3] = cell
        stars = signif_stars and bool(np.any(pv < 0.1))
        if stars:
            marks = [_stars(p) for p in pv]
            width = max(map(len, marks))
            for row, mark in zip(cells, marks, strict=True):
                row.append(mark.ljust(width))
            header.append("")
    lines = _char_matrix([str(i) for i in table.index], header, cells, right=True)
    if stars:
        lines += ["---", _LEGEND]
    return lines


def _info_table(m, extra: dict[str, str]) -> list[str]:
    """ordinal's ``info`` data frame printed with ``row.names = FALSE, right = FALSE``."""
    info = {"link": m.link, "threshold": m.threshold, "nobs": str(m.nobs),
            "logLik": f"{m.logLik:.2f}", "AIC": f"{m.AIC:.2f}", "niter": m.niter,
            "max.grad": f"{m.max_grad:.2e}", **extra}
    widths = {k: max(len(k), len(v)) for k, v in info.items()}
    return ["".join(" " + k.ljust(widths[k]) for k in info),
            "".join(" " + v.ljust(widths[k]) for k, v in info.items())]


def _header(m) -> list[str]:
    formula = m.formula.canonical()
    # R's cat(..., fill = TRUE): the formula moves to a line of its own at 80 characters
    first = [f"formula: {formula}"] if len(formula) + 9 < 80 else ["formula: ", formula]
    d = m.design
    effects = [f"{what}{e.text}" for what, e in (("scale:   ", getattr(d, "scale", None)),
                                                ("nominal: ", getattr(d, "nominal", None))) if e is not None]
    return [*first, *effects, f"data:    DataFrame, {d.n + m.n_dropped} rows", ""]


def _with_aliased(tab: pd.DataFrame, aliased: list[str], digits: int) -> list[str]:
    """printCoefmat with ordinal's NA rows for aliased coefficients (R prints ``NA``)."""
    if not aliased:
        return print_coefmat(tab, digits)
    full = pd.concat([tab, pd.DataFrame(np.nan, index=aliased, columns=tab.columns)])
    lines = print_coefmat(full, digits)
    return [line.replace("NaN", " NA") if any(line.startswith(a + " ") for a in aliased) else line
            for line in lines]


def _coefficient_blocks(m, digits: int) -> list[str]:
    tab = m.coefficients
    d = m.design
    nalpha, nloc = d.nalpha, getattr(d, "nloc", len(tab))
    aliased = list(getattr(d, "aliased", []))
    out = []
    if nloc > nalpha or aliased:
        note = f" ({len(aliased)} not defined because of singularities)" if aliased else ""
        out += ["", f"Coefficients:{note}", *_with_aliased(tab.iloc[nalpha:nloc], aliased, digits)]
    else:
        out += ["", "No Coefficients"]
    if len(tab) > nloc:
        out += ["", "log-scale coefficients:", *print_coefmat(tab.iloc[nloc:], digits)]
    out += ["", "Threshold coefficients:", *print_coefmat(tab.iloc[:nalpha, :3], digits)]
    if m.n_dropped:
        out.append(f"({m.n_dropped} observation{'s' if m.n_dropped > 1 else ''} deleted due to missingness)")
    return out + m.notes


def _cond_h(m) -> str:
    return f"{m.cond_H:.1e}" if m._vcov is not None else "NaN"


def clm_summary(m, digits: int = 4) -> Summary:
    """``print(summary(clm))``: formula, data, the info line (link, threshold, nobs,
    logLik, AIC, niter, max.grad, cond.H), the coefficients with z tests and the
    thresholds; tables ``coefficients`` and ``info``."""
    lines = _header(m) + _info_table(m, {"cond.H": _cond_h(m)}) + _coefficient_blocks(m, digits)
    return Summary("\n".join(lines), {"coefficients": m.coefficients, "info": _info_frame(m)})


def _info_frame(m) -> pd.DataFrame:
    return pd.DataFrame([{"link": m.link, "threshold": m.threshold, "nobs": m.nobs,
                          "logLik": m.logLik, "AIC": m.AIC, "niter": m.niter,
                          "max.grad": m.max_grad, "cond.H": m.cond_H}])


def clmm_summary(m, digits: int = 4) -> Summary:
    """``print(summary(clmm))``: the approximation, formula and data, the info line,
    the random-effects table, the number of groups, the coefficients with z tests and
    the thresholds; tables ``coefficients``, ``random`` (``VarCorr``) and ``info``."""
    if m.nAGQ > 1:
        first = ["Cumulative Link Mixed Model fitted with the adaptive Gauss-Hermite ",
                 f"quadrature approximation with {m.nAGQ} quadrature points ", ""]
    elif m.nAGQ < -1:
        first = ["Cumulative Link Mixed Model fitted with the Gauss-Hermite ",
                 f"quadrature approximation with {-m.nAGQ} quadrature points ", ""]
    else:
        first = ["Cumulative Link Mixed Model fitted with the Laplace approximation", ""]
    vc = m.VarCorr
    groups = [g if k == 0 or g != vc["Groups"].iloc[k - 1] else "" for k, g in enumerate(vc["Groups"])]
    cells = [[g, n, v, s] for g, n, v, s in zip(groups, vc["Name"], r_format(vc["Variance"], digits),
                                                r_format(vc["Std.Dev."], digits), strict=True)]
    header = ["Groups", "Name", "Variance", "Std.Dev."]
    if "Corr" in vc:  # random slopes: lme4's formatVC, correlations to 3 decimals
        header.append("Corr")
        for row, corr in zip(cells, vc["Corr"], strict=True):
            row.append(" ".join(f"{c:.3f}" for c in corr) + (" " if len(corr) else ""))
    random = _char_matrix([""] * len(cells), header, cells, right=False)
    groups = ",  ".join(f"{g} {n}" for g, n in m.ngrps.items())
    lines = (first + _header(m) + _info_table(m, {"cond.H": _cond_h(m)})
             + ["", "Random effects:", *random, f"Number of groups:  {groups} "]
             + _coefficient_blocks(m, digits))
    return Summary("\n".join(lines), {"coefficients": m.coefficients, "random": vc,
                                      "info": _info_frame(m)})
