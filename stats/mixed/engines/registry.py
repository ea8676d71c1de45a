"""The engines and the one function that chooses among them.

By measurement (``benchmarks/bench_lmm_engines.py``): glmm for every structure it takes,
lme4's penalised least squares for the linear models it refuses, the own Laplace fit for
the GLMMs it lacks (a family, a link, trials with prior weights), and bambi for Bayesian
fits ([brm][acceptability.stats.mixed.brm.brm] names it; it is the only one that takes
``family="bernoulli"``).
"""

from __future__ import annotations

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.bambi_engine import BambiEngine
from acceptability.stats.mixed.engines.glmm_engine import GlmmEngine
from acceptability.stats.mixed.engines.laplace_engine import LaplaceEngine
from acceptability.stats.mixed.engines.pls_engine import PlsEngine
from acceptability.stats.mixed.engines.protocol import Engine, EngineRefused, FitSettings

__all__ = ["ENGINES", "choose_engine"]

_GLMM = GlmmEngine()
# in order of preference; the Laplace fit takes the random-effects structures glmm takes
ENGINES: dict[str, Engine] = {"glmm": _GLMM, "pls": PlsEngine(),
                              "laplace": LaplaceEngine(_GLMM.structure_refusal), "bambi": BambiEngine()}


def choose_engine(design: MixedDesign, engine: str | None = None,
                  settings: FitSettings | None = None) -> Engine:
    """The engine that fits ``design``: the one named, else the first that takes it of
    glmm, the own PLS (linear models), the own Laplace fit (GLMMs glmm lacks) and bambi
    (``bernoulli``, Bayesian); a named engine that refuses says which engine fits; a GLMM glmm
    refuses is an error.

    Parameters
    ----------
    design
        The model's design ([model_design][acceptability.stats.mixed.stages.model_design]).
    engine
        ``"glmm"``, ``"pls"``, ``"laplace"`` or ``"bambi"``; None chooses.
    settings
        How it will fit (nAGQ = 0, lme4's fast fit, is the Laplace engine's); None: any.

    Returns
    -------
    Engine
        An adapter of the [Engine][acceptability.stats.mixed.engines.protocol.Engine] protocol.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import choose_engine, model_design
    >>> rows = pd.DataFrame({"rt": [410.0, 395, 520, 480, 610, 570, 450, 505],
    ...                      "len": [3, 2, 5, 4, 7, 6, 3, 5], "subj": list("ppqqrrss")})
    >>> [choose_engine(model_design(f, rows)).name
    ...  for f in ("rt ~ len + (1 | subj)", "rt ~ len + (0 + len | subj)")]
    ['glmm', 'pls']
    """
    if engine is not None:
        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r}: use one of {sorted(ENGINES)}")
        chosen = ENGINES[engine]
        if (why := chosen.refusal(design, settings)) is not None:
            other = next((name for name, e in ENGINES.items() if e.refusal(design, settings) is None), None)
            fits = f"; engine {other!r} fits it" if other else ""
            raise EngineRefused(f"engine {engine!r} cannot fit {design.formula.text!r}: {why}{fits}")
        return chosen
    for candidate in ENGINES.values():  # in order of preference
        if candidate.refusal(design, settings) is None:
            return candidate
    f = design.formula
    raise EngineRefused(
        f"glmer: the random-effects structure of {f.text!r} ({', '.join(map(str, f.random))}) "
        "is not available for GLMMs here: write each grouping factor once, with an intercept "
        "(e.g. (1 + x | g) instead of (x || g))")
