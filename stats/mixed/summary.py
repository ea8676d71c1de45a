"""The summary of an lmer / glmer fit in the layout of lme4's ``summary.merMod``
(Bates et al. 2015, J. Stat. Softw. 67(1), section 5.1; ``print.summary.merMod``), as a
[Summary][acceptability.stats.mixed.results.Summary] that also carries its tables.
By hand: statsmodels prints its own layout, not lme4's. The fit is typed as the results
base: the lme4 accessors it reads (``VarCorr``, ``coefficients``, ...) are
``LmerResult``'s, which imports this module."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.mixed.results import MixedResult, Summary

__all__ = ["format_summary", "lme4_summary"]


def _random_table(m: MixedResult) -> str:
    vc = m.VarCorr
    rows = []
    body = vc.iloc[:-1] if m._has_sigma else vc
    for grp, block in body.groupby("grp", sort=False):
        diag = block[block.var2.isna()]
        for i, r in enumerate(diag.itertuples()):
            cors = [
                block[(block.var1 == prev) & (block.var2 == r.var1)].sdcor.iloc[0]
                for prev in diag.var1.iloc[:i]
            ]
            rows.append(
                [grp if i == 0 else "", r.var1, f"{r.vcov:.6g}", f"{r.sdcor:.5g}"]
                + [f"{c:.2f}" for c in cors]
            )
    if m._has_sigma:
        rows.append(["Residual", "", f"{m.sigma**2:.6g}", f"{m.sigma:.5g}"])
    width = max(len(r) for r in rows)
    header = ["Groups", "Name", "Variance", "Std.Dev.", "Corr"][: max(width, 4)]
    header += [""] * (width - len(header))
    cells = [header] + [r + [""] * (width - len(r)) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(width)]
    return "\n".join(" " + " ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)


def _fixed_table(m: MixedResult) -> str:
    tab = m.coefficients
    p_col = tab.columns[-1]
    p = tab.pop(p_col)
    text = tab.to_string(float_format=lambda v: f"{v:.6g}").splitlines()
    p_text = [p_col] + [_format_p(v) for v in p]
    width = max(map(len, p_text))
    return "\n".join(f"{line} {pv:>{width}}" for line, pv in zip(text, p_text, strict=True))


def _format_p(p: float) -> str:
    """R's format.pval with lme4's eps: tiny p-values print as '< 2e-16'."""
    return "< 2e-16" if p < 2e-16 else f"{p:.3g}"


def _strip(name: str, minlength: int) -> str:
    """R's ``.Internal(abbreviate())`` of one name (R's character.c, ``stripchars``): from
    the right, never the first character, drop until ``minlength`` (spaces not counted):
    lower-case vowels ending a word, other lower-case vowels, lower-case letters ending a
    word, other lower-case letters not starting a word, then any non-space not starting one."""
    s = list(name)
    if len(s) <= minlength:
        return name
    while s and s[-1].isspace():  # trailing spaces go; inner ones count as word breaks
        s.pop()
    spaces = sum(c.isspace() for c in s[1:])

    def first(i: int) -> bool:
        return s[i - 1].isspace()

    def last(i: int) -> bool:
        return not s[i - 1].isspace() and (i + 1 == len(s) or s[i + 1].isspace())

    rules = [lambda i: s[i] in "aeiou" and last(i), lambda i: s[i] in "aeiou" and not first(i),
             lambda i: s[i].islower() and last(i), lambda i: s[i].islower() and not first(i),
             lambda i: not first(i) and not s[i].isspace()]
    for drop in rules:
        if len(s) - spaces <= minlength:
            break
        for i in range(len(s) - 1, 0, -1):
            if i < len(s) and drop(i):
                del s[i]
            if len(s) - spaces <= minlength:
                break
    out = "".join(s)
    return out.replace(" ", "") if len(out) > minlength else out


def abbreviate(names: list[str], minlength: int) -> list[str]:
    """R's ``abbreviate(names, minlength)``: each name shortened by ``_strip``, and names
    that come out equal shortened again with ``minlength`` one longer until they differ
    (lme4 labels the correlation of fixed effects with it: 11 for rows, 6 for columns).

    Examples
    --------
    >>> from acceptability.stats.mixed.summary import abbreviate
    >>> abbreviate(["(Intercept)", "period2", "Product4:Information2", "poly(Days, 2)1"], 6)
    ['(Intr)', 'perid2', 'Pr4:I2', 'p(D,2)']
    """
    names = [n.strip() for n in names]
    unique = list(dict.fromkeys(names))
    out = dict.fromkeys(unique, "")
    todo, length = unique, minlength
    while todo:
        out.update({n: _strip(n, length) for n in todo})
        values = list(out.values())
        clash = {v for v in values if values.count(v) > 1}
        todo, length = [n for n in unique if out[n] in clash], length + 1
    return [out[n] for n in names]


def _fixed_correlation(m: MixedResult) -> str:
    """lme4's table: rows abbreviated to 11 characters, columns to 6, lower triangle."""
    cov = m.vcov.to_numpy()
    sd = np.sqrt(np.diag(cov))
    cor = cov / np.outer(sd, sd)
    names = list(m.fixef.index)
    rows, short = abbreviate(names, 11), abbreviate(names, 6)
    # R: format(round(x, 3), nsmall = 3) pads every entry to one width; print(quote = FALSE)
    # left-aligns the cells and headers of the character matrix and keeps trailing blanks
    text = [f"{v:.3f}" for v in np.round(cor[np.tril_indices(len(names))], 3)]
    cw = max(map(len, text))
    widths = [max(len(c), cw) for c in short[:-1]]
    width = max(map(len, rows[1:]))
    lines = [" " * width + " " + " ".join(f"{c:<{w}}" for c, w in zip(short, widths, strict=False))]
    for i in range(1, len(names)):
        cells = [f"{cor[i, j]:>{cw}.3f}" if j < i else "" for j in range(len(names) - 1)]
        lines.append(f"{rows[i]:<{width}} " + " ".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)))
    return "\n".join(lines)


