"""Transformed variables and offsets in the fixed part of an lme4 formula, as R's
``model.frame``/``model.matrix`` build them: ``scale(x)``, ``poly(x, 2)``, ``log(x)``,
``exp``, ``sqrt``, ``I(...)``, ``factor(x)``, in interactions too (``scale(x):f``,
``log(x + 1) * g``), and ``offset(...)`` terms.

Each transformed variable becomes a column of its own under a safe name for glmm's
``model_matrix`` (which builds the terms and contrasts), and its model columns take R's
names back (``poly(x, 2)1``, ``factor(x)2``, ``scale(x):fb``; the name is R's ``deparse``
of the call). What a transformation learns from the data is kept, so that new rows get the
fit's transformation, as R's ``predict`` does through ``makepredictcall`` (Chambers &
Hastie 1992, *Statistical Models in S*, ch. 2-3): ``scale()``'s centre and scale,
``poly()``'s ``alpha`` and ``norm2`` (R's ``attr(, "coefs")``), ``factor()``'s levels.
As in R, ``scale()`` and ``poly()`` learn from every row of the data in which their
argument is present, before the rows missing another of the formula's columns are dropped
(R evaluates the variables before ``na.omit``); factor levels come from the rows fitted
(lme4's ``drop.unused.levels``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from acceptability.stats.mixed.contrasts import (
    Contrast,
    check_contrasts,
    contrast,
    default_contrast,
)
from acceptability.stats.mixed.formula import Formula, _identifiers
from acceptability.stats.mixed.slopes import factor_levels, is_factor

__all__ = ["CONTRASTS_KEY", "PARAMS_KEY", "SUPPORTED", "FixedPart", "expression_columns", "fit_matrix",
           "fixed_part", "formula_offset", "learn_stateful", "parse_expression", "response_values"]

_ELEMENTWISE = {"log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
                "exp": np.exp, "sqrt": np.sqrt, "abs": np.abs, "I": lambda x: x}
_STATEFUL = ("scale", "poly")
_FACTOR = ("factor", "as.factor")
SUPPORTED = tuple(sorted([*_ELEMENTWISE, *_STATEFUL, *_FACTOR, "offset"]))
PARAMS_KEY = "acceptability.stats.mixed.transforms"  # frame.attrs: what scale()/poly() learnt
CONTRASTS_KEY = "acceptability.stats.mixed.contrasts"  # frame.attrs: the fit's contrasts=
_CONSTANTS = {"TRUE": True, "FALSE": False, "T": True, "F": False, "pi": np.pi}
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?L?)"
                    r"|(?P<name>[A-Za-z.][\w.]*)|(?P<op>%/%|%%|\*\*|[<>=!]=|[-+*/^(),=<>]))")
_COMPARE = {">": np.greater, "<": np.less, ">=": np.greater_equal, "<=": np.less_equal,
            "==": np.equal, "!=": np.not_equal}
_CALL = re.compile(r"(?<![\w.])([A-Za-z.][\w.]*)\s*\(")


# --- R expressions: parse, deparse (R's spelling), evaluate ----------------------------------
@dataclass(frozen=True)
class Node:
    """An R expression: ``kind`` is num, name, call, unary, binary or paren."""

    kind: str
    value: Any = None  # num: float; name: str; call: function name; unary/binary: operator
    args: tuple[Any, ...] = ()  # call: ((arg name or None, Node), ...); operands otherwise
    text: str = ""  # num: the literal as written

    def deparse(self) -> str:
        """The expression as R's ``deparse`` writes it (model matrix column names)."""
        if self.kind == "num":
            return _r_number(self.value) + ("L" if self.text.endswith("L") else "")
        if self.kind == "name":
            return self.value
        if self.kind == "call":
            args = (a.deparse() if k is None else f"{k} = {a.deparse()}" for k, a in self.args)
            return f"{self.value}({', '.join(args)})"
        if self.kind == "unary":
            return self.value + self.args[0].deparse()
        if self.kind == "paren":
            return f"({self.args[0].deparse()})"
        sep = f" {self.value} " if self.value in ("+", "-", "*", *_COMPARE) else self.value
        return sep.join(a.deparse() for a in self.args)

    @property
    def children(self) -> list[Node]:
        if self.kind == "call":
            return [a for _, a in self.args]
        return [] if self.kind in ("num", "name") else list(self.args)

    def names(self) -> list[str]:
        """The data columns the expression reads."""
        if self.kind == "name":
            return [] if self.value in _CONSTANTS else [self.value]
        return [n for a in self.children for n in a.names()]

    def calls(self) -> list[Node]:
        """Every call in the expression, innermost first."""
        return [c for a in self.children for c in a.calls()] + ([self] if self.kind == "call" else [])


