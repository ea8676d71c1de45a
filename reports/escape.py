"""Escaping for the report's text formats: Markdown (``report.md``) and LaTeX
(``tables/*.tex``). HTML is escaped by Jinja2's autoescape and pandas' ``to_html``;
figure texts are drawn as plain text (``figures.plain_text``)."""

from __future__ import annotations

import re
from urllib.parse import quote


class Markdown(str):
    """Text that is already Markdown (a rendered table, a fenced block, a link target):
    [markdown_finalize][acceptability.reports.escape.markdown_finalize] leaves it as it is."""


# Inline Markdown that could format, link, split a table cell or start raw HTML. A line
# break becomes a space (a newline would end a table row); "\" and the punctuation of
# code, emphasis, links, tables and math get a backslash; "<" and "&" become entities.
# Four of them only where they can format, so that common text ("p < 1e-300", "Marvin &
# Linzen", snake_case, "human ~ score") reads as it is in every renderer: "<" before what
# can begin a tag, comment or autolink (a letter, "/", "!", "?"), "&" before what reads as
# an entity ("&lt;"), "_" unless between two letters or digits, "~" (strikethrough) beside
# a non-space. A ">" closes nothing once every "<" is text, and starts a quote only at the
# start of a line, where no value is written.
_MARKDOWN = re.compile(r"\r\n|[\r\n\\`*\[\]|$<&_~]")
_ENTITY = re.compile(r"#?[0-9A-Za-z]+;")


def _markdown_escape(match: re.Match) -> str:
    """What one character of ``_MARKDOWN`` becomes, from its neighbours."""
    char, text, at = match.group(), match.string, match.start()
    before, after = text[at - 1:at], text[match.end():match.end() + 1]
    if char in ("\r\n", "\r", "\n"):
        return " "
    if char == "<":
        return "&lt;" if after.isalpha() or (after and after in "/!?") else char
    if char == "&":
        return "&amp;" if _ENTITY.match(text, at + 1) else char
    if char == "_" and before.isalnum() and after.isalnum():
        return char
    if char == "~" and not (before.strip() or after.strip()):
        return char
    return "\\" + char


def escape_markdown(text: object) -> str:
    """``text`` (any object, as ``str``) as inline Markdown that reads as written and
    neither formats, links, splits a table cell nor runs HTML.

    Examples
    --------
    >>> from acceptability.reports.escape import escape_markdown
    >>> print(escape_markdown("<b>a|b</b>\\nbert_large *x* [y](z) _w_ ~~v~~ a ~ b"))
    &lt;b>a\\|b&lt;/b> bert_large \\*x\\* \\[y\\](z) \\_w\\_ \\~\\~v\\~\\~ a ~ b
    >>> print(escape_markdown("p < 1e-300, a >= b, Marvin & Linzen, &amp;"))
    p < 1e-300, a >= b, Marvin & Linzen, &amp;amp;
    """
    return _MARKDOWN.sub(_markdown_escape, str(text))


def markdown_finalize(value: object) -> str:
    """What a Jinja2 ``{{ expression }}`` writes into Markdown: ``value`` escaped
    (``escape_markdown``), unless it is already ``Markdown``.

    Examples
    --------
    >>> from acceptability.reports.escape import Markdown, markdown_finalize
    >>> print(markdown_finalize("a|b"), markdown_finalize(Markdown("| a | b |")))
    a\\|b | a | b |
    """
    return value if isinstance(value, Markdown) else escape_markdown(value)


def fenced(text: object) -> Markdown:
    """``text`` as a fenced code block, shown verbatim: its fence is longer than any run
    of backticks in it, so no line of ``text`` can close it.

    Examples
    --------
    >>> from acceptability.reports.escape import fenced
    >>> print(fenced("a ``` b"))
    ````
    a ``` b
    ````
    """
    text = str(text)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return Markdown(f"{fence}\n{text}\n{fence}")


def markdown_link(path: object) -> Markdown:
    """A relative path as a Markdown link target (percent-encoded: no space, parenthesis
    or bracket can end it).

    Examples
    --------
    >>> from acceptability.reports.escape import markdown_link
    >>> print(markdown_link("figures/a (1).png"))
    figures/a%20%281%29.png
    """
    return Markdown(quote(str(path)))


# Characters that are not plain text in LaTeX (the ten specials, and < > | which the
# default OT1 font encoding prints as other glyphs), and the Unicode dashes and minus the
# tables use, spelled so that pdflatex needs no extra package.
LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                 "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                 "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
                 "|": r"\textbar{}", "\u2013": "--", "\u2014": "---", "\u2212": "$-$",
                 "δ": r"$\delta$", "Δ": r"$\Delta$", "ρ": r"$\rho$"}
_LATEX_SPECIAL = re.compile("|".join(map(re.escape, LATEX_SPECIAL)))


def latex_escape(text: object) -> str:
    """``text`` as LaTeX source that prints it as written (see ``LATEX_SPECIAL``).

    Examples
    --------
    >>> from acceptability.reports.escape import latex_escape
    >>> print(latex_escape("m_1 50% $x$"))
    m\\_1 50\\% \\$x\\$
    """
    return _LATEX_SPECIAL.sub(lambda m: LATEX_SPECIAL[m.group()], str(text))
