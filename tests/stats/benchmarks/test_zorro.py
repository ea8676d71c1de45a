"""Zorro (Huebner et al. 2021): the 23 paradigms load as pairs, Zorro's published RoBERTa-base
cross-entropies align with them, and Zorro's accuracy rule reproduces from the raw files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from acceptability.data.errors import DataError
from acceptability.data.loaders.zorro import (
    REFERENCE_METHOD,
    REFERENCE_MODEL,
    load_zorro,
    load_zorro_reference_scores,
    zorro_paradigms,
)
from acceptability.stats.benchmarks.zorro import zorro_accuracy
from tests.conftest import need_data

PHENOMENA = ["agreement_determiner_noun", "agreement_subject_verb", "anaphor_agreement",
             "argument_structure", "binding", "case", "ellipsis", "filler-gap", "irregular",
             "island-effects", "local_attractor", "npi_licensing", "quantifiers"]

# RoBERTa-base, from Zorro's reference files: per paradigm (pairs whose grammatical sentence
# has the strictly lower cross-entropy, exact ties) out of 2,000 pairs. The cross-entropies
# are printed with 4 decimals, so 44 pairs tie exactly (14 in in_question_with_aux).
ROBERTA = {
    "agreement_determiner_noun-across_1_adjective": (1853, 0),
    "agreement_determiner_noun-between_neighbors": (1698, 1),
    "agreement_subject_verb-across_prepositional_phrase": (1468, 0),
    "agreement_subject_verb-across_relative_clause": (1785, 1),
    "agreement_subject_verb-in_question_with_aux": (1596, 14),
    "agreement_subject_verb-in_simple_question": (1907, 2),
    "anaphor_agreement-pronoun_gender": (1820, 2),
    "argument_structure-dropped_argument": (1058, 11),
    "argument_structure-swapped_arguments": (1262, 0),
    "argument_structure-transitive": (1284, 4),
    "binding-principle_a": (1877, 0),
    "case-subjective_pronoun": (1503, 2),
    "ellipsis-n_bar": (1647, 0),
    "filler-gap-wh_question_object": (1660, 0),
    "filler-gap-wh_question_subject": (1874, 0),
    "irregular-verb": (1998, 0),
    "island-effects-adjunct_island": (1416, 0),
    "island-effects-coordinate_structure_constraint": (1537, 2),
    "local_attractor-in_question_with_aux": (1788, 0),
    "npi_licensing-matrix_question": (1701, 3),
    "npi_licensing-only_npi_licensor": (1790, 0),
    "quantifiers-existential_there": (1665, 2),
    "quantifiers-superlative": (1758, 0),
}
# ties="random", seed=0: correct pairs where the paradigm has ties (elsewhere = strict count)
ROBERTA_RANDOM_SEED0 = {
    "agreement_determiner_noun-between_neighbors": 1698,
    "agreement_subject_verb-across_relative_clause": 1785,
    "agreement_subject_verb-in_question_with_aux": 1605,
    "agreement_subject_verb-in_simple_question": 1908,
    "anaphor_agreement-pronoun_gender": 1821,
    "argument_structure-dropped_argument": 1063,
    "argument_structure-transitive": 1285,
    "case-subjective_pronoun": 1504,
    "island-effects-coordinate_structure_constraint": 1539,
    "npi_licensing-matrix_question": 1702,
    "quantifiers-existential_there": 1667,
}


@pytest.fixture(scope="module")
def zorro_dir() -> Path:
    return need_data("zorro")


@pytest.fixture(scope="module")
def zorro(zorro_dir):
    return load_zorro(zorro_dir)


@pytest.fixture(scope="module")
def reference(zorro_dir, zorro):
    return load_zorro_reference_scores(zorro_dir, dataset=zorro)


def _raw(zorro_dir: Path, paradigm: str) -> tuple[list[str], list[str]]:
    """Plain Python: the sentence lines and the reference lines of one paradigm."""
    sents = (zorro_dir / "sentences" / f"{paradigm}.txt").read_text().split("\n")
    ref = (zorro_dir / "reference-roberta-base" /
           f"probing_{paradigm}_results_500000.txt").read_text().split("\n")
    assert sents[-1] == "" and ref[-1] == ""  # each file ends with one newline
    return sents[:-1], ref[:-1]


def test_23_paradigms_of_2000_pairs_in_13_phenomena(zorro):
    assert len(zorro_paradigms()) == 23 and sorted(ROBERTA) == zorro_paradigms()
    p, s = zorro.pairs, zorro.sentences
    assert len(p) == 46_000 and len(s) == 92_000 and len(zorro.checksums) == 23
    assert (p.groupby("paradigm").size() == 2000).all()
    assert sorted(p["phenomenon"].unique()) == PHENOMENA
    assert p.groupby("phenomenon")["paradigm"].nunique()["agreement_subject_verb"] == 4
    first = p.iloc[0]
    assert first["pair_id"] == "agreement_determiner_noun-across_1_adjective_0"
    row = s.set_index("sentence_id").loc[first["good_id"]]
    assert (row["line"], row["label"], row["text"]) == (2, 1.0, "look at this purple thing .")
    # odd lines are the unacceptable member, even lines the acceptable one
    assert (s["label"] == (s["line"] % 2 == 0)).all()
    sid = s.set_index("sentence_id")["line"]
    assert (p["good_id"].map(sid) == p["bad_id"].map(sid) + 1).all()


def test_odd_lines_are_ungrammatical(zorro_dir):
    """Evidence for the odd/even rule from the text alone: in determiner-noun agreement
    between neighbours the two lines of a pair differ only in the noun, and the
    determiner's number disagrees with the noun's on every odd line and agrees on every
    even line (plural: ends in -s, or one of the irregular plurals feet, children)."""
    lines, _ = _raw(zorro_dir, "agreement_determiner_noun-between_neighbors")
    for a, b in zip(lines[0::2], lines[1::2], strict=True):
        assert [i for i, (u, v) in enumerate(zip(a.split(), b.split(), strict=True)) if u != v] == [1]
    agree = [(w[0] in ("these", "those")) == (w[1].endswith("s") or w[1] in ("feet", "children"))
             for w in (line.split() for line in lines)]
    assert not any(agree[0::2]) and all(agree[1::2])


def test_reference_scores_align_with_every_sentence(zorro_dir, zorro, reference):
    assert len(reference) == 92_000 and reference.attrs["n_matched"] == 92_000
    assert set(reference["model"]) == {REFERENCE_MODEL}
    assert set(reference["method"]) == {REFERENCE_METHOD}
    assert reference["sentence_id"].tolist() == zorro.sentences["sentence_id"].tolist()
    first = reference.set_index("sentence_id")["score"]
    # "this colors must be white . 0.2590", "this color must be white . 0.0042"
    assert first["agreement_determiner_noun-between_neighbors_0_bad"] == -0.2590
    assert first["agreement_determiner_noun-between_neighbors_0_good"] == -0.0042
    # the reference files list the sentences verbatim, in the sentences files' order
    for paradigm in zorro_paradigms():
        lines, ref = _raw(zorro_dir, paradigm)
        assert [r.rsplit(" ", 1)[0] for r in ref] == lines


def _brute_force(zorro_dir: Path, paradigm: str) -> tuple[int, int, int]:
    """(correct, ties) by line position, and correct by Zorro's own lookup: a dict from a
    sentence's words to its cross-entropy, the last of duplicate sentences winning."""
    lines, ref = _raw(zorro_dir, paradigm)
    xe = [float(r.split()[-1]) for r in ref]
    correct = sum(xe[i + 1] < xe[i] for i in range(0, len(xe), 2))
    ties = sum(xe[i + 1] == xe[i] for i in range(0, len(xe), 2))
    lookup = {tuple(r.split()[:-1]): float(r.split()[-1]) for r in ref}
    by_text = sum(lookup[tuple(g.split())] < lookup[tuple(b.split())]
                  for b, g in zip(lines[0::2], lines[1::2], strict=True))
    return correct, ties, by_text