def _r_number(v: float) -> str:
    """A number as R's ``deparse``/``as.character`` write it: 15 significant digits, fixed
    notation unless scientific is shorter (``1e+05``, ``0.002``, ``1e-04``)."""
    if v == 0:
        return "0"
    mantissa, exp = f"{abs(v):.14e}".split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    e = int(exp)
    sci = digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{'-' if e < 0 else '+'}{abs(e):02d}"
    fixed = f"{abs(v):.{max(0, len(digits) - 1 - e)}f}"
    return ("-" if v < 0 else "") + (fixed if len(fixed) <= len(sci) else sci)


class _Parser:
    """Recursive descent over R's precedence: comparisons < ``+ -`` < ``* /`` <
    ``%% %/%`` < unary ``- +`` < ``^`` (right-associative)."""

    def __init__(self, text: str) -> None:
        self.text, self.tokens, pos = text, [], 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if not text[pos:].strip():
                    break
                raise ValueError(f"cannot read {text[pos:].strip()[:20]!r} in {text!r}: only "
                                 "numbers, column names, calls, + - * / ^ %% and comparisons "
                                 "are understood")
            self.tokens.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        self.i = 0

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens) or (expected and self.tokens[self.i][1] != expected):
            raise ValueError(f"cannot parse {self.text!r}: expected {expected or 'more'}")
        self.i += 1
        return self.tokens[self.i - 1]

    def parse(self) -> Node:
        node = self.compare()
        if self.i != len(self.tokens):
            raise ValueError(f"cannot parse {self.text!r} at {self.peek()!r}")
        return node

    def binary(self, ops: tuple[str, ...], operand) -> Node:
        node = operand()
        while self.peek() in ops:
            node = Node("binary", self.take()[1], (node, operand()))
        return node

    def compare(self) -> Node:
        node = self.sum()
        if self.peek() in _COMPARE:
            node = Node("binary", self.take()[1], (node, self.sum()))
        return node

    def sum(self) -> Node:
        return self.binary(("+", "-"), self.product)

    def product(self) -> Node:
        return self.binary(("*", "/"), self.special)

    def special(self) -> Node:
        return self.binary(("%%", "%/%"), self.unary)

    def unary(self) -> Node:
        if self.peek() in ("-", "+"):
            return Node("unary", self.take()[1], (self.unary(),))
        return self.power()

    def power(self) -> Node:
        node = self.atom()
        if self.peek() in ("^", "**"):
            self.take()
            node = Node("binary", "^", (node, self.unary()))
        return node

    def atom(self) -> Node:
        kind, tok = self.take()
        if kind == "num":
            return Node("num", float(tok.rstrip("L")), text=tok)
        if tok == "(":
            node = Node("paren", None, (self.compare(),))
            self.take(")")
            return node
        if kind != "name":
            raise ValueError(f"cannot parse {self.text!r} at {tok!r}")
        if self.peek() != "(":
            return Node("name", tok)
        self.take("(")
        args = []
        while self.peek() != ")":
            key = None
            if self.i + 1 < len(self.tokens) and self.tokens[self.i][0] == "name" \
                    and self.tokens[self.i + 1][1] == "=":
                key = self.take()[1]
                self.take("=")
            args.append((key, self.compare()))
            if self.peek() != ")":
                self.take(",")
        self.take(")")
        return Node("call", tok, tuple(args))


def parse_expression(text: str) -> Node:
    """Parse one R expression (a variable of a formula, or an offset).

    Examples
    --------
    >>> from acceptability.stats.mixed.transforms import parse_expression
    >>> parse_expression("poly(x,degree=2,raw=TRUE)").deparse()
    'poly(x, degree = 2, raw = TRUE)'
    >>> parse_expression("I(x^2/10 - 2*x)").deparse()
    'I(x^2/10 - 2 * x)'
    """
    return _Parser(text).parse()


def _unsupported(fn: str, where: str) -> ValueError:
    return ValueError(
        f"function {fn}() in {where!r} is not supported in a formula here; supported: "
        f"{', '.join(f'{s}()' for s in SUPPORTED)}. Create the variable as a column of the "
        "data first")


def _arguments(call: Node, names: tuple[str, ...]) -> dict[str, Node]:
    """``call``'s arguments matched to ``names`` by name, then by position (R's matching)."""
    out = {k: v for k, v in call.args if k is not None}
    positional = [v for k, v in call.args if k is None]
    free = [n for n in names if n not in out]
    unknown = [k for k in out if k not in names]
    if unknown or len(positional) > len(free):
        raise ValueError(f"{call.deparse()}: arguments are {', '.join(names)} "
                         f"(got {[k for k, _ in call.args]})")
    out |= dict(zip(free, positional, strict=False))
    return out


def _flag(node: Node | None, default: bool, call: Node) -> bool | float:
    """A literal argument: TRUE/FALSE or a (signed) number."""
    if node is None:
        return default
    if node.kind == "name" and node.value in ("TRUE", "FALSE", "T", "F"):
        return _CONSTANTS[node.value]
    if node.kind == "num":
        return node.value
    if node.kind == "unary" and node.args[0].kind == "num":
        return -node.args[0].value if node.value == "-" else node.args[0].value
    raise ValueError(f"{call.deparse()}: {node.deparse()!r} must be TRUE, FALSE or a number")


