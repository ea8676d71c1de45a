"""Shared fixtures: the real reference data, read from ../shared/data (or
$ACCEPTABILITY_DATA_DIR).

A missing data folder or optional package is a test *failure* when the environment
variable ``CI`` is set (CI runs with ``CI=true``) or ``ACCEPTABILITY_REQUIRE_DATA=1``:
green CI then means every test ran. Elsewhere the test skips and says what is missing.
Every test reaches the data and the optional packages through :func:`need_data`,
``@pytest.mark.needs_data("name")`` and :func:`need_module` here.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pandas as pd
import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist (``make test``: two workers on two cores) each worker computes on one
    thread (torch, OpenMP, BLAS): two threads per worker oversubscribed the cores, and
    torch's kernels then ran up to 20x slower (tiny GPT-2: 9.5 s for 400 sentences
    against 0.5 s)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
        try:
            import torch
        except ImportError:
            return
        torch.set_num_threads(1)


REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("ACCEPTABILITY_DATA_DIR") or REPO.parent / "shared" / "data")
os.environ["ACCEPTABILITY_DATA_DIR"] = str(DATA_DIR)


def require_everything() -> bool:
    """True in CI (``CI`` set, not 0/false) or with ``ACCEPTABILITY_REQUIRE_DATA=1``."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return ci or os.environ.get("ACCEPTABILITY_REQUIRE_DATA", "").strip() == "1"


def missing(what: str) -> NoReturn:
    """Fail (CI / ACCEPTABILITY_REQUIRE_DATA=1) or skip (elsewhere) because ``what`` is absent."""
    if require_everything():
        pytest.fail(f"{what}; required because CI or ACCEPTABILITY_REQUIRE_DATA=1 is set",
                    pytrace=False)
    pytest.skip(what, allow_module_level=True)


def need_data(name: str, file: str | None = None) -> Path:
    """The reference data folder ``DATA_DIR/name`` (and ``file`` in it, when given)."""
    folder = DATA_DIR / name
    target = folder / file if file else folder
    if not (target.is_file() if file else target.is_dir()):
        missing(f"reference data {target} not found (set ACCEPTABILITY_DATA_DIR)")
    return folder


def need_module(name: str) -> ModuleType:
    """``pytest.importorskip`` that fails instead of skipping where everything is required."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        missing(f"optional package {name!r} not importable ({err}); "
                "install the extras: pip install -e '.[all,dev]'")


# lme4's numbers: tests/fixtures/lme4_reference.csv, the verbatim output of
# benchmarks/lme4_reference.R (R 4.2.2, lme4 1.1.31, Matrix 1.5.3; Debian r-base-core,
# r-cran-lme4) on the frames benchmarks/lme4_frames.py writes: the LI-Adger frames of
# stats.judgment_models (bert-large-cased PLL, z-scored) and tests/stats/mixed/test_lmer.py's
# nested_frame(). Every quantity (fixed effects, SEs, variance components, REML and ML
# logLik, AIC, BIC, anova Chisq, Wald limits) must agree within LME4_TOL, absolute;
# variance components within VARIANCE_RTOL, relative (issue 12), so that the smallest
# (4.4e-4) is held to 4.4e-8 and InstEval's residual variance (1.39) to 1.4e-4.
LME4_REFERENCE = REPO / "tests" / "fixtures" / "lme4_reference.csv"
LME4_TOL = 1e-4
VARIANCE_RTOL = 1e-4
_FIT_ROWS = ("fixef", "se", "vcov", "ngrps", "logLik", "AIC", "BIC", "npar", "nobs")


def lme4_reference(prefix: str) -> dict[str, float]:
    """lme4's numbers under ``prefix`` (``"sentence|REML|"``...), names without it."""
    table = pd.read_csv(LME4_REFERENCE, comment="#", header=None, names=["name", "value"])
    rows = table[table["name"].str.startswith(prefix)]
    if rows.empty:
        raise KeyError(f"no rows {prefix!r} in {LME4_REFERENCE}: rerun benchmarks/lme4_reference.R")
    return dict(zip(rows["name"].str[len(prefix):], rows["value"].astype(float), strict=True))


