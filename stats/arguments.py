"""The one check of the statistics' arguments (issue 43, item 9): every public function of
``acceptability.stats`` that takes an interval level, a number of resamples, a seed, an ADC
threshold or a count checks it here, before any work, so that an impossible value stops
with the argument's name, the value given, what is allowed and how to fix it, instead of
giving NaN, an interval whose lower end is above its upper, or an area above 1.

A wrong type is a ``TypeError`` (``n_boot=True``, ``ci="0.95"``: a bool is not a number
here), a value out of range a ``ValueError``. The bounds:

- ``ci``: a level strictly between 0 and 1; 95 (a percentage) is refused with the hint
  ``ci=0.95``, never converted.
- ``n_boot``: `MIN_N_BOOT` to `MAX_N_BOOT` resamples, 0 where a function documents it as
  "no intervals". An interval of fewer resamples is the range of a handful of values and
  may exclude its own estimate (1 resample: a point, no standard error; for a
  median-unbiased statistic all n resamples fall on one side of it with probability
  2 * 0.5**n: 6% at 5, 2e-6 at 20). 20 is a floor, not advice: reported intervals
  want thousands (the default is 10,000). The ceiling, 100 times the default, bounds
  the work (2**63 - 1 ran until killed).
- ``seed``: None (fresh entropy), a ``numpy.random.Generator``, or a whole number from 0
  to `MAX_SEED` = 2**32 - 1 (what ``numpy.random.RandomState`` and scikit-learn accept;
  ``default_rng`` refuses negatives with "expected non-negative integer").
- ADC thresholds (``delta``, ``deltas``, ``max_delta``): above 0 and at most `MAX_DELTA`
  z-units (the command line's range); a grid of ``adc_curve`` may start at 0.

Examples
--------
>>> from acceptability.stats.arguments import check_ci, check_n_boot, check_seed
>>> check_ci(0.9), check_n_boot(2_000), check_seed(7)
(0.9, 2000, 7)
>>> check_ci(95)
Traceback (most recent call last):
...
ValueError: ci=95: the interval level must be a number between 0 and 1 (exclusive). Fix: did you mean ci=0.95?
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

MIN_N_BOOT = 20
MAX_N_BOOT = 1_000_000
MAX_SEED = 2**32 - 1
MAX_DELTA = 100.0
MAX_COUNT = 1_000_000
"""The largest count of repetitions that is not resamples (``n_splits``, ``n_orders``)."""
INTERVALS = ("percentile", "bca")


def _show(value: Any) -> str:
    """The value as the user wrote it, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _refuse(name: str, value: Any, allowed: str, fix: str) -> ValueError:
    return ValueError(f"{name}={_show(value)}: {allowed}. Fix: {fix}")


def _not_a(kind: str, name: str, value: Any, allowed: str, fix: str) -> TypeError:
    return TypeError(f"{name}={_show(value)} ({type(value).__name__}): {allowed}, "
                     f"{kind}. Fix: {fix}")


def check_number(name: str, value: Any, low: float = -math.inf, high: float = math.inf,
                 *, above_low: bool = False, allowed: str = "", fix: str = "") -> float:
    """``value`` as a finite float in [``low``, ``high``] (``(low, high]`` with
    ``above_low``), else a TypeError (not a real number; bools are refused) or a
    ValueError naming ``name``, the value, what is ``allowed`` and the ``fix``.

    Examples
    --------
    >>> from acceptability.stats.arguments import check_number
    >>> check_number("k", 32, 0, above_low=True, allowed="a positive step")
    32.0
    """
    allowed = allowed or f"a finite number in {'(' if above_low else '['}{low:g}, {high:g}]"
    fix = fix or f"pass a number in that range for {name}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _not_a("not a number", name, value, allowed, fix)
    try:
        x = float(value)
    except OverflowError:  # an int beyond float's range
        x = math.copysign(math.inf, value)
    if not (math.isfinite(x) and (x > low if above_low else x >= low) and x <= high):
        raise _refuse(name, value, allowed, fix)
    return x


def check_whole(name: str, value: Any, low: int, high: int, allowed: str = "",
                fix: str = "") -> int:
    """``value`` as an int in [``low``, ``high``] (Python or numpy integers; bools and
    floats such as 1e4 are a TypeError), else a ValueError saying what is allowed.

    Examples
    --------
    >>> from acceptability.stats.arguments import check_whole
    >>> check_whole("n_bins", 5, 1, 1000)
    5
    """
    allowed = allowed or f"a whole number from {low:,} to {high:,}"
    fix = fix or f"pass {name} as a whole number in that range"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise _not_a("a whole number (int), not this type", name, value, allowed,
                     fix + (f", e.g. {name}={int(value)}" if isinstance(value, float)
                            and value.is_integer() else ""))
    if not low <= int(value) <= high:
        raise _refuse(name, value, allowed, fix)
    return int(value)


def check_positive(name: str, value: Any, high: float = math.inf) -> float:
    """A finite number greater than 0 (and at most ``high``): a step, a factor."""
    top = "" if math.isinf(high) else f" and at most {high:g}"
    return check_number(name, value, 0.0, high, above_low=True,
                        allowed=f"{name} must be a finite number greater than 0{top}",
                        fix=f"pass a positive {name}")


def check_probability(name: str, value: Any, example: str = "0.05") -> float:
    """A probability strictly between 0 and 1 (a significance level ``alpha``; the fix
    suggests ``name=example``)."""
    return check_number(name, value, 0.0, math.nextafter(1.0, 0.0), above_low=True,
                        allowed=f"{name} must be a number between 0 and 1 (exclusive)",
                        fix=f"e.g. {name}={example}")


def check_ci(value: Any, name: str = "ci") -> float:
    """An interval level strictly between 0 and 1; a percentage (1 < ``value`` <= 100)
    is refused with its proportion as the hint."""
    hint = (f"did you mean {name}={float(value) / 100:g}?"
            if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
            and 1 < value <= 100 else f"e.g. {name}=0.95 for a 95% interval")
    return check_number(name, value, 0.0, math.nextafter(1.0, 0.0), above_low=True,
                        allowed="the interval level must be a number between 0 and 1 "
                                "(exclusive)", fix=hint)


def check_n_boot(value: Any, name: str = "n_boot", allow_zero: bool = False,
                 used: bool = True, default: int = 10_000) -> int:
    """Bootstrap resamples, `MIN_N_BOOT` to `MAX_N_BOOT`; 0 (no intervals) where
    ``allow_zero``; any whole number up to `MAX_N_BOOT` where no interval is asked for
    (not ``used``: ``evaluate(ci=False)``, ``rater_reliability(ci=None)``); the fix
    suggests the function's ``default``."""
    if not used:
        return check_whole(name, value, 0, MAX_N_BOOT)
    none = " (or 0: no intervals)" if allow_zero else ""
    allowed = (f"an interval needs {MIN_N_BOOT} to {MAX_N_BOOT:,} bootstrap resamples{none} "
               "(fewer: the range of a handful of values, which may exclude its own estimate)")
    fix = f"use {name}={default:_} (the default) or at least {MIN_N_BOOT}{none}"
    n = check_whole(name, value, 0, MAX_N_BOOT, allowed, fix)
    if n < MIN_N_BOOT and not (allow_zero and n == 0):
        raise _refuse(name, value, allowed, fix)
    return n


def check_count(name: str, value: Any, low: int = 1) -> int:
    """A number of repetitions (splits, random orders, bins): ``low`` to `MAX_COUNT`."""
    return check_whole(name, value, low, MAX_COUNT)


def check_seed(value: Any, name: str = "seed", whole: bool = False) -> Any:
    """None, a ``numpy.random.Generator`` (used as is) or a whole number 0 to `MAX_SEED`;
    only the whole number where ``whole`` (a seed passed on as an int: PyMC's, bambi's)."""
    if not whole and (value is None or isinstance(value, np.random.Generator)):
        return value
    none, fresh = ("", "") if whole else ("None or ", "; None draws a fresh one")
    return check_whole(name, value, 0, MAX_SEED,
                       f"the seed must be {none}a whole number from 0 to {MAX_SEED:,} "
                       "(2**32 - 1)", f"e.g. {name}=0 (the default){fresh}")


def check_delta(name: str, value: Any, zero: bool = False) -> float:
    """An ADC threshold in z-units: above 0 (0 too where ``zero``) and at most `MAX_DELTA`."""
    least = "at least 0" if zero else "greater than 0"
    return check_number(name, value, 0.0, MAX_DELTA, above_low=not zero,
                        allowed=f"an ADC threshold must be {least} and at most "
                                f"{MAX_DELTA:g} z-units", fix=f"e.g. {name}=0.5")


def check_deltas(value: Any, name: str = "deltas", zero: bool = False) -> tuple[float, ...]:
    """A sequence of ADC thresholds (`check_delta` each, named ``deltas[i]``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise _not_a("a sequence of numbers", name, value, "ADC thresholds in z-units",
                     f"e.g. {name}=(0.5, 1, 5)")
    return tuple(check_delta(f"{name}[{i}]", d, zero) for i, d in enumerate(value))


def check_choice(name: str, value: Any, choices: tuple[str, ...], lower: bool = False) -> str:
    """One of ``choices`` (with ``lower``: in any case, returned in lower case)."""
    if not isinstance(value, str):
        raise _not_a("not text", name, value, f"{name} must be one of {list(choices)}",
                     f"e.g. {name}={choices[0]!r}")
    if (value.lower() if lower else value) not in choices:
        raise _refuse(name, value, f"{name} must be one of {list(choices)}",
                      f"e.g. {name}={choices[0]!r}")
    return value.lower() if lower else value


def check_resampling(n_boot: Any, ci: Any, method: Any, seed: Any, deltas: Any,
                     max_delta: Any, batch: Any = None
                     ) -> tuple[int, float, Any, tuple[float, ...], float]:
    """The settings that ``bootstrap`` and ``compare_all`` share, checked before any work:
    (``n_boot``, ``ci``, ``seed``, ``deltas``, ``max_delta``); ``method`` is "percentile"
    or "bca", ``batch`` None or a number of resamples."""
    check_choice("method", method, INTERVALS, lower=True)
    if batch is not None:
        check_whole("batch", batch, 1, MAX_N_BOOT)
    return (check_n_boot(n_boot), check_ci(ci), check_seed(seed), check_deltas(deltas),
            check_delta("max_delta", max_delta))


def check_intervals(n_boot: Any, seed: Any, ci: Any) -> tuple[int, Any, float]:
    """(``n_boot``, ``seed``, ``ci``) of a function whose ``n_boot=0`` means "no
    intervals" (the benchmark accuracies, SyntaxGym's scores)."""
    return check_n_boot(n_boot, allow_zero=True), check_seed(seed), check_ci(ci)
