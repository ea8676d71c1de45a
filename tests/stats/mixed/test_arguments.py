"""Impossible arguments of the mixed models' public entry points (issue 43, item 9) stop with
an error naming the argument and the value (``name=value: ...``), a TypeError or ValueError
from ``acceptability.stats.arguments``, before any work.

Each row is one argument and one impossible value of the issue's list (levels -1, 1.5, 2,
95, True; counts 0, -1, 1.5, True, 2**63 - 1; seeds -1, 2**32, "x"). The work that an
argument that passed would start (a fit, the sampler, a bootstrap's simulation, a
likelihood profile) is replaced by `Reached`, so a row that let its value through fails
quickly.

On the code before these checks (commit e2eabe9) 8 of the 139 rows then in the table
passed (glmer's nAGQ, and clmm's nAGQ 0, -1 and 1.5, had their own checks); 131 failed:
26 returned numbers (Wald, profile and clm/clmm intervals at levels -1, 1.5, 2, 95, True;
NaN or lower above upper), 46 went on to the work (a fit, the sampler or a bootstrap of
2**63 - 1 refits), the rest stopped with numpy's "expected non-negative integer", "'<' not
supported", an AttributeError, a memory estimate of 8e16 GiB, or (emmeans, ls_means,
brm's draws/chains/thin 0 and -1) a message without a fix. The 11 rows added since (rope
bounds, bayes_factor's ref_val) failed there too (an AttributeError of the bare result).
"""

from __future__ import annotations

import importlib
import re
import warnings

import pytest

from acceptability import stats
from acceptability.stats.mixed.brm import BrmResult
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_ordinal import wine

LEVELS = (-1, 1.5, 2, 95, True, float("nan"), "0.95")
COUNTS = (0, -1, 1.5, True, 2**63 - 1)
SEEDS = (-1, 2**32, "x", 1.5, True)
# the modules (stats.mixed's names lmer and brm are the functions)
lmer, mer, lmm_result, brm_module, cumulative_mixed, parametric = (
    importlib.import_module(f"acceptability.stats.mixed.{m}")
    for m in ("lmm.lmer", "mer", "lmm.result", "brm", "ordinal.cumulative_mixed",
              "fitted.parametric"))
GLMER = "cbind(incidence, size - incidence) ~ period + (1 | herd)"
CLMM = "rating ~ temp + contact + (1 | judge)"


class Reached(Exception):
    """The work an impossible argument should never reach."""


def _reached(*args, **kwargs):
    raise Reached("the argument was let through to the work")


@pytest.fixture(scope="module")
def fits() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {"lmer": stats.lmer("Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy")),
                "ham": stats.lmer("Informed.liking ~ Product + (1 | Consumer)", lme4_data("ham")),
                "glmer": stats.glmer(GLMER, lme4_data("cbpp")),
                "clm": stats.clm("rating ~ temp + contact", wine()),
                "clmm": stats.clmm(CLMM, wine())}


@pytest.fixture
def no_work(monkeypatch):
    """Fits, sampling, simulation and profiles raise `Reached`."""
    for module, name in ((lmer, "fit"), (mer, "fit"), (lmm_result, "fit"), (cumulative_mixed, "_fit"),
                         (brm_module, "fit"), (parametric, "Simulator"), (mer, "profile_confint")):
        monkeypatch.setattr(module, name, _reached)


def _brm(**kw):
    return stats.brm("Reaction ~ Days + (1 | Subject)", lme4_data("sleepstudy"), **kw)


