"""Every LaTeX table the report writes compiles with pdflatex, with LaTeX's special
characters in the data, the headers and the captions.

pdflatex (Debian: texlive-latex-base, texlive-latex-recommended for booktabs) is required
in CI (``CI`` set) and skipped elsewhere when missing, saying so (tests/conftest.py).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from acceptability import reports
from acceptability.reports import tables
from tests.conftest import missing

# Every LaTeX special character, the Unicode dash and minus, in one model name.
AWKWARD = "m_1 50% $x$ #2 a&b {c} ~d ^e \\f <g> |h| \u2013 \u2212"
DOCUMENT = r"""\documentclass{article}
\usepackage{booktabs}
\begin{document}
\input{%s}
\end{document}
"""


def pdflatex() -> str:
    found = shutil.which("pdflatex")
    if found is None:
        missing("pdflatex not on PATH (Debian: apt-get install texlive-latex-base "
                "texlive-latex-recommended)")
    return found


def compile_errors(tex_file, workdir) -> str | None:
    """None when ``tex_file`` compiles inside a minimal booktabs document, else the log's
    error lines."""
    doc = workdir / f"doc_{tex_file.stem}.tex"
    doc.write_text(DOCUMENT % tex_file.as_posix())
    proc = subprocess.run([pdflatex(), "-interaction=nonstopmode", "-halt-on-error",
                           "-no-shell-escape", doc.name], cwd=workdir, capture_output=True,
                          text=True, timeout=120)
    if proc.returncode == 0 and (workdir / f"{doc.stem}.pdf").is_file():
        return None
    errors = [line for line in proc.stdout.splitlines() if line.startswith("!")]
    return "\n".join(errors) or proc.stdout[-1500:]


@pytest.fixture(scope="module")
def report(example, tmp_path_factory):
    """The full report (bootstrap, comparisons, mixed models: every table) with one model
    named with every special character."""
    ds, sc = example
    first = sc["model"].iloc[0]
    sc = sc.assign(model=sc["model"].where(sc["model"] != first, AWKWARD))
    results = reports.analyse(ds, sc, n_boot=50, formula="human ~ score + (1 | phenomenon)")
    return reports.build(results, tmp_path_factory.mktemp("latex") / "rep")


def test_every_latex_table_compiles(report, tmp_path):
    pdflatex()
    tex_files = sorted(p for p in report.tables.values() if p.suffix == ".tex")
    expected = {"data_summary", "exclusions", "counts", "table_3_1", "correlations", "mcc",
                "variability", "fits", "comparisons"}
    assert {p.stem for p in tex_files} == expected
    failures = {p.name: err for p in tex_files if (err := compile_errors(p, tmp_path))}
    assert not failures, failures


def test_caption_percent_is_escaped(report):
    tex = (report.out / "tables" / "table_3_1.tex").read_text()
    assert r"95\% cluster-bootstrap" in tex


def test_latex_escape_spells_out_every_special_character():
    assert tables.latex_escape(AWKWARD) == (
        r"m\_1 50\% \$x\$ \#2 a\&b \{c\} \textasciitilde{}d \textasciicircum{}e "
        r"\textbackslash{}f \textless{}g\textgreater{} \textbar{}h\textbar{} -- $-$")