def test_roberta_accuracy_per_paradigm(zorro_dir, zorro, reference):
    acc = {t: zorro_accuracy(zorro, reference, ties=t).set_index("paradigm")
           for t in ("strict", "half", "random")}
    assert list(acc["half"].columns) == ["model", "phenomenon", "n_pairs", "ties", "accuracy",
                                         "n_missing"]
    for paradigm, (correct, ties) in ROBERTA.items():
        assert _brute_force(zorro_dir, paradigm) == (correct, ties, correct)
        for table in acc.values():
            row = table.loc[paradigm]
            assert (row["n_pairs"], row["ties"], row["n_missing"]) == (2000, ties, 0)
        assert acc["strict"].loc[paradigm, "accuracy"] == correct / 2000
        assert acc["half"].loc[paradigm, "accuracy"] == (correct + ties / 2) / 2000
        won = ROBERTA_RANDOM_SEED0.get(paradigm, correct)
        assert correct <= won <= correct + ties
        assert acc["random"].loc[paradigm, "accuracy"] == won / 2000
    assert sum(t for _, t in ROBERTA.values()) == 44
    assert acc["half"]["accuracy"].mean() == pytest.approx(0.8253695652, abs=1e-9)


def _one_paradigm(zorro_dir: Path, tmp_path: Path, paradigm: str, n: int) -> Path:
    """A folder with the first ``n`` lines of one paradigm's two files."""
    lines, ref = _raw(zorro_dir, paradigm)
    for sub, rows, name in (("sentences", lines, f"{paradigm}.txt"),
                            ("reference-roberta-base", ref,
                             f"probing_{paradigm}_results_500000.txt")):
        (tmp_path / sub).mkdir(exist_ok=True)
        (tmp_path / sub / name).write_text("\n".join(rows[:n]) + "\n")
    return tmp_path


def test_bad_input_is_one_clear_error(zorro_dir, tmp_path):
    name = "binding-principle_a"
    folder = _one_paradigm(zorro_dir, tmp_path, name, 6)
    ds = load_zorro(folder, paradigms=name)
    assert len(ds.pairs) == 3
    assert len(load_zorro_reference_scores(folder, dataset=ds)) == 6
    with pytest.raises(DataError, match="unknown Zorro paradigm 'binding-principle_b'; "
                                        "did you mean 'binding-principle_a'"):
        load_zorro(folder, paradigms=["binding-principle_b"])
    # a reference line whose sentence is not the sentences file's line
    ref = folder / "reference-roberta-base" / f"probing_{name}_results_500000.txt"
    rows = ref.read_text().split("\n")
    rows[3] = rows[2]
    ref.write_text("\n".join(rows))
    with pytest.raises(DataError, match=rf"probing_{name}_results_500000.txt, row 4 \(line\): "
                                        rf"sentence .* differs from line 4 of sentences/{name}"):
        load_zorro_reference_scores(folder, dataset=ds)
    shutil.copy(zorro_dir / "reference-roberta-base" / ref.name, ref)  # 4000 lines for 6
    with pytest.raises(DataError, match="4000 lines, but sentences/binding-principle_a.txt has 6"):
        load_zorro_reference_scores(folder, dataset=ds)
    # an odd number of lines, then a blank line
    sents = folder / "sentences" / f"{name}.txt"
    rows = sents.read_text().split("\n")
    sents.write_text("\n".join(rows[:5]) + "\n")
    with pytest.raises(DataError, match=rf"{name}.txt, row 5 \(line\): 5 lines, not a positive "
                                        "even number"):
        load_zorro(folder, paradigms=name)
    sents.write_text("\n".join(rows[:2] + [" "] + rows[3:]))
    with pytest.raises(DataError, match=rf"{name}.txt, row 3 \(line\): blank line"):
        load_zorro(folder, paradigms=name)
