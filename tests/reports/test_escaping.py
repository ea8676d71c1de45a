"""Names from the data reach report.md and the figures as text, never as markup (issue 30,
items 3 and 4): a model named ``<script>...|x\\ny`` or a file named ``<svg onload=...>``
neither runs HTML nor adds table columns or rows; a name with ``$...$`` neither stops the
report (mathtext) nor changes in a figure."""

from __future__ import annotations

import html
import io
import re

import matplotlib
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from matplotlib.text import Text

from acceptability import data, reports, stats
from acceptability.reports import cli, figures
from acceptability.reports.escape import escape_markdown, fenced
from tests.conftest import need_module

SCRIPT = "<script>alert(1)</script>|x"  # ids hold no newline (the loaders refuse it)
SVG_FILE = "<svg onload=alert(1)>|\nz.csv"  # the dataset's name: a newline would end a row
DOLLAR = r"m$x^{2}$_1 \alpha"  # mathtext draws it as a formula
BROKEN = r"m$\beta_$ 50% \a"  # mathtext stops at "\beta_" (ParseSyntaxException)


# text with every character Markdown, tables or HTML give a meaning, letters, digits,
# punctuation and symbols that CommonMark tells apart from them, and line breaks
TEXT = st.text(st.sampled_from(list("ab_1 *`[]()<>&;#|$~\\!/?x-+=.:'\"{}^%é€‿²\t\n\r")),
               max_size=30)


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _renamed(sc: pd.DataFrame) -> pd.DataFrame:
    names = dict(zip(sc["model"].unique(), (SCRIPT, DOLLAR, BROKEN), strict=True))
    return sc.assign(model=sc["model"].map(names))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """``acceptability report`` on the bundled example, its sentences in a file named like
    an SVG tag and its three models renamed (SCRIPT, DOLLAR, BROKEN)."""
    folder = tmp_path_factory.mktemp("escaping")
    ds, sc = data.load_example()
    ds.sentences.to_csv(folder / SVG_FILE, index=False)
    ds.pairs.to_csv(folder / "pairs.csv", index=False)
    _renamed(sc).to_csv(folder / "scores.csv", index=False)
    out = folder / "report"
    code = cli.main(["report", "--sentences", str(folder / SVG_FILE), "--pairs",
                     str(folder / "pairs.csv"), "--scores", str(folder / "scores.csv"),
                     "--n-boot", "0", "--out", str(out)])
    assert code == 0
    return out


def _outside_fences(md: str) -> str:
    """report.md without its fenced (verbatim) blocks."""
    return re.sub(r"^(`{3,})\n.*?^\1$", "", md, flags=re.M | re.S)


def _cells(row: str) -> list[str]:
    """A Markdown table row's cells as a reader sees them: split at the unescaped pipes,
    backslash escapes and HTML entities undone."""
    cells, cell, chars = [], "", iter(row.strip())
    for char in chars:
        if char == "\\":
            cell += next(chars, "")
        elif char == "|":
            cells.append(cell)
            cell = ""
        else:
            cell += char
    return [html.unescape(c.strip()) for c in cells[1:]]


def _tables(md: str) -> list[list[str]]:
    """The Markdown tables: runs of lines that start with a pipe."""
    tables, current = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    return tables


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(TEXT)
def test_escaped_text_renders_as_written(text):
    """In running text and in a table cell, a CommonMark renderer (markdown-it, with
    tables and strikethrough) shows the text as written: no markup, one cell."""
    markdown_it = need_module("markdown_it")
    md = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    escaped = escape_markdown(text)
    assert html.unescape(md.renderInline(escaped)) == _one_line(text)
    page = md.render(f"| h | k |\n|:--|--:|\n| {escaped} | 1 |\n")
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page, flags=re.S)
    assert [html.unescape(c) for c in cells] == [_one_line(text).strip(" \t"), "1"]


def test_verbatim_blocks_cannot_be_closed_from_inside():
    block = fenced("a\n```\n<script>x</script>\n````")
    assert block.splitlines()[0] == block.splitlines()[-1] == "`" * 5


def test_markdown_runs_no_html(report):
    md = (report / "report.md").read_text(encoding="utf-8")
    prose = _outside_fences(md)
    tags = re.compile(r"<[a-z/!?]", re.I)  # what could begin HTML ("p < 1e-300" cannot)
    assert not tags.search(prose), [line for line in prose.splitlines() if tags.search(line)]
    markdown_it = need_module("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable("table").render(md).lower()
    assert "<script" not in rendered and "<svg" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered  # shown, as text


def test_markdown_tables_keep_their_columns_and_read_back_the_names(report):
    md = (report / "report.md").read_text(encoding="utf-8")
    tables = _tables(md)
    assert len(tables) >= 5
    for table in tables:  # as many unescaped pipes in every row
        assert len({len(_cells(row)) for row in table}) == 1, table
    counts = next(t for t in tables if _cells(t[0])[:2] == ["Model", "Sentences"])
    assert sorted(_cells(row)[0] for row in counts[2:]) == sorted([SCRIPT, DOLLAR, BROKEN])
    summary = next(t for t in tables if _cells(t[0]) == ["Quantity", "Value"])
    assert ["dataset", "<svg onload=alert(1)>| z"] in [_cells(row) for row in summary]
    title = md.splitlines()[0]  # a newline in a name is a space
    assert _cells(f"|{title}|") == ["# acceptability report: <svg onload=alert(1)>| z"]


def test_html_latex_and_csv_keep_their_own_escaping(report):
    page = (report / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<svg onload" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    tex = (report / "tables" / "counts.tex").read_text(encoding="utf-8")
    assert r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{}\textbar{}x" in tex
    csv = pd.read_csv(report / "tables" / "counts.csv")
    assert sorted(csv["model"]) == sorted([SCRIPT, DOLLAR, BROKEN])  # the raw names


def test_figures_are_written_with_the_names_as_plain_text(report):
    assert len(list((report / "figures").glob("*.png"))) == 7
    ds, sc = data.load_example()
    curve = stats.adc_curve(ds, _renamed(sc))
    fig = figures.adc_curve(curve)
    fig.savefig(io.BytesIO())  # mathtext stopped here
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert [re.sub(r" \(area [\d.]+\)$", "", t) for t in legend] == [SCRIPT, DOLLAR]
    assert legend[1].startswith(DOLLAR + " (area ")
    results = reports.analyse(ds, _renamed(sc), n_boot=0, formula=None)
    drawn = [figures.correlation_heatmap(results.corr_sentence),
             figures.human_vs_model(results.sentence_frame),
             figures.type_mean_sd(results.variability.types)]
    for fig in drawn:
        fig.savefig(io.BytesIO())
        named = [t for t in fig.findobj(Text) if "$" in t.get_text()]
        for name in (DOLLAR, BROKEN):
            assert any(name in t.get_text() for t in named), name
        assert not any(t.get_parse_math() or t.get_usetex() for t in named)
    matplotlib.pyplot.close("all")
