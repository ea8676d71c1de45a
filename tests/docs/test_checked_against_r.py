"""docs/mixed-models.md's "After the fit, checked against R" table: every R function issue 44
names has a row, and every test a row cites exists (a renamed or deleted test fails here
rather than leaving the page claiming a check no one runs)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "mixed-models.md").read_text()
MIXED_TESTS = ROOT / "tests" / "stats" / "mixed"
# The R functions (and arguments) of issue 44, as the table writes them.
R_FUNCTIONS = ["contr.poly", "Treatment", "contr.sum", "helmert", "emmeans(m, ~ N", "adjust = ",
               "type = \"response\"", "mode = \"latent\"", "asymptotic", "factor(nitro)",
               "clm(nominal", "clm(scale", "clm(weights", "symmetric2", "confint(clm)", "predict(clm",
               "clmm", "poisson(link = \"sqrt\")", "nAGQ = 9", "deviance(glmer)", "glmer(nAGQ = 0)",
               "ranova", "drop1", "step", "Anova", "allFit", "isSingular", "re.form = ~", "simulate(",
               "bootMer", "profile(m)"]


def table() -> list[list[str]]:
    section = PAGE.split("\n## After the fit, checked against R\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    assert lines[0] == "| R function | data set | what is compared | worst difference | test |"
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[1:]]


def test_every_r_function_of_the_issue_has_a_row():
    functions = " ".join(row[0] for row in table())
    assert [f for f in R_FUNCTIONS if f not in functions] == []


@pytest.mark.parametrize("cited", sorted({row[4].strip("`") for row in table()}))
def test_the_tests_the_table_cites_exist(cited):
    path, _, name = cited.partition("::")
    source = MIXED_TESTS / path
    assert source.is_file(), f"{path} is not in tests/stats/mixed"
    if name:
        tests = {node.name for node in ast.walk(ast.parse(source.read_text()))
                 if isinstance(node, ast.FunctionDef)}
        assert name in tests