def _header(m: MixedResult) -> list[str]:
    if m._kind == "glmer":
        how = "Laplace Approximation" if m.nagq == 1 else f"Adaptive Gauss-Hermite Quadrature, nAGQ = {m.nagq}"
        family = m.design.glm_family.label(m.dispersion)
        return [f"Generalized linear mixed model fit by maximum likelihood ({how}) ['glmerMod']",
                f" Family: {family}  ( {m.link} )"]
    how = "REML" if m.REML else "maximum likelihood"
    return [f"Linear mixed model fit by {how}. t-tests use Satterthwaite's method ['lmerModLmerTest']"]


def format_summary(m: MixedResult) -> str:
    """lme4-style summary: criterion, scaled residuals, random and fixed effects, notes."""
    out = _header(m) + [f"Formula: {m.formula.text}", f"Engine: {m.engine}"]
    if m.n_dropped:
        out.append(f"Rows dropped for missing values: {m.n_dropped}")
    out.append("")
    if m.REML:
        out.append(f"REML criterion at convergence: {m.deviance:.1f}")
    else:
        crit = pd.DataFrame(
            [[m.AIC, m.BIC, m.logLik, m.deviance, m.nobs - len(m.fixef)]],
            columns=["AIC", "BIC", "logLik", "deviance", "df.resid"],
        )
        out.append(crit.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    q = np.quantile(m.scaled_residuals, [0, 0.25, 0.5, 0.75, 1])
    res = pd.DataFrame([q], columns=["Min", "1Q", "Median", "3Q", "Max"])
    out += ["", "Scaled residuals:", res.to_string(index=False, float_format=lambda v: f"{v:.4f}")]
    out += ["", "Random effects:", _random_table(m)]
    counts = "; ".join(f"{g}, {n}" for g, n in m.ngrps.items())
    out.append(f"Number of obs: {m.nobs}, groups:  {counts}")
    out += ["", "Fixed effects:", _fixed_table(m)]
    if 1 < len(m.fixef) <= 12:
        out += ["", "Correlation of Fixed Effects:", _fixed_correlation(m)]
    elif len(m.fixef) > 12:  # lme4's print.summary.merMod
        out += ["", f"Correlation matrix not shown by default, as p = {len(m.fixef)} > 12."]
    out += ["", f"optimizer ({m.engine}) {'converged' if m.converged else 'did NOT converge'}"]
    out += m.notes
    return "\n".join(out)


def lme4_summary(m: MixedResult) -> Summary:
    """The printout of [format_summary][acceptability.stats.mixed.summary.format_summary]
    with its tables: ``coefficients``, ``random`` (``VarCorr``), ``residuals`` (quantiles
    of the scaled residuals) and ``criteria`` (AIC, BIC, logLik, deviance, df.resid)."""
    q = np.quantile(m.scaled_residuals, [0, 0.25, 0.5, 0.75, 1])
    criteria = pd.DataFrame([[m.AIC, m.BIC, m.logLik, m.deviance, m.nobs - len(m.fixef)]],
                            columns=["AIC", "BIC", "logLik", "deviance", "df.resid"])
    tables = {"coefficients": m.coefficients, "random": m.VarCorr, "criteria": criteria,
              "residuals": pd.DataFrame([q], columns=["Min", "1Q", "Median", "3Q", "Max"])}
    return Summary(format_summary(m), tables)