def _column(data: pd.DataFrame, name: str, where: str) -> np.ndarray:
    """A numeric (or logical) column; ``T``, ``F`` and ``pi`` unless the data have them."""
    if name in _CONSTANTS and name not in data.columns:
        return np.asarray(float(_CONSTANTS[name]))
    if name not in data.columns:
        raise KeyError(f"unknown column {name!r} in {where!r}")
    col = data[name]
    if is_factor(col) and not pd.api.types.is_bool_dtype(col):
        raise ValueError(f"{where}: column {name!r} is {col.dtype}, not numeric")
    return col.to_numpy(dtype=float)


def _evaluate(node: Node, data: pd.DataFrame, params: dict[str, dict], where: str) -> np.ndarray:
    """The values of a numeric expression on ``data``; ``scale()`` takes its parameters from
    ``params`` (learnt by :func:`learn_stateful`)."""
    if node.kind == "num":
        return np.asarray(node.value)
    if node.kind == "name":
        return _column(data, node.value, where)
    if node.kind == "paren":
        return _evaluate(node.args[0], data, params, where)
    if node.kind == "unary":
        x = _evaluate(node.args[0], data, params, where)
        return -x if node.value == "-" else x
    if node.kind == "binary":
        a, b = (_evaluate(x, data, params, where) for x in node.args)
        with np.errstate(divide="ignore", invalid="ignore"):
            return ({"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
                     "^": np.power, "%%": np.mod, "%/%": np.floor_divide} | _COMPARE)[node.value](a, b)
    fn = node.value
    if fn in _ELEMENTWISE or fn == "scale":
        keys = {"log": ("x", "base"), "scale": ("x", "center", "scale")}.get(fn, ("x",))
        args = _arguments(node, keys)
        if "x" not in args:
            raise ValueError(f"{node.deparse()}: no argument")
        x = _evaluate(args["x"], data, params, where)
        if fn == "scale":
            centre, scale = params[node.deparse()]["center"], params[node.deparse()]["scale"]
            return (x - centre) / scale
        with np.errstate(divide="ignore", invalid="ignore"):
            out = _ELEMENTWISE[fn](x)
            if fn == "log" and "base" in args:
                out = out / np.log(_evaluate(args["base"], data, params, where))
        return out
    if fn in ("poly", *_FACTOR):
        raise ValueError(f"{fn}() inside {where!r}: {fn}() is understood only as a variable of "
                         "its own (a term, or a factor of an interaction)")
    raise _unsupported(fn, where)


def _poly_arguments(call: Node) -> tuple[Node, int, bool]:
    """``poly(x, degree)`` or ``poly(x, degree = d, raw = TRUE)``: (x, degree, raw)."""
    args = _arguments(call, ("x", "degree", "raw"))
    degree = _flag(args.get("degree"), 1, call)
    if isinstance(degree, bool) or degree != int(degree) or degree < 1:
        raise ValueError(f"{call.deparse()}: the degree must be a whole number >= 1")
    raw = _flag(args.get("raw"), False, call)
    return args["x"], int(degree), bool(raw)


def _learn_poly(x: np.ndarray, degree: int, call: str) -> dict[str, Any]:
    """R's ``poly``: centre, QR of the Vandermonde matrix, ``alpha`` and ``norm2`` of the
    three-term recurrence (``attr(poly(x, d), "coefs")``)."""
    x = x[np.isfinite(x)]
    if degree >= len(np.unique(x)):
        raise ValueError(f"{call}: the degree ({degree}) must be less than the number of unique "
                         f"points ({len(np.unique(x))}), as in R")
    xbar = x.mean()
    xc = x - xbar
    q, r = np.linalg.qr(np.vander(xc, degree + 1, increasing=True))
    z = q * np.diag(r)  # monic orthogonal polynomials (R: qr.qy(QR, diag(R)))
    norm2 = (z**2).sum(axis=0)
    alpha = ((xc[:, None] * z**2).sum(axis=0) / norm2 + xbar)[:degree]
    return {"alpha": alpha, "norm2": np.concatenate([[1.0], norm2])}


def _poly(x: np.ndarray, degree: int, raw: bool, coefs: dict[str, Any] | None) -> np.ndarray:
    """The columns of ``poly(x, degree)`` from R's ``coefs`` (its prediction branch)."""
    if raw:
        return np.column_stack([x**k for k in range(1, degree + 1)])
    alpha, norm2 = coefs["alpha"], coefs["norm2"]
    z = np.ones((len(x), degree + 1))
    z[:, 1] = x - alpha[0]
    for i in range(1, degree):
        z[:, i + 1] = (x - alpha[i]) * z[:, i] - (norm2[i + 1] / norm2[i]) * z[:, i - 1]
    return (z / np.sqrt(norm2[1:]))[:, 1:]