def assert_matches_lme4(m, prefix: str, groups: dict[str, str] | None = None) -> None:
    """Check an ``LmerResult`` against every lme4 number under ``prefix`` that describes a
    fit (fixef|name, se|name, vcov|grp|var1|var2, ngrps|grp, logLik, AIC, BIC, npar, nobs;
    the caller checks the rest, such as Wald limits). ``groups`` maps lme4's labels of
    grouping factors to ours (lme4 writes ``g/h`` as ``h:g``)."""
    vc = m.VarCorr.fillna({"var1": "", "var2": ""})
    vcov = {f"vcov|{r.grp}|{r.var1}|{r.var2}": r.vcov for r in vc.itertuples()}
    ours = {"logLik": m.logLik, "AIC": m.AIC, "BIC": m.BIC, "npar": m.npar, "nobs": m.nobs}
    ours |= {f"fixef|{k}": v for k, v in m.fixef.items()} | vcov
    ours |= {f"se|{k}": v for k, v in m.se.items()}
    ours |= {f"ngrps|{g}": len(t) for g, t in m.ranef.items()}
    reference = lme4_reference(prefix)
    for name, value in reference.items():
        kind, *rest = name.split("|")
        if kind not in _FIT_ROWS:
            continue
        if kind in ("vcov", "ngrps"):
            name = "|".join([kind, (groups or {}).get(rest[0], rest[0]), *rest[1:]])
        if kind == "vcov":
            assert ours[name] == pytest.approx(value, rel=VARIANCE_RTOL), name
        else:
            assert ours[name] == pytest.approx(value, abs=LME4_TOL), name
    assert len(vcov) == sum(k.startswith("vcov|") for k in reference)  # none left unchecked


def assert_anova_matches_lme4(table: pd.DataFrame, prefix: str) -> None:
    """``anova(m0, m1)`` with ML refits: logLik, AIC, BIC of both rows, Chisq and Df."""
    r = lme4_reference(prefix)
    for col in ("logLik", "AIC", "BIC"):
        assert table[col].to_numpy() == pytest.approx([r[f"{col}0"], r[f"{col}1"]], abs=LME4_TOL)
    assert table["Chisq"].iloc[1] == pytest.approx(r["Chisq"], abs=LME4_TOL)
    assert table["Df"].iloc[1] == r["Df"]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")``."""
    for mark in item.iter_markers("needs_data"):
        if mark.args:
            need_data(*mark.args)


@pytest.fixture(scope="session")
def li_adger_dir() -> Path:
    return need_data("li-adger")


@pytest.fixture(scope="session")
def li_adger(li_adger_dir):
    from acceptability import data

    return data.load_li_adger(li_adger_dir)


@pytest.fixture(scope="session")
def li_adger_scores(li_adger_dir):
    from acceptability import data

    return data.load_li_adger_scores(li_adger_dir)


@pytest.fixture(scope="session")
def blimp_fc_frame():
    from tests.blimp_fc import blimp_fc_frame

    return blimp_fc_frame(need_data("blimp", "raw_results/human_responses.csv"))


@pytest.fixture(scope="session")
def example():
    from acceptability import data

    return data.load_example()


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    """A score cache of the test's own, so no test reads another's cached scores."""
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="session")
def latin_square_files(tmp_path_factory) -> dict[str, Path]:
    """TurBLiMP's human study as a user's three CSV files (tests/latin_square.py): 432
    sentences, 216 pairs, 6,480 Likert 1-7 ratings whose rater column is ``subject``."""
    need_module("openpyxl")
    from tests.latin_square import write_study

    return write_study(need_data("turblimp", "data/human_judgments/base_judgments.xlsx"),
                       tmp_path_factory.mktemp("latin-square"))