BARE_BRM = object.__new__(BrmResult)  # post-fit checks come before the fit is read
CALLS = {
    # levels: emmeans/ls_means refused them before (their own copy of the check); every
    # confint returned numbers (NaN for 1.5 and 2, lower above upper for -1) or an
    # unclear error (arviz, scipy, "'<' not supported"), brm's an AttributeError
    "emmeans level": lambda f, v: stats.emmeans(f["ham"], "Product", level=v),
    "ls_means level": lambda f, v: stats.ls_means(f["ham"], level=v),
    "lmer confint Wald level": lambda f, v: f["lmer"].confint(level=v, method="Wald"),
    "lmer confint profile level": lambda f, v: f["lmer"].confint(level=v),
    "lmer confint boot level": lambda f, v: f["lmer"].confint(level=v, method="boot"),
    "glmer confint level": lambda f, v: f["glmer"].confint(level=v),
    "clm confint level": lambda f, v: f["clm"].confint(level=v),
    "clmm confint level": lambda f, v: f["clmm"].confint(level=v),
    "brm confint level": lambda f, v: BARE_BRM.confint(level=v),
    "brm summary hdi_prob": lambda f, v: BARE_BRM.summary(hdi_prob=v),
    "brm rope hdi_prob": lambda f, v: BARE_BRM.rope("Days", hdi_prob=v),
    # counts: the bootstrap ran (or, 2**63 - 1, would run until killed), brm sampled
    "lmer confint nsim": lambda f, v: f["lmer"].confint(method="boot", nsim=v),
    "lmer confint n_jobs": lambda f, v: f["lmer"].confint(method="boot", nsim=20, n_jobs=v),
    "brm draws": lambda f, v: _brm(draws=v),
    "brm tune": lambda f, v: _brm(tune=v),
    "brm chains": lambda f, v: _brm(chains=v),
    "brm thin": lambda f, v: _brm(thin=v),
    "glmer nAGQ": lambda f, v: stats.glmer(GLMER, lme4_data("cbpp"), nAGQ=v),
    "clmm nAGQ": lambda f, v: stats.clmm(CLMM, wine(), nAGQ=v),
    # seeds: numpy's "expected non-negative integer" after the work began, or no check
    "lmer confint seed": lambda f, v: f["lmer"].confint(method="boot", nsim=20, seed=v),
    "brm seed": lambda f, v: _brm(seed=v),
    "brm ppc seed": lambda f, v: BARE_BRM.ppc(seed=v),
    # numbers: an AttributeError of the bare result before (a fit: NaN or inf, no error)
    "brm rope bounds[0]": lambda f, v: BARE_BRM.rope("Days", bounds=(v, 0.1)),
    "brm bayes_factor ref_val": lambda f, v: BARE_BRM.bayes_factor("Days", ref_val=v),
}
NUMBERS = (float("nan"), float("inf"), "x", True, None)
VALUES = {"level": LEVELS, "hdi_prob": LEVELS, "seed": SEEDS, "bounds[0]": NUMBERS,
          "ref_val": NUMBERS}
EXTRA = [("brm target_accept", v) for v in (0, 1, 1.5, -1, True, float("nan"))]
CALLS["brm target_accept"] = lambda f, v: _brm(target_accept=v)
CASES = [(call, v) for call in CALLS if call != "brm target_accept"
         for v in VALUES.get(call.split()[-1], COUNTS)] + EXTRA
CASES = [c for c in CASES if not (c[0] == "brm tune" and c[1] == 0)]  # no warm-up is allowed
CASES = [c for c in CASES if not (c[0] == "glmer nAGQ" and c[1] == 0)]  # lme4's fast fit (issue 44)
CASES += [("clmm nAGQ", -(2**63)), ("lmer confint n_jobs", 10**7)]


@pytest.mark.parametrize(("call", "value"), CASES, ids=[f"{c}={v!r}" for c, v in CASES])
def test_impossible_argument_is_refused_by_name(fits, no_work, call, value):
    name = call.split()[-1]
    shown = repr(value)
    with pytest.raises((TypeError, ValueError)) as error:
        CALLS[call](fits, value)
    message = str(error.value)
    assert re.search(rf"(^|\W){re.escape(name)}={re.escape(shown)}", message), message
    assert "Fix:" in message or "use " in message, message


def test_valid_arguments_still_pass(fits, monkeypatch):
    """The bounds refuse no ordinary value: levels 0.5-0.99, nAGQ 0, 1 to 25 odd for glmer."""
    for level in (0.5, 0.9, 0.99):
        assert fits["lmer"].confint(level=level, method="Wald").shape[1] == 2
        assert len(stats.emmeans(fits["ham"], "Product", level=level)) == 4  # 4 products
        assert fits["clmm"].confint(level=level).notna().all().all()
    monkeypatch.setattr(cumulative_mixed, "_fit", _reached)
    monkeypatch.setattr(lmer, "fit", _reached)
    for nagq in (1, 25, -25, 100):
        with pytest.raises(Reached):
            stats.clmm(CLMM, wine(), nAGQ=nagq)
    for nagq in (0, 1, 25):
        with pytest.raises(Reached):
            stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)",
                        lme4_data("cbpp"), nAGQ=nagq)
