"""lme4 model formulas: ``y ~ x + (1 + x | g) + (1 | g:h) + (1 | g/h) + (0 + x || g)``.

Parsing follows the random-effects syntax of lme4 (Bates, Mächler, Bolker & Walker 2015,
J. Stat. Softw. 67(1), section 2.1): a term ``(expr | factor)`` adds random effects for the
columns of ``expr`` (intercept implied unless ``0 +``) per level of ``factor``;
``g/h`` expands to ``g`` and ``g:h``; ``||`` makes the terms uncorrelated.
Written by hand because neither statsmodels nor formulaic parse lme4 bar terms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

__all__ = ["Formula", "RandomTerm", "parse_formula"]

# a name not followed by "(" (a function) or by "=" (an argument's name: scale(x, center = 2))
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)(?![\w.]*\s*(?:\(|=(?!=)))")
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'|`[^`]*`")
# R's constants; a function's name is skipped by _IDENT (it is followed by "("), and any other
# name is a column, whatever it is called (Treatment, Sum, C, I: issue 44, item 3)
_FORMULA_WORDS = {"TRUE", "FALSE", "NULL", "NA", "Inf", "NaN"}
_OFFSET = re.compile(r"^offset\s*\((.*)\)$", re.S)


@dataclass(frozen=True)
class RandomTerm:
    """One random-effects term ``(expr | factor)`` after expansion of ``/`` and ``||``."""

    intercept: bool
    slopes: tuple[str, ...]
    factors: tuple[str, ...]

    @property
    def group(self) -> str:
        """Grouping factor as lme4 names it, e.g. ``phenomenon:type_id``."""
        return ":".join(self.factors)

    @property
    def names(self) -> tuple[str, ...]:
        """Coefficient names as lme4 prints them, for numeric slopes; a slope may also be a
        factor, whose columns (``f2``, ``f3``... as R's ``model.matrix`` names them) depend on
        the data: the design's ``ReTerm.names`` (``stats.mixed.slopes.term_columns``)."""
        return (("(Intercept)",) if self.intercept else ()) + self.slopes

    @property
    def expr(self) -> str:
        """Left-hand side in explicit form, e.g. ``1 + score`` or ``0 + score``."""
        return " + ".join(("1" if self.intercept else "0", *self.slopes))

    def __str__(self) -> str:
        return f"({self.expr} | {self.group})"


@dataclass(frozen=True)
class Formula:
    """A parsed lme4 formula: response, fixed-effects right-hand side, random terms and
    the expressions of its ``offset(...)`` terms (kept out of ``fixed``)."""

    text: str
    response: str
    fixed: str
    random: tuple[RandomTerm, ...]
    offsets: tuple[str, ...] = ()

    @property
    def fixed_formula(self) -> str:
        """The fixed part as a patsy/formulaic formula, ``y ~ x`` (with its offsets)."""
        return f"{self.response} ~ {' + '.join([self.fixed, *(f'offset({o})' for o in self.offsets)])}"

    def canonical(self) -> str:
        """The formula with every random term spelled out (``g/h`` and ``||`` expanded)."""
        return " + ".join([self.fixed_formula, *map(str, self.random)])

    def fixed_columns(self) -> list[str]:
        """Data columns of the fixed-effects part."""
        return list(dict.fromkeys(_identifiers(self.fixed)))

    def columns(self) -> list[str]:
        """Data columns the formula uses, in order of appearance."""
        names = _identifiers(self.response) + _identifiers(self.fixed)
        names += [n for o in self.offsets for n in _identifiers(o)]
        for term in self.random:
            names += [*term.slopes, *term.factors]
        return list(dict.fromkeys(names))

    def check_columns(self, data: pd.DataFrame) -> None:
        """Raise ``KeyError`` naming the formula term whose column is not in ``data``."""
        fixed = _identifiers(self.response) + _identifiers(self.fixed)
        for name in fixed + [n for o in self.offsets for n in _identifiers(o)]:
            if name not in data.columns:
                raise KeyError(_unknown(name, self.fixed_formula, data))
        for term in self.random:
            for name in (*term.slopes, *term.factors):
                if name not in data.columns:
                    raise KeyError(_unknown(name, str(term), data))


def _unknown(name: str, term: str, data: pd.DataFrame) -> str:
    cols = ", ".join(map(str, data.columns[:20]))
    return f"unknown column {name!r} in formula term {term!r}; the data have: {cols}"


def _identifiers(expr: str) -> list[str]:
    """Variable names in an R expression (function names, R's constants and quoted strings
    skipped)."""
    names = _IDENT.findall(_QUOTED.sub("", expr))
    return [n for n in names if n.split(".")[0] not in _FORMULA_WORDS]


def _split_top(text: str, sep: str) -> list[str]:
    """Split ``text`` on ``sep`` outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            raise ValueError(f"unbalanced ')' in formula {text!r}")
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"unbalanced '(' in formula {text!r}")
    return [*parts, text[start:]]


def _bar_term(term: str) -> list[RandomTerm] | None:
    """Parse ``(expr | g)``; None when ``term`` is not a random-effects term."""
    inner = term.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return None
    inner = inner[1:-1]
    try:
        pieces = _split_top(inner, "|")
    except ValueError:  # "(a) + (b)" style: the outer parentheses do not match each other
        return None
    if len(pieces) == 1:
        return None
    uncorrelated = len(pieces) == 3 and pieces[1].strip() == ""
    if len(pieces) not in (2, 3) or (len(pieces) == 3 and not uncorrelated):
        raise ValueError(f"cannot parse random-effects term {term.strip()!r}: use (expr | group)")
    lhs, rhs = pieces[0], pieces[-1]
    if not lhs.strip() or not rhs.strip():
        raise ValueError(f"random-effects term {term.strip()!r} is empty on one side of '|': "
                         "write (1 | group) for a random intercept")
    intercept, slopes = True, []
    for part in (p.strip() for p in lhs.split("+")):
        if part in ("1", ""):
            continue
        if part in ("0", "-1"):
            intercept = False
        elif part.isidentifier():
            slopes.append(part)
        else:
            raise ValueError(
                f"random-effects term {term.strip()!r}: {part!r} is not a column name; "
                "create the variable as a column first"
            )
    if not intercept and not slopes:
        raise ValueError(f"random-effects term {term.strip()!r} has no effects")
    nested = [f.strip() for f in rhs.split("/")]
    groups = [
        tuple(g.strip() for g in ":".join(nested[: i + 1]).split(":")) for i in range(len(nested))
    ]
    for g in groups:
        if not all(x.isidentifier() for x in g):
            raise ValueError(
                f"random-effects term {term.strip()!r}: group {rhs.strip()!r} must be column names joined by ':' or '/'"
            )
    if uncorrelated:
        cols = [(True, ())] if intercept else []
        cols += [(False, (s,)) for s in slopes]
        return [RandomTerm(i, s, g) for g in groups for i, s in cols]
    return [RandomTerm(intercept, tuple(slopes), g) for g in groups]


def parse_formula(text: str) -> Formula:
    """Parse an lme4 formula such as ``human ~ score + (1 + score | phenomenon)``.

    Examples
    --------
    >>> from acceptability.stats.mixed import parse_formula
    >>> f = parse_formula("y ~ x + (1 + x | g/h)")
    >>> f.response, f.fixed, [str(t) for t in f.random]
    ('y', 'x', ['(1 + x | g)', '(1 + x | g:h)'])
    """
    if text.count("~") != 1:
        raise ValueError(f"formula {text!r} needs exactly one '~' (response ~ predictors)")
    lhs, rhs = (s.strip() for s in text.split("~"))
    if not lhs:
        raise ValueError(f"formula {text!r} has no response left of '~'")
    fixed, random, offsets = [], [], []
    for term in _split_top(rhs, "+"):
        if not term.strip():
            raise ValueError(f"formula {text!r} has an empty term (a dangling '+'): remove it")
        parsed = _bar_term(term)
        if (offset := _OFFSET.match(term.strip())) is not None:
            offsets.append(offset.group(1).strip())
        elif parsed is None:
            if term.strip():
                fixed.append(term.strip())
        else:
            random.extend(parsed)
    return Formula(text, lhs, " + ".join(fixed) or "1", tuple(random), tuple(offsets))