def _learn_scale(call: Node, x: np.ndarray) -> dict[str, float]:
    """R's ``scale.default``: centre = mean, scale = root mean square (n - 1) of the
    centred values, missing values left out; a number given is used as it is."""
    args = _arguments(call, ("x", "center", "scale"))
    x = x[np.isfinite(x)]
    center = _flag(args.get("center"), True, call)
    centre = (x.mean() if center is True else 0.0) if isinstance(center, bool) else center
    scale = _flag(args.get("scale"), True, call)
    if isinstance(scale, bool):
        scale = np.sqrt(((x - centre) ** 2).sum() / max(1, len(x) - 1)) if scale else 1.0
    if not scale > 0:
        raise ValueError(f"{call.deparse()}: the scale is {scale} (a constant column?): it "
                         "cannot be divided by")
    return {"center": float(centre), "scale": float(scale)}


def learn_stateful(formula: Formula, data: pd.DataFrame, strict: bool = True) -> dict[str, dict]:
    """What ``scale()`` and ``poly()`` in the fixed part learn from ``data``: every row in
    which their argument is present (R computes them before dropping incomplete rows).
    Not ``strict``: a call that cannot be learnt is left out (its error comes when the
    design is built), so that formulas for other parsers (bambi's) pass.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import parse_formula
    >>> from acceptability.stats.mixed.transforms import learn_stateful
    >>> df = pd.DataFrame({"y": [1.0, None, 3.0], "x": [1.0, 2.0, 6.0]})
    >>> learn_stateful(parse_formula("y ~ scale(x) + (1 | g)"), df)
    {'scale(x)': {'center': 3.0, 'scale': 2.6457513110645907}}
    """
    out: dict[str, dict] = {}
    for *_, var in _variables(formula.fixed, strict=strict):
        for call in var.calls():
            text = call.deparse()
            if call.value not in _STATEFUL or text in out:
                continue
            try:
                out[text] = _learn(call, data, out)
            except (ValueError, KeyError):
                if strict:
                    raise
    return out


def _learn(call: Node, data: pd.DataFrame, params: dict[str, dict]) -> dict[str, Any]:
    text = call.deparse()
    if call.value == "scale":
        x = _evaluate(_arguments(call, ("x", "center", "scale"))["x"], data, params, text)
        return _learn_scale(call, np.broadcast_to(x, len(data)))
    x, degree, raw = _poly_arguments(call)
    values = np.broadcast_to(_evaluate(x, data, params, text), len(data))
    return {} if raw else _learn_poly(values, degree, text)


# --- the fixed part -------------------------------------------------------------------------
def _variables(fixed: str, strict: bool = True) -> list[tuple[int, int, Node]]:
    """The calls among the variables of a fixed part (``scale(x)``, ``poly(x, 2)``), with
    where each starts and ends; an unsupported function is an error (``strict``) or left out."""
    out, pos = [], 0
    while (m := _CALL.search(fixed, pos)) is not None:
        depth = 0
        for end in range(m.end() - 1, len(fixed)):
            depth += (fixed[end] == "(") - (fixed[end] == ")")
            if depth == 0:
                break
        pos = end + 1
        if m.group(1) == "offset" and strict:
            raise ValueError(f"offset() in {fixed!r} must be a term of its own: write "
                             "y ~ x + offset(z) + (1 | g)")
        if m.group(1) not in SUPPORTED:
            if strict:
                raise _unsupported(m.group(1), fixed)
            continue
        try:
            out.append((m.start(), pos, parse_expression(fixed[m.start():pos])))
        except ValueError:
            if strict:
                raise
    return out


@dataclass(frozen=True)
class Variable:
    """A transformed variable: R's name (``deparse`` of the call), the safe column name glmm
    reads it from, and its kind (``numeric``, ``poly``: several columns, ``factor``)."""

    node: Node
    safe: str

    @property
    def name(self) -> str:
        return self.node.deparse()

    @property
    def kind(self) -> str:
        return {"poly": "poly", "factor": "factor", "as.factor": "factor"}.get(self.node.value, "numeric")


@dataclass
class FixedPart:
    """The fixed part of a fitted formula: its transformed variables with what they learnt,
    the levels of its factors, R's term labels and the term of each model column (R's
    ``attr(X, "assign")``: 0 for the intercept, k for ``labels[k - 1]``).

    [fixed_part][acceptability.stats.mixed.transforms.fixed_part] builds it from the fit's
    rows; :meth:`matrix` gives the model matrix of any rows with the fit's transformation.
    """

    fixed: str  # the fixed part as written (offsets aside)
    text: str  # the same with each transformed variable replaced by its safe name
    variables: tuple[Variable, ...]
    params: dict[str, dict]  # scale(): center, scale; poly(): alpha, norm2
    levels: dict[str, list[str]]  # each factor variable's levels (by its R name)
    requested: dict[str, object] = field(default_factory=dict)  # contrasts= of the fit
    contrasts: dict[str, Contrast] = field(default_factory=dict)  # each factor's coding (R's attr)
    ordered: set[str] = field(default_factory=set)  # the ordered factors
    xnames: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    assign: np.ndarray = field(default_factory=lambda: np.zeros(0, int))

    @property
    def transformed(self) -> bool:
        """Whether glmm cannot read the formula as is: a variable is a transformation, or a
        factor is coded otherwise than by treatment contrasts (glmm's only coding) or is
        ordered (a random slope on it has R's contr.poly columns, which glmm cannot build)."""
        return bool(self.variables or self.ordered) or any(c.kind != "contr.treatment"
                                                           for c in self.contrasts.values())

    def _columns(self, data: pd.DataFrame, fitting: bool) -> tuple[dict[str, np.ndarray], set[str], dict[str, np.ndarray]]:
        """Each variable of the formula under its safe name: a factor's codes in the fit's
        levels (-1: missing), a number's values; the factors' names and each poly
        variable's matrix."""
        plain = [n for n in _plain_names(self.text) if n not in {v.safe for v in self.variables}]
        missing = [n for n in [*plain, *(c for v in self.variables for c in v.node.names())]
                   if n not in data.columns]
        if missing:
            raise KeyError(f"the data lack column(s) {sorted(set(missing))} of the fixed effects "
                           f"{self.fixed!r}")
        out, factors, polys = {}, set(), {}
        for name in plain:
            col = data[name]
            if is_factor(col):
                out[name] = self._factor(col, name, fitting, keep_unused=True)
                factors.add(name)
            else:
                out[name] = col.to_numpy(dtype=float)
        for v in self.variables:
            where = v.name
            if v.kind == "poly":
                x, degree, raw = _poly_arguments(v.node)
                values = np.broadcast_to(_evaluate(x, data, self.params, where), len(data))
                polys[v.safe] = _poly(values, degree, raw, self.params.get(where))
                out[v.safe] = np.ones(len(data))
            elif v.kind == "factor":
                arg = _arguments(v.node, ("x",))["x"]
                col = data[arg.value] if arg.kind == "name" else pd.Series(
                    np.broadcast_to(_evaluate(arg, data, self.params, where), len(data)),
                    index=data.index)
                out[v.safe] = self._factor(col, v.name, fitting, keep_unused=False)
                factors.add(v.safe)
            else:
                values = np.broadcast_to(_evaluate(v.node, data, self.params, where), len(data))
                if values.dtype == bool:  # a logical variable is a factor in R's model.matrix
                    out[v.safe] = self._factor(pd.Series(values, index=data.index), where,
                                               fitting, keep_unused=False)
                    factors.add(v.safe)
                    continue
                out[v.safe] = values.astype(float)
                bad = ~np.isfinite(out[v.safe])
                if bad.any():
                    raise ValueError(f"{where} is not finite in {int(bad.sum())} row(s) (rows "
                                     f"{list(data.index[bad][:5])}...): check the values of "
                                     f"{v.node.names()} (log and sqrt need positive values)")
        _refuse_missing(out, factors, {v.safe: v.name for v in self.variables})
        return out, factors, polys

    def _factor(self, col: pd.Series, name: str, fitting: bool, keep_unused: bool) -> np.ndarray:
        """A factor variable's codes in the fit's levels (-1: missing): a plain categorical
        column keeps its categories, ``factor()`` drops unused ones (as R's does), numbers
        are sorted as numbers and labelled as R's ``as.character`` labels them."""
        labels = _as_labels(col)
        if fitting and name not in self.levels:
            if not is_factor(col):
                self.levels[name] = [_r_number(v) for v in np.unique(col.dropna().to_numpy(float))]
            elif keep_unused and isinstance(col.dtype, pd.CategoricalDtype):
                self.levels[name] = list(map(str, col.cat.categories))
            else:
                self.levels[name] = factor_levels(col)
            if len(self.levels[name]) < 2:
                raise ValueError(f"{name} has one level ({self.levels[name]}) in the rows used: it "
                                 "has no contrast to estimate; drop it from the formula")
            ordered = isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.ordered
            if ordered:
                self.ordered.add(name)
            self.contrasts[name] = contrast(self.requested[name], self.levels[name], name) \
                if name in self.requested else default_contrast(self.levels[name], ordered)
        levels = self.levels[name]
        # the distinct labels looked up once, not every row
        codes, distinct = pd.factorize(labels.to_numpy(dtype=object))  # missing: -1
        index = {lv: i for i, lv in enumerate(levels)}
        lookup = np.array([index.get(lv, -1) for lv in distinct] + [-1], np.int64)
        unknown = [lv for lv, k in zip(distinct, lookup, strict=False) if k < 0]
        if unknown:
            raise ValueError(f"level(s) {unknown[:5]} of {name!r} were not in the fitted data "
                             f"(levels {levels[:10]})")
        return lookup[codes]

    def _build(self, data: pd.DataFrame, fitting: bool) -> tuple[np.ndarray, list[str], list[str], np.ndarray]:
        """X, its column names, R's term labels and ``assign``: glmm reads the terms from
        the formula, R's rule (:func:`_indicator_coded`) says where a factor is coded by
        its contrasts and where by an indicator of every level, and the columns are built
        with the factor's contrast matrix, the first variable of a term varying fastest, as
        R's ``model.matrix`` orders them."""
        import glmm

        values, factors, polys = self._columns(data, fitting)
        try:
            labels, intercept = glmm.term_labels(f"~ {self.text}")
        except ValueError as err:
            raise ValueError(f"glmm: {err}") from None
        names = {v.safe: v.name for v in self.variables}
        blocks = [np.ones((len(data), 1))] if intercept else []
        xnames = ["(Intercept)"] if blocks else []
        assign = [0] * len(blocks)
        for k, (label, full) in enumerate(zip(labels, _indicator_coded(labels, intercept, factors),
                                              strict=True), start=1):
            coded = [self._coded(values[var], names.get(var, var), polys.get(var), var in factors, f)
                     for var, f in zip(label.split(":"), full, strict=True)]
            x, xn = _term_columns(coded)
            blocks.append(x)
            xnames += xn
            assign += [k] * len(xn)
        x = np.column_stack(blocks) if blocks else np.zeros((len(data), 0))
        rlabels = [":".join(names.get(v, v) for v in lab.split(":")) for lab in labels]
        return x, xnames, rlabels, np.asarray(assign, int)

    def _coded(self, col: np.ndarray, name: str, poly: np.ndarray | None, factor: bool,
               full: bool) -> tuple[np.ndarray, list[str]]:
        """A variable's columns in one term and their names: a number, a poly() matrix, a
        factor (``col``: its codes) by the indicators of its levels (``full``) or by its
        contrasts (the fit's coding of it)."""
        if poly is not None:
            return poly, [f"{name}{d}" for d in range(1, poly.shape[1] + 1)]
        if not factor:
            return col[:, None], [name]
        if full:
            levels = self.levels[name]
            return np.eye(len(levels))[col], [f"{name}{lv}" for lv in levels]
        c = self.contrasts[name]
        return c.matrix[col], [f"{name}{s}" for s in c.names]

    def _check_contrasts(self) -> None:
        """Every factor named in ``contrasts=`` is a factor of the fixed part."""
        unknown = [k for k in self.requested if k not in self.levels]
        if unknown:
            raise ValueError(f"contrasts= names {unknown}, which {'is' if len(unknown) == 1 else 'are'} "
                             f"not a factor of the fixed effects {self.fixed!r} (its factors: "
                             f"{list(self.levels) or 'none'})")

    def recoded(self, data: pd.DataFrame, coding: str = "treatment") -> tuple[np.ndarray, FixedPart]:
        """The model matrix of ``data``'s rows with every factor coded by ``coding``, and its
        fixed part (lmerTest's ``get_model_matrix(type = "remake", contrasts = ...)``)."""
        out = replace(self, contrasts={k: contrast(coding, lv, k) for k, lv in self.levels.items()})
        x, out.xnames, out.labels, out.assign = out._build(data, fitting=False)
        return x, out

    def matrix(self, data: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
        """The model matrix of ``data``'s rows and its column names (R's), with the fit's
        transformation and factor levels (a level the fit did not see is an error).

        Examples
        --------
        >>> import pandas as pd
        >>> from acceptability.stats.mixed import parse_formula
        >>> from acceptability.stats.mixed.transforms import fixed_part
        >>> fit = pd.DataFrame({"y": [1.0, 2, 4, 3], "x": [1.0, 2, 3, 6], "f": list("abab")})
        >>> terms = fixed_part(parse_formula("y ~ scale(x):f + (1 | g)"), fit)
        >>> x, names = terms.matrix(pd.DataFrame({"x": [3.0], "f": ["b"]}))
        >>> names, x.round(3).tolist()
        (['(Intercept)', 'scale(x):fa', 'scale(x):fb'], [[1.0, 0.0, 0.0]])
        """
        x, names, _, _ = self._build(data, fitting=False)
        return x, names


def _as_labels(col: pd.Series) -> pd.Series:
    """A factor's values as level labels (those of ``slopes.factor_levels``): strings,
    ``FALSE``/``TRUE``, numbers as R's ``as.character`` writes them; missing as None."""
    if pd.api.types.is_bool_dtype(col):
        return col.map({False: "FALSE", True: "TRUE"})
    if is_factor(col):
        return col.astype(str)
    values = col.to_numpy(dtype=float)
    out, ok = np.full(len(values), None, object), ~np.isnan(values)
    unique, inverse = np.unique(values[ok], return_inverse=True)
    out[ok] = np.array([_r_number(v) for v in unique], object)[inverse]
    return pd.Series(out, index=col.index)


def _plain_names(text: str) -> list[str]:
    return list(dict.fromkeys(_identifiers(text)))


def _safe_name(base: str, taken) -> str:
    name = base
    while name in taken:
        name = f"_{name}_"
    return name


def _indicator_coded(labels: list[str], intercept: bool, factors: set[str]) -> list[list[bool]]:
    """For each variable of each term (R's ``term.labels``, in order), whether it enters by
    indicators of all its levels rather than by its contrasts. R's rule (``TermCode`` in
    R's src/library/stats/src/model.c; Chambers & Hastie 1992, sec. 2.4.1): a factor takes
    its contrasts where the term without it is empty or lies within an earlier term; in a
    formula without intercept, the first factor of the first term with one takes
    indicators. Written out because glmm gives the rule only through a whole model matrix,
    half of a small clm fit's time."""
    terms = [label.split(":") for label in labels]
    sets = [frozenset(t) for t in terms]
    out = [[v in factors and bool(s - {v}) and not any(s - {v} <= sets[j] for j in range(k))
            for v in t] for k, (t, s) in enumerate(zip(terms, sets, strict=True))]
    if not intercept:
        first = next(((k, i) for k, t in enumerate(terms) for i, v in enumerate(t) if v in factors), None)
        if first is not None:
            out[first[0]][first[1]] = True
    return out


def _refuse_missing(values: dict[str, np.ndarray], factors: set[str], names: dict[str, str]) -> None:
    """A row with a missing value in a variable of the fixed effects is an error (a fit's
    rows are complete: new rows, e.g. of ``predict``, must be too)."""
    bad = np.zeros(len(next(iter(values.values()))), bool) if values else np.zeros(0, bool)
    where = []
    for var, v in values.items():
        miss = v < 0 if var in factors else np.isnan(v)
        if miss.any():
            bad |= miss
            where.append(names.get(var, var))
    if where:
        raise ValueError(f"{int(bad.sum())} of {len(bad)} row(s) have a missing value in "
                         f"{where}, which the fixed effects use: drop those rows first")


def _term_columns(coded: list[tuple[np.ndarray, list[str]]]) -> tuple[np.ndarray, list[str]]:
    """The columns of a term from those of its variables: every product of one column of
    each, the first variable varying fastest (R's ``model.matrix``), named ``a:b``."""
    x, names = coded[0]
    for cols, cnames in coded[1:]:
        x = (x[:, None, :] * cols[:, :, None]).reshape(len(x), -1)
        names = [f"{a}:{b}" for b in cnames for a in names]
    return x, names


def fixed_part(formula: Formula, frame: pd.DataFrame, contrasts: dict[str, object] | None = None) -> FixedPart:
    """The fixed part of ``formula`` learnt from the rows fitted: each transformed variable
    under a safe name, what ``scale()``/``poly()`` learnt (from ``frame.attrs[PARAMS_KEY]``,
    set by ``prepare_frame`` from the data before incomplete rows were dropped; else from
    ``frame``), the factors' levels and codings (``contrasts``: a coding per factor,
    [contrast][acceptability.stats.mixed.contrasts.contrast]; R's defaults for the others),
    R's term labels and column names and ``assign``. ``contrasts`` given are kept in
    ``frame.attrs[CONTRASTS_KEY]`` (R keeps them as ``attr(X, "contrasts")``), so that
    every later matrix of the fit's rows (refits, type III hypotheses, ``nominal=``) codes
    its factors alike; without ``contrasts``, those of ``frame.attrs`` apply to the factors
    the formula has.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import parse_formula
    >>> from acceptability.stats.mixed.transforms import fixed_part
    >>> df = pd.DataFrame({"y": [1.0, 2, 4, 3, 5], "x": [1.0, 2, 3, 6, 8], "f": list("ababa")})
    >>> t = fixed_part(parse_formula("y ~ poly(x, 2) * f + (1 | g)"), df)
    >>> t.xnames
    ['(Intercept)', 'poly(x, 2)1', 'poly(x, 2)2', 'fb', 'poly(x, 2)1:fb', 'poly(x, 2)2:fb']
    >>> t.labels, t.assign.tolist()
    (['poly(x, 2)', 'f', 'poly(x, 2):f'], [0, 1, 1, 2, 3, 3])
    """
    return _learn_fixed(formula, frame, contrasts)[0]


def fit_matrix(formula: Formula, frame: pd.DataFrame,
               contrasts: dict[str, object] | None = None) -> tuple[np.ndarray, FixedPart]:
    """The model matrix of the fitted rows (R's ``model.matrix``) and the
    :func:`fixed_part` it comes from (column names in ``xnames``), learnt once.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import parse_formula
    >>> from acceptability.stats.mixed.transforms import fit_matrix
    >>> df = pd.DataFrame({"y": [1.0, 2, 4], "x": [1.0, 10, 100], "g": list("abc")})
    >>> x, part = fit_matrix(parse_formula("y ~ log10(x) + (1 | g)"), df)
    >>> part.xnames, x[:, 1].tolist()
    (['(Intercept)', 'log10(x)'], [0.0, 1.0, 2.0])
    """
    part, x = _learn_fixed(formula, frame, contrasts)
    return x, part


def _learn_fixed(formula: Formula, frame: pd.DataFrame,
                 contrasts: dict[str, object] | None = None) -> tuple[FixedPart, np.ndarray]:
    fixed = formula.fixed
    variables, text, pos, safe_of = [], [], 0, {}
    for start, end, node in _variables(fixed):
        name = node.deparse()
        if name not in safe_of:
            safe_of[name] = _safe_name(f"_v{len(safe_of)}_", frame.columns)
            variables.append(Variable(node, safe_of[name]))
        text += [fixed[pos:start], safe_of[name]]
        pos = end
    text.append(fixed[pos:])
    params = frame.attrs.get(PARAMS_KEY)
    if params is None or any(c.deparse() not in params for v in variables
                             for c in v.node.calls() if c.value in _STATEFUL):
        params = learn_stateful(formula, frame)
    requested = frame.attrs.get(CONTRASTS_KEY, {}) if contrasts is None else check_contrasts(contrasts)
    out = FixedPart(fixed, "".join(text), tuple(variables), dict(params), {}, dict(requested))
    x, out.xnames, out.labels, out.assign = out._build(frame, fitting=True)
    if contrasts is not None:  # kept with the rows, for every matrix built from them later
        out._check_contrasts()
        frame.attrs[CONTRASTS_KEY] = out.requested
    return out, x


# --- offsets and the response -----------------------------------------------------------------
def formula_offset(formula: Formula, frame: pd.DataFrame) -> np.ndarray | None:
    """The sum of the formula's ``offset(...)`` terms on ``frame``'s rows (R's
    ``model.offset``), or None when it has none. Each offset is a column or a supported
    transformation of columns (``offset(log(size))``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import parse_formula
    >>> from acceptability.stats.mixed.transforms import formula_offset
    >>> df = pd.DataFrame({"k": [1, 4], "size": [2.0, 8.0], "g": ["a", "b"]})
    >>> formula_offset(parse_formula("k ~ 1 + offset(log(size)) + (1 | g)"), df).round(4).tolist()
    [0.6931, 2.0794]
    >>> formula_offset(parse_formula("k ~ 1 + (1 | g)"), df) is None
    True
    """
    if not formula.offsets:
        return None
    total = np.zeros(len(frame))
    for text in formula.offsets:
        where = f"offset({text})"
        values = _evaluate_plain(text, frame, where)
        bad = ~np.isfinite(values)
        if bad.any():
            raise ValueError(f"{where} is not finite in {int(bad.sum())} row(s) (rows "
                             f"{list(frame.index[bad][:5])}...): an offset must be a finite number")
        total = total + values
    return total


def _plain(text: str, where: str) -> Node:
    """A stateless numeric expression (an offset, a response), parsed and checked."""
    node = parse_expression(text)
    for call in node.calls():
        if call.value not in _ELEMENTWISE:
            raise _unsupported(call.value, where) if call.value not in SUPPORTED else ValueError(
                f"{call.value}() in {where!r}: only {', '.join(f'{f}()' for f in sorted(_ELEMENTWISE))} "
                "are understood here; create the variable as a column first")
    return node


def _evaluate_plain(text: str, frame: pd.DataFrame, where: str) -> np.ndarray:
    """The values of a stateless expression on ``frame``'s rows."""
    return np.broadcast_to(_evaluate(_plain(text, where), frame, {}, where), len(frame)).astype(float)


def expression_columns(text: str) -> list[str]:
    """The columns a response written as an expression (``log(rt)``) reads; a clear error
    when it is not a supported transformation.

    Examples
    --------
    >>> from acceptability.stats.mixed.transforms import expression_columns
    >>> expression_columns("log(rt / 1000)")
    ['rt']
    """
    try:
        return _plain(text, text).names()
    except ValueError as err:
        raise ValueError(f"response {text!r}: {err}; write a column name, a transformation of "
                         "one (log(y)), or cbind(successes, failures)") from None


def response_values(text: str, frame: pd.DataFrame) -> pd.Series:
    """A response written as a transformation of a column (``log(Reaction)``), on
    ``frame``'s rows; as R, lme4 evaluates it before fitting.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed.transforms import response_values
    >>> response_values("log(rt)", pd.DataFrame({"rt": [1.0, 100.0]})).round(3).tolist()
    [0.0, 4.605]
    """
    return pd.Series(_evaluate_plain(text, frame, text), index=frame.index, name=text)
