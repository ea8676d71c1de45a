"""The scoring registry dispatches (issue 45, item 2): `scoring.run.runner.make_scorer` calls the
module a method's `Method.backend` names, and code asks a method's properties of the registry,
never its name. A new method touches its backend and the registry (docs/development.md,
"Adding a scoring method"): the toy method below is registered in a test and scored through
`scoring.score` and `scoring.token_scores` with nothing else changed."""

from __future__ import annotations

import ast
import importlib
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from acceptability import scoring
from acceptability.data.tables import signed_confidence
from acceptability.scoring.registry import REGISTRY, Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.runner import Batches, Scorer

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("data", "scoring", "stats", "reports")
REGISTRY_FILE = ROOT / "scoring" / "registry.py"
#: The registered method names. Three are also model kinds (`registry.KINDS`: "seq2seq",
#: "classifier", "ngram"): a comparison with something named ``kind`` compares kinds.
NAMES = frozenset(REGISTRY)


def _constants(node: ast.AST) -> list[str]:
    """The string constants of `node`: itself, or the items of a tuple, list or set."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return [n.value for n in items if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _is_kind(node: ast.AST) -> bool:
    """`node` names a model kind (``kind``, ``lm.kind``, ``self.kind``)."""
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return "kind" in name


def _named_methods(node: ast.Call) -> list[str]:
    """The method names a call compares with: ``x.eq("pll")``, ``x.isin(["pll"])``, or a
    piece of a name in ``x.endswith("_word_l2r")`` / ``x.startswith("seq2seq")``."""
    func, args = node.func, node.args
    if not isinstance(func, ast.Attribute) or len(args) != 1 or _is_kind(func.value):
        return []
    if func.attr in ("eq", "ne", "isin"):
        return [c for c in _constants(args[0]) if c in NAMES]
    if func.attr in ("startswith", "endswith"):
        test = str.startswith if func.attr == "startswith" else str.endswith
        return [c for c in _constants(args[0])
                if len(c) >= 3 and any(test(name, c) for name in NAMES)]
    return []


def name_comparisons(path: Path) -> list[str]:
    """Each place in `path` that compares a string with a registered method name: ``==``,
    ``!=``, ``in``, ``not in`` with a name (or a tuple of names), ``.eq``/``.ne``/``.isin``,
    and ``startswith``/``endswith`` with a piece of one. Comparisons of model kinds pass."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if not any(_is_kind(o) for o in operands):
                names = [c for o in operands for c in _constants(o) if c in NAMES]
        elif isinstance(node, ast.Call):
            names = _named_methods(node)
        if names:
            where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            found.append(f"{where}:{node.lineno} compares with {names}")
    return found


def test_only_the_registry_compares_method_names():
    """No module of the package but scoring/registry.py compares a string with a method name:
    the rest asks the method's properties (`registry.Method`), so a new method is one entry."""
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py")) if p != REGISTRY_FILE]
    assert len(files) > 100
    found = [hit for p in files for hit in name_comparisons(p)]
    assert not found, "\n".join(found)


def test_the_scan_finds_each_form_of_comparison(tmp_path):
    """The scan above flags every form it looks for (so its empty answer means something)."""
    path = tmp_path / "probe.py"
    lines = ['a == "ngram"', 'method != "pll"', 'm in ("logprob", "x")', 'frame["method"].eq("classifier")',
             'grid.isin(["mntp"])', 'method.endswith("_word_l2r")', 'name.startswith("seq2seq")',
             'lm.kind == "seq2seq"', 'kind in ("causal", "seq2seq")', 'text.endswith(".py")']
    path.write_text("\n".join(lines) + "\n")
    found = name_comparisons(path)
    assert [int(hit.split(":")[1].split()[0]) for hit in found] == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_methods_backend_builds_its_scorer(name):
    """`make_scorer` calls ``scorer(method, options)`` of the module `Method.backend` names."""
    assert callable(importlib.import_module(REGISTRY[name].backend).scorer)


def test_the_data_layer_tells_signed_confidence_scores_as_the_registry_does():
    """stats (which may not import scoring) tells a classifier's signed confidence from
    log-probabilities by `data.tables.signed_confidence`; it agrees with the registry on
    every sentence method."""
    methods = [m for m in REGISTRY.values() if not m.prefix]
    assert signed_confidence(np.array([m.name for m in methods])).tolist() == \
        [not m.logprob for m in methods]


# ---------------------------------------------------------------- a toy method, registered here
#: The toy scorer's alphabet: each character of a text is a token with probability 1/27.
ALPHABET = 27


def scorer(method: Method, options) -> Scorer:
    """The toy method's backend (this module, `Method.backend`): a character model with
    log P(c) = -log 27 for each character, tokens with their character offsets. Of a "causal"
    method, it gets (context, text) pairs (`scoring.context`) and scores the text."""

    def run(items: list[str], batches: Batches) -> Iterator[tuple[list[int], list[Scored]]]:
        for batch in batches:
            yield batch, [Scored.from_tokens(list(items[i]), [(k, k + 1) for k in range(len(items[i]))],
                                             [-math.log(ALPHABET)] * len(items[i])) for i in batch]

    return Scorer(str(options.model), method.name, lambda pairs: [text for _, text in pairs],
                  lambda items, _size: [list(range(len(items)))], run)


@pytest.fixture
def toy(monkeypatch) -> str:
    """The method "toy", in the registry only (the one change a new method needs besides its
    backend module, here this test module)."""
    monkeypatch.setitem(REGISTRY, "toy", Method("toy", __name__, "causal", False, True,
                                                "characters, each 1/27 (a test)"))
    return "toy"


def test_a_method_registered_in_a_test_scores_through_score(toy):
    """`scoring.score` dispatches to the toy method's backend through the registry: its score
    is the sum of its tokens' log-probabilities, -n log 27 for n characters, and as a
    log-probability method it gets a perplexity, 27."""
    texts = ["ab", "abcd", "a b"]
    sc = scoring.score(texts, "toy-model", toy, cache=False, progress=False)
    assert sc["method"].tolist() == [toy] * 3 and sc["model"].tolist() == ["toy-model_toy"] * 3
    np.testing.assert_allclose(sc["score"], [-n * math.log(27) for n in (2, 4, 3)], rtol=1e-12)
    assert sc["n_tokens"].tolist() == [2, 4, 3]
    np.testing.assert_allclose(sc["perplexity"], 27.0, rtol=1e-12)
    tokens = scoring.token_scores(["ab"], "toy-model", toy, cache=False, progress=False)
    assert tokens["token"].tolist() == ["a", "b"]
    np.testing.assert_allclose(tokens["surprisal"], math.log2(27), rtol=1e-12)


def test_an_unregistered_method_is_refused_by_name():
    with pytest.raises(scoring.ScoringError, match="unknown scoring method 'toy'; use one of logprob"):
        scoring.score(["ab"], "toy-model", "toy", cache=False)
