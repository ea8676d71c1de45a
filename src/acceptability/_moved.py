"""Old names of the 0.1 layout, kept for one release with a ``DeprecationWarning``.

Issue 29 reorganised each subpackage into rooms (``stats.inference``, ``stats.mixed``,
``stats.benchmarks``, ``scoring.backends``, ``scoring.baselines``, ``scoring.training``,
``reports.cli``). Code written against 0.1 keeps running: an old module path imports the new
module (`MODULES`, through a meta-path finder installed by ``acceptability``), an old
package attribute resolves to its new home (`NAMES`), and an old keyword argument is
renamed (`renamed_kwargs`). Each says where the name went; all go in 0.3. The
CHANGELOG lists the same moves.
"""

from __future__ import annotations

import functools
import importlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from acceptability._warnings import warn

REMOVED_IN = "0.3"

MODULES: dict[str, str] = {  # old module -> new module
    "acceptability.stats.bootstrap": "acceptability.stats.inference.bootstrap",
    "acceptability.stats.bootstrap_arrays": "acceptability.stats.inference.arrays",
    "acceptability.stats.resample": "acceptability.stats.inference.resample",
    "acceptability.stats.formula": "acceptability.stats.mixed.formula",
    "acceptability.stats.mixed_design": "acceptability.stats.mixed.design",
    "acceptability.stats.mixed_checks": "acceptability.stats.mixed.checks",
    "acceptability.stats.pls": "acceptability.stats.mixed.pls",
    "acceptability.stats.lmer": "acceptability.stats.mixed.lmer",
    "acceptability.stats.lmer_summary": "acceptability.stats.mixed.summary",
    "acceptability.stats.lmer_profile": "acceptability.stats.mixed.profile",
    "acceptability.stats.lmer_boot": "acceptability.stats.mixed.parametric",
    "acceptability.stats.brm": "acceptability.stats.mixed.brm",
    "acceptability.stats.judgment_models": "acceptability.stats.mixed.judgment",
    "acceptability.stats.marvin_linzen": "acceptability.stats.benchmarks.marvin_linzen",
    "acceptability.stats.zorro": "acceptability.stats.benchmarks.zorro",
    "acceptability.stats.shallow": "acceptability.stats.benchmarks.shallow",
    "acceptability.stats.forced_choice": "acceptability.stats.benchmarks.forced_choice",
    "acceptability.stats.reliability": "acceptability.stats.benchmarks.reliability",
    "acceptability.stats.training": "acceptability.stats.benchmarks.training",
    "acceptability.stats.rules": "acceptability.scoring.baselines.rules",
    "acceptability.scoring.causal": "acceptability.scoring.backends.causal",
    "acceptability.scoring.masked": "acceptability.scoring.backends.masked",
    "acceptability.scoring.classifier": "acceptability.scoring.backends.classifier",
    "acceptability.scoring.ngram": "acceptability.scoring.baselines.ngram",
    "acceptability.scoring.tagger": "acceptability.scoring.baselines.tagger",
    "acceptability.reports.experiment": "acceptability.reports.cli.experiment",
    "acceptability.reports.pipeline": "acceptability.reports.cli.pipeline",
    "acceptability.reports.training_cli": "acceptability.reports.cli.training",
    "acceptability.reports.seed004": "acceptability.reports.cli.seed004",
    "acceptability.reports.training": "acceptability.scoring.training.experiments",
}

NAMES: dict[str, str] = {  # old package attribute -> "new.module:attribute"
    f"acceptability.stats.{name}": f"acceptability.scoring.baselines.rules:{name}"
    for name in ("BLIMP_NO_RULE", "BLIMP_RULES", "ZORRO_RULES", "Rule", "rule_for",
                 "rule_outcomes")
} | {
    f"acceptability.scoring.baselines.{name}": f"acceptability.scoring.baselines.corpus:{name}"
    for name in ("CorpusBaselines", "baseline_scores", "tag_sentences", "train_baselines")
}


def _moved(old: str, new: str) -> None:
    warn(f"{old} moved to {new}; the old name is removed in {REMOVED_IN}",
         DeprecationWarning)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module path as its new module (same object in ``sys.modules``)."""

    def find_spec(self, fullname: str, path: Any, target: Any = None):
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec) -> ModuleType:
        _moved(spec.name, MODULES[spec.name])
        return importlib.import_module(MODULES[spec.name])

    def exec_module(self, module: ModuleType) -> None:
        """The new module is already executed."""


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` once (called by ``acceptability``)."""
    if not any(isinstance(f, _Alias) for f in sys.meta_path):
        sys.meta_path.append(_Alias())


class _Package(ModuleType):
    """A package whose functions keep their names when an old module path of the same name
    (``acceptability.stats.bootstrap``, ``.lmer``, ``.brm``) is imported: the import system
    binds an imported submodule to its parent's attribute, which would replace the function
    ``stats.bootstrap`` by the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, ModuleType) and f"{self.__name__}.{name}" in MODULES \
                and not isinstance(self.__dict__.get(name), ModuleType | None):
            return
        super().__setattr__(name, value)


def package_getattr(package: str) -> Callable[[str], Any]:
    """A PEP 562 ``__getattr__`` for ``package`` that resolves its moved names and modules
    (and keeps its functions from being replaced by old module paths, `_Package`)."""
    sys.modules[package].__class__ = _Package

    def __getattr__(name: str) -> Any:
        old = f"{package}.{name}"
        if old in NAMES:
            module, _, attr = NAMES[old].partition(":")
            _moved(old, f"{module}.{attr}")
            return getattr(importlib.import_module(module), attr)
        if old in MODULES:
            _moved(old, MODULES[old])
            return importlib.import_module(MODULES[old])
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__


def renamed_kwargs(**renames: str) -> Callable[[Callable], Callable]:
    """Accept each old keyword (``n=``) as its new name (``n_boot=``), with a warning."""

    def decorate(func: Callable) -> Callable:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old}= and its new "
                                        f"name {new}=; pass {new}= only")
                    _moved(f"{func.__name__}({old}=)", f"{func.__name__}({new}=)")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate
