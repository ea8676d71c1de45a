"""SyntaxGym's prediction formulas (Gauthier et al. 2020; Hu et al. 2020): parse and evaluate.

A prediction states a relation between region surprisals of an item's conditions, e.g.
``[(6;%match_sing%) < (6;%mismatch_sing%)] & [(6;%match_plural%) < (6;%mismatch_plural%)]``.
The language is syntaxgym-core's (``syntaxgym/prediction.py`` at commit ab6b1f8, a
pyparsing grammar), from the tightest binding:

- a term: ``(N;%condition%)``, region ``N``'s surprisal in ``condition`` (its metric,
  the suite's ``meta.metric``: the sum over the region's tokens for the 34 suites of Hu
  et al.), or ``(*;%condition%)``, the sum over all the condition's regions; a number
  (``0``, ``-1.5``, ``2e3``); or a bracketed expression, ``( ... )`` or ``[ ... ]``
  (the published suites bracket with ``[ ]``; syntaxgym-core's tests with ``( )``);
- ``+`` and ``-``, left to right;
- one comparison ``<``, ``>`` or ``=``; ``=`` is numpy's ``isclose`` with syntaxgym-core's
  tolerances (``rtol=1e-5``, ``atol=1e-3``);
- ``&`` and ``|``, one level, left to right (``a & b | c`` is ``(a & b) | c``).

Condition names are letters, digits, ``_`` and ``-``. There is no multiplication, and a
chained comparison (``a < b < c``), which pyparsing's grammar silently cuts to ``a < b``,
is an error here, as is comparing truth values or adding them.

Hand-written (a recursive-descent parser of 5 token kinds and 3 levels, ~100 lines) rather
than pyparsing: errors can name the suite, the prediction and the character, and the
grammar's two silent cases above become errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

#: syntaxgym-core's tolerances of ``=`` (``EQUALITY_RTOL``, ``EQUALITY_ATOL``).
EQUALITY_RTOL, EQUALITY_ATOL = 1e-5, 1e-3

_TOKEN = re.compile(r"""\s*(?:
    (?P<region>\(\s*(?P<number>\d+|\*)\s*;\s*%\s*(?P<condition>[A-Za-z0-9_-]+)\s*%\s*\))
  | (?P<float>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<op>[-+<>=&|])
  | (?P<open>[(\[])
  | (?P<close>[)\]])
)""", re.VERBOSE)
_CLOSING = {"(": ")", "[": "]"}
_COMPARE = {"<": np.less, ">": np.greater,
            "=": lambda a, b: np.isclose(a, b, rtol=EQUALITY_RTOL, atol=EQUALITY_ATOL)}
_ARITH = {"+": np.add, "-": np.subtract}
_LOGIC = {"&": np.logical_and, "|": np.logical_or}


class FormulaError(ValueError):
    """A prediction formula that is not in SyntaxGym's language, or a value it lacks."""


@dataclass(frozen=True)
class Region:
    """``(number;%condition%)``; ``number`` None for ``*`` (all the condition's regions)."""

    number: int | None
    condition: str

    def __str__(self) -> str:
        return f"({'*' if self.number is None else self.number};%{self.condition}%)"


@dataclass(frozen=True)
class Number:
    value: float

    def __str__(self) -> str:
        return f"{self.value:g}"


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


Node = Region | Number | Binary
#: region values: ``(condition, number)`` -> one value per item (or a scalar)
Values = Mapping[tuple[str, int], "np.ndarray | float"]


def _tokens(text: str) -> list[tuple[str, object, int]]:
    """(kind, value, position) of each token; an unknown character is an error."""
    out, pos = [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            at = len(text) - len(text[pos:].lstrip())
            raise FormulaError(f"unexpected {text[at]!r} at character {at + 1} of {text!r}; "
                               "a formula has (N;%condition%) terms, numbers, + - < > = & | "
                               "and brackets")
        kind = next(k for k in ("region", "float", "op", "open", "close") if m.group(k))
        if kind == "region":
            num = m.group("number")
            value: object = Region(None if num == "*" else int(num), m.group("condition"))
        else:
            value = float(m.group(kind)) if kind == "float" else m.group(kind)
        out.append((kind, value, m.start(kind)))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over `_tokens`; each method returns (node, is_boolean)."""

    def __init__(self, text: str) -> None:
        self.text, self.toks, self.i = text, _tokens(text), 0

    def fail(self, what: str, token: int | None = None) -> FormulaError:
        """An error at token ``token`` (default: the next one; past the end: the end)."""
        token = self.i if token is None else token
        at = self.toks[token][2] + 1 if token < len(self.toks) else len(self.text) + 1
        return FormulaError(f"{what} at character {at} of {self.text!r}")

    def peek(self, kind: str, values: str | None = None) -> bool:
        if self.i >= len(self.toks):
            return False
        k, v, _ = self.toks[self.i]
        return k == kind and (values is None or v in values)

    def binary(self, ops: str, operand: Callable, on_truths: bool, what: str,
               once: bool = False) -> tuple[Node, bool]:
        """``operand (op operand)*`` for ``op`` in ``ops``, left to right (one ``op`` at
        most with ``once``); the operands are truth values if ``on_truths``, else numbers;
        the result is a truth value if ``on_truths`` or ``once``."""
        node, boolean = operand()
        while self.peek("op", ops):
            at, op = self.i, self.toks[self.i][1]
            self.i += 1
            right, right_bool = operand()
            if boolean is not on_truths or right_bool is not on_truths:
                raise self.fail(f"{op!r} {what}", at)
            node, boolean = Binary(op, node, right), on_truths or once
            if once and self.peek("op", ops):
                raise self.fail("a chained comparison; bracket one of them")
        return node, boolean

    def logic(self) -> tuple[Node, bool]:
        return self.binary("&|", self.compare, True, "joins comparisons, not numbers")

    def compare(self) -> tuple[Node, bool]:
        return self.binary("<>=", self.arith, False, "compares numbers, not comparisons",
                           once=True)

    def arith(self) -> tuple[Node, bool]:
        return self.binary("+-", self.term, False, "adds numbers, not comparisons")

    def term(self) -> tuple[Node, bool]:
        if self.i >= len(self.toks):
            raise self.fail("the formula ends where a term was expected")
        kind, value, _ = self.toks[self.i]
        self.i += 1
        if kind in ("region", "float"):
            return (value if kind == "region" else Number(value)), False
        if kind == "op" and value in "+-" and self.peek("float"):  # a signed number
            number = self.toks[self.i][1]
            self.i += 1
            return Number(-number if value == "-" else number), False
        if kind == "open":
            node, boolean = self.logic()
            if not self.peek("close", _CLOSING[value]):
                raise self.fail(f"{_CLOSING[value]!r} expected to close {value!r}")
            self.i += 1
            return node, boolean
        raise self.fail(f"a term expected, not {value!r}", self.i - 1)


@dataclass(frozen=True)
class Formula:
    """A parsed prediction: its text, syntax tree and the regions it reads."""

    text: str
    tree: Node

    @property
    def regions(self) -> list[Region]:
        """The ``(N;%condition%)`` terms, in reading order, without repeats."""
        found: list[Region] = []

        def walk(node: Node) -> None:
            if isinstance(node, Binary):
                walk(node.left)
                walk(node.right)
            elif isinstance(node, Region) and node not in found:
                found.append(node)

        walk(self.tree)
        return found

    def __str__(self) -> str:
        return str(self.tree)

    def evaluate(self, values: Values) -> np.ndarray:
        """The prediction's truth per item, from ``values[(condition, region)]`` (arrays
        over the same items, or scalars); ``(*;%c%)`` sums every region of ``c`` given.

        Raises
        ------
        FormulaError
            For a region the values lack.
        """
        return np.asarray(_evaluate(self.tree, values, self.text), dtype=bool)


def _evaluate(node: Node, values: Values, text: str):
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Region):
        if node.number is None:
            parts = [v for (c, _), v in values.items() if c == node.condition]
            if not parts:
                raise FormulaError(f"no regions of condition {node.condition!r} for {node} in "
                                   f"{text!r}")
            return sum(parts[1:], parts[0])
        try:
            return values[node.condition, node.number]
        except KeyError:
            raise FormulaError(f"no value of region {node.number} in condition "
                               f"{node.condition!r} for {text!r}") from None
    table: dict[str, Callable] = {**_ARITH, **_COMPARE, **_LOGIC}
    return table[node.op](_evaluate(node.left, values, text), _evaluate(node.right, values, text))


def parse_prediction(text: str) -> Formula:
    """Parse a SyntaxGym prediction formula (the language of syntaxgym-core's ``prediction.py``).

    Parameters
    ----------
    text : str
        The formula, e.g. ``"(3;%that%) > (3;%what%)"``.

    Returns
    -------
    Formula
        ``.evaluate(values)`` gives its truth per item; ``.regions`` the terms it reads.

    Raises
    ------
    FormulaError
        Naming the character where the formula leaves the language: an unknown
        character, an unclosed or mismatched bracket, a missing term, a chained
        comparison, a comparison of comparisons, or a formula that is not a comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.data.loaders.syntaxgym_formula import parse_prediction
    >>> f = parse_prediction("[(2;%bad%) - (2;%good%)] > 0 & (*;%bad%) > 10")
    >>> [str(r) for r in f.regions]
    ['(2;%bad%)', '(2;%good%)', '(*;%bad%)']
    >>> values = {("bad", 1): np.array([4.0, 9.0]), ("bad", 2): np.array([8.0, 1.5]),
    ...           ("good", 1): np.array([4.0, 9.0]), ("good", 2): np.array([3.0, 2.0])}
    >>> f.evaluate(values).tolist()
    [True, False]
    >>> parse_prediction("(1;%a%) < (1;%b%) < 3")
    Traceback (most recent call last):
    ...
    acceptability.data.loaders.syntaxgym_formula.FormulaError: a chained comparison; bracket one of them at character 19 of '(1;%a%) < (1;%b%) < 3'
    """
    if not isinstance(text, str) or not text.strip():
        raise FormulaError(f"an empty formula ({text!r})")
    parser = _Parser(text)
    tree, boolean = parser.logic()
    if parser.i < len(parser.toks):
        start = parser.toks[parser.i][2]
        raise parser.fail(f"unexpected {text[start:].split()[0]!r} after a complete formula")
    if not boolean:
        raise FormulaError(f"{text!r} is a number, not a prediction: compare it with < > =")
    return Formula(text, tree)
