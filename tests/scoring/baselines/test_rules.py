"""Seed 004's hand-written linear rules (Vázquez Martínez et al. 2023, sec. 3.1.2 and
appendix Tables 3-7): each rule on hand-made pairs, then the "Simple Rule" columns of
Table 3 (Zorro) and Table 5 (BLiMP) from the real data, with every paradigm that differs
from the print pinned beside the paper's value and the cause found in the data rows."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from acceptability import data
from acceptability.data.errors import DataError
from acceptability.data.loaders.published import seed_004_table
from acceptability.data.tables import OUTCOME_COLUMNS
from acceptability.scoring.baselines import rules as R
from acceptability.stats.benchmarks.outcomes import accuracy
from tests.conftest import need_data

# ------------------------------------------------------------ hand-made pairs

# (paradigm, grammatical, ungrammatical, outcome): 1 the rule accepts only the
# grammatical sentence, 0 only the ungrammatical one, 0.5 both or neither.
ZORRO_CASES = [
    ("agreement_subject_verb-across_relative_clause",
     "the dogs that i like are nice .", "the dogs that i like is nice .", 1),
    ("agreement_subject_verb-across_relative_clause",  # feet: no -s, both rejected
     "the feet that i like are nice .", "the foot that i like are nice .", 0.5),
    ("agreement_subject_verb-across_prepositional_phrase",  # verb outside the six: neither
     "the dog on the hill can run .", "the dogs on the hill can run .", 0.5),
    ("agreement_subject_verb-in_simple_question", "where are the cats ?",
     "where is the cats ?", 1),
    ("agreement_subject_verb-in_simple_question", "what was the way ?",
     "what were the way ?", 1),
    ("agreement_subject_verb-in_question_with_aux", "where does the dog go ?",
     "where do the dog go ?", 1),
    ("agreement_determiner_noun-between_neighbors", "this dog can run .",
     "this dogs can run .", 1),
    ("agreement_determiner_noun-between_neighbors", "these children can run .",
     "these child can run .", 0.5),
    ("agreement_determiner_noun-across_1_adjective", "look at these red cars .",
     "look at these red car .", 1),
    ("filler-gap-wh_question_object", "Laura saw the cake that the dog took .",
     "Laura saw what the cake took the dog .", 1),
    ("filler-gap-wh_question_subject", "Laura saw the dog that can eat cake .",
     "Laura saw who the dog can eat cake .", 1),
    ("island-effects-coordinate_structure_constraint", "who must Philip and the dog see ?",
     "who must Philip see and the dog ?", 1),
    ("island-effects-adjunct_island", "who did Sam see without watching the film ?",
     "who did Sam see the film without watching ?", 1),
    ("quantifiers-existential_there", "there are many books .", "there are most books .", 1),
    ("quantifiers-superlative", "no dog could eat more than six cakes .",
     "no dog could eat at least six cakes .", 1),
    ("npi_licensing-only_npi_licensor", "only Mark ever finds some toy .",
     "even Mark ever finds some toy .", 1),
    ("npi_licensing-matrix_question", "does Mark ever play ?", "Mark does ever play ?", 1),
    ("argument_structure-swapped_arguments", "he made the dog a toy .",
     "the dog made a toy he .", 1),
    ("argument_structure-dropped_argument", "give me the boat .", "the boat gives me .", 1),
    ("argument_structure-dropped_argument",  # neither starts with "the": both accepted
     "a sister saw him there .", "a sister saw him by .", 0.5),
    ("case-subjective_pronoun", "i gave the wolf a toy .", "the wolf gave i a toy .", 1),
    ("argument_structure-transitive", "Philip thinks .", "Philip gave .", 1),
    ("argument_structure-transitive", "Philip thinks .", "Philip affected .", 0.5),
    ("irregular-verb", "Michael had chosen the toy .", "Michael had chose the toy .", 1),
    ("irregular-verb", "Michael chose the toy .", "Michael chosen the toy .", 1),
    ("anaphor_agreement-pronoun_gender", "will Mark want himself ?",
     "will Mark want herself ?", 1),
    ("anaphor_agreement-pronoun_gender", "will a woman want herself ?",
     "will a woman want himself ?", 0),
    ("ellipsis-n_bar", "Mark fixed one red car and Roger fixed more .",
     "Mark fixed one car and Roger fixed more red .", 1),
    ("ellipsis-n_bar", "Mark fixed one car and Roger fixed more .",  # same position
     "Mark fixed one car and Roger fixed more red .", 0.5),
    ("binding-principle_a", "Ben thinks about himself calling the dog .",
     "Ben thinks about himself called the dog .", 1),
    ("local_attractor-in_question_with_aux", "is the whale getting the toy ?",
     "is the whale gets the toy ?", 1),
]

BLIMP_CASES = [
    ("anaphor_gender_agreement", "Mary could help herself.", "Mary could help itself.", 1),
    ("anaphor_gender_agreement", "Mary could help herself.", "Mary could help himself.", 0.5),
    ("anaphor_number_agreement", "These dogs respect themselves.",
     "These dogs respect himself.", 1),
    ("causative", "Aaron breaks the glass.", "Aaron appeared the glass.", 1),
    ("transitive", "Diane watched Alan.", "Diane sighed Alan.", 1),
    ("drop_argument", "Noah approached.", "Noah works with.", 1),
    ("intransitive", "Todd can't yawn.", "Todd can't walk through.", 1),
    ("inchoative", "Patricia had changed.", "Patricia had forgotten.", 0.5),
    ("passive_1", "The boys were helped by Amy.", "The boys were laughed by Amy.", 1),
    ("passive_2", "The Clintons were attacked.", "The Clintons were complained.", 1),
    ("principle_A_case_1", "Carl thinks that he left.", "Carl thinks that himself left.", 1),
    ("principle_A_case_2", "Eric imagines himself taking every rug.",
     "Eric imagines himself took every rug.", 1),
    ("principle_A_c_command", "A lot of patients healed themselves.",
     "A lot of patients healed itself.", 1),
    ("principle_A_c_command", "A guy notices himself.", "A guy notices themselves.", 0.5),
    ("principle_A_domain_1", "Carla said that Sam discussed her.",
     "Carla said that Sam discussed herself.", 1),
    ("principle_A_domain_2", "Mark imagines Erin might admire herself.",
     "Mark imagines Erin might admire themselves.", 1),
    ("principle_A_domain_3", "Steven explains Kayla won't hurt herself.",
     "Kayla explains Steven won't hurt herself.", 0.5),
    ("principle_A_reconstruction", "It's himself that this cashier attacked.",
     "It's himself that attacked this cashier.", 1),
    ("existential_there_object_raising", "Richard believed there to be many boxes.",
     "Richard sways there to be many boxes.", 1),
    ("expletive_it_object_raising", "Nina anticipated it to be nice that Jo exists.",
     "Nina obligated it to be nice that Jo exists.", 1),
    ("existential_there_subject_raising", "There is soon to be a cat existing.",
     "There is willing to be a cat existing.", 1),
    ("tough_vs_raising_1", "James is pleasant to flee from.", "James is apt to flee from.", 1),
    ("tough_vs_raising_2", "Rachel was apt to talk to Alicia.",
     "Rachel was exciting to talk to Alicia.", 1),
    ("determiner_noun_agreement_irregular_1", "Adam discussed these analyses.",
     "Adam discussed these analysis.", 1),
    ("determiner_noun_agreement_irregular_1", "Laurie lifted those cacti.",
     "Laurie lifted those cactus.", 0),
    ("determiner_noun_agreement_irregular_2", "All boys boast about that child.",
     "All boys boast about that children.", 1),
    ("determiner_noun_agreement_with_adj_irregular_2", "Alex walked through that new oasis.",
     "Alex walked through those new oasis.", 1),
    ("determiner_noun_agreement_1", "Raymond is selling this sketch.",
     "Raymond is selling this sketches.", 1),
    ("determiner_noun_agreement_2",  # the capitalised subject determiner does not count
     "Those dogs saw this cat.", "Those dogs saw this cats.", 1),
    ("ellipsis_n_bar_1", "Dawn went to one rough store and Becca went to many.",
     "Dawn went to one store and Becca went to many rough.", 1),
    ("ellipsis_n_bar_1", "Men annoy two happy students and a snake annoys three.",
     "Men annoy two students and a snake annoys three happy.", 1),
    ("ellipsis_n_bar_2",
     "Larry talked to five doctors and Rose talked to four displeased doctors.",
     "Larry talked to five small doctors and Rose talked to four displeased.", 1),
    ("wh_vs_that_no_gap", "Mark figured out that most governments appreciate Steve.",
     "Mark figured out who most governments appreciate Steve.", 1),
    ("wh_questions_object_gap",  # "white" contains wh: both rejected
     "Joel discovered the white vase that Pat took.",
     "Joel discovered what Pat took the white vase.", 0.5),
    ("wh_vs_that_with_gap", "A lady remembered who the actors conceal.",
     "A lady remembered that the actors conceal.", 1),
    ("irregular_past_participle_adjectives", "The hidden offspring aren't confident.",
     "The hid offspring aren't confident.", 1),
    ("irregular_past_participle_verbs", "Teresa hid every senator.",
     "Teresa hidden every senator.", 1),
    ("irregular_past_participle_verbs", "The Borgias wore a scarf.",  # as long: undecided
     "The Borgias worn a scarf.", 0.5),
    ("adjunct_island", "Who should Derek hug after shocking Richard?",
     "Who should Derek hug Richard after shocking?", 1),
    ("coordinate_structure_constraint_complex_left_branch",
     "What senators was Alicia approaching?", "What was Alicia approaching senators?", 1),
    ("coordinate_structure_constraint_object_extraction", "Who were all men and Eric leaving?",
     "Who were all men leaving and Eric?", 1),
    ("left_branch_island_echo_question", "Irene had messed up whose rug?",
     "Whose had Irene messed up rug?", 1),
    ("left_branch_island_simple_question", "Whose hat should Tonya wear?",
     "Whose should Tonya wear hat?", 1),
    ("sentential_subject_island", "Who has the waitress's observing Christine bothered.",
     "Who has the waitress's observing bothered Christine.", 1),
    ("wh_island", "Who have those men revealed they helped?",
     "Who have those men revealed who helped?", 1),
    ("matrix_question_npi_licensor_present", "Had Bruce ever played?",
     "Bruce had ever played.", 1),
    ("npi_present_1", "Even Suzanne has really joked around.",
     "Even Suzanne has ever joked around.", 1),
    ("sentential_negation_npi_licensor_present",  # both contain "ever": undecided
     "Teresa had not ever sold a car.", "Teresa had probably ever sold a car.", 0.5),
    ("only_npi_licensor_present", "Only Bill would ever complain.",
     "Even Bill would ever complain.", 1),
    ("existential_there_quantifiers_1", "There was a sweater shocking David.",
     "There was each sweater shocking David.", 1),
    ("existential_there_quantifiers_2", "All convertibles weren't there existing.",
     "There weren't all convertibles existing.", 1),
    ("superlative_quantifiers_1", "No girl attacked fewer than two waiters.",
     "No girl attacked at most two waiters.", 1),
    ("superlative_quantifiers_2", "The teenager does tour at most nine restaurants.",
     "No teenager does tour at most nine restaurants.", 1),
    ("animate_subject_passive", "Lisa was kissed by the boys.",
     "Lisa was kissed by the blouses.", 1),
    ("animate_subject_trans", "Tina revealed Margaret.", "The horse revealed Margaret.", 1),
    ("distractor_agreement_relational_noun",  # the longer is the ungrammatical one
     "A niece of most senators hasn't left.", "A niece of most senators haven't left.", 0),
    ("distractor_agreement_relative_clause", "Boys that aren't disturbing Natalie suffer.",
     "Boys that aren't disturbing Natalie suffers.", 1),
    ("irregular_plural_subject_verb_agreement_1", "The axes have scared that teenager.",
     "The axes has scared that teenager.", 1),
    ("irregular_plural_subject_verb_agreement_2", "The child is here.",
     "The children is here.", 1),
    ("regular_plural_subject_verb_agreement_1", "The dogs bark.", "The dogs barks.", 1),
    ("regular_plural_subject_verb_agreement_2", "The students perform.",
     "The student perform.", 1),
]


@pytest.mark.parametrize(("paradigm", "good", "bad", "expected"), ZORRO_CASES)
def test_zorro_rule_on_a_pair(paradigm, good, bad, expected):
    assert R.ZORRO_RULES[paradigm](good, bad) == expected


@pytest.mark.parametrize(("paradigm", "good", "bad", "expected"), BLIMP_CASES)
def test_blimp_rule_on_a_pair(paradigm, good, bad, expected):
    assert R.BLIMP_RULES[paradigm](good, bad) == expected


def test_every_rule_is_tried_on_a_pair():
    for rules, cases in ((R.ZORRO_RULES, ZORRO_CASES), (R.BLIMP_RULES, BLIMP_CASES)):
        tried = {rules[p].name for p, *_ in cases}
        assert tried == {r.name for r in rules.values()}


def test_rules_quote_their_table_row():
    for rules, table in ((R.ZORRO_RULES, "Table 4"), (R.BLIMP_RULES, "Table 6")):
        for paradigm, rule in rules.items():
            assert table in rule.doc and '"' in rule.doc, paradigm
    compares = {p for p, r in R.BLIMP_RULES.items() if r.compares}
    assert len(compares) == 9 and all('"*' in R.BLIMP_RULES[p].doc for p in compares)
    assert [p for p, r in R.ZORRO_RULES.items() if r.compares] == ["ellipsis-n_bar"]


def test_words():
    assert R.zorro_words("who did Sam see ?")[-1] == "?"
    assert R.blimp_words("The patients' dog can't help himself.") == [
        "The", "patients'", "dog", "can't", "help", "himself"]
    # a comparison is undecided on equal lengths; a sentence rule ignores the other
    assert R.BLIMP_RULES["principle_A_case_1"]("ab", "cd") == 0.5
    assert R.BLIMP_RULES["npi_present_1"].accepts("He left.", "ever ever") is True


def test_registries_cover_the_tables():
    need_data("zorro")
    need_data("blimp")
    assert sorted(R.ZORRO_RULES) == data.zorro_paradigms()
    assert sorted(R.BLIMP_RULES) == sorted(seed_004_table("blimp")["paradigm"])
    assert sorted(set(data.blimp_paradigms()) - set(R.BLIMP_RULES)) == list(R.BLIMP_NO_RULE)


# ------------------------------------------------------------------- errors


@pytest.fixture(scope="module")
def zorro():
    need_data("zorro")
    return data.load_zorro()


@pytest.fixture(scope="module")
def blimp():
    need_data("blimp")
    return data.load_blimp()


def test_unknown_paradigm_is_one_error_with_close_names(blimp):
    small = blimp.subset(blimp.pairs["pair_id"][blimp.pairs["paradigm"].isin(
        ["adjunct_island", "wh_island"])])
    renamed = replace(small, pairs=small.pairs.replace(
        {"paradigm": {"adjunct_island": "adjunct_islands", "wh_island": "wh_isle"}}))
    with pytest.raises(DataError, match=r"no blimp rule for paradigm\(s\) 'adjunct_islands' "
                       r"\(did you mean 'adjunct_island' or .*\), 'wh_isle' \(did you mean "
                       r"'wh_island'\?\)"):
        R.rule_outcomes(renamed)
    with pytest.raises(DataError, match="'complex_NP_island' .seed 004 gives it no rule"):
        R.rule_for("complex_NP_island", "blimp")
    with pytest.raises(DataError, match="did you mean 'binding-principle_a'"):
        R.rule_for("binding-principle_A", "zorro")
    with pytest.raises(DataError, match="no rules for benchmark 'cola'"):
        R.rule_outcomes(replace(small, name="cola"))
    # benchmark= overrides the dataset's name
    assert len(R.rule_outcomes(replace(small, name="mine"), benchmark="blimp")) == 2000


# ------------------------------------------------------------ reproductions

# Our per-paradigm accuracies (percent, 2 decimals) from the benchmark files.
ZORRO_OURS = {
    "agreement_determiner_noun-across_1_adjective": 97.2,
    "agreement_determiner_noun-between_neighbors": 98.6,
    "agreement_subject_verb-across_prepositional_phrase": 98.4,
    "agreement_subject_verb-across_relative_clause": 96.2,
    "agreement_subject_verb-in_question_with_aux": 98.05,
    "agreement_subject_verb-in_simple_question": 98.3,
    "anaphor_agreement-pronoun_gender": 52.75,
    "argument_structure-dropped_argument": 75.42,  # 75.425
    "argument_structure-swapped_arguments": 100.0,
    "argument_structure-transitive": 58.85,
    "binding-principle_a": 100.0,
    "case-subjective_pronoun": 100.0,
    "ellipsis-n_bar": 100.0,
    "filler-gap-wh_question_object": 100.0,
    "filler-gap-wh_question_subject": 100.0,
    "irregular-verb": 88.4,
    "island-effects-adjunct_island": 100.0,
    "island-effects-coordinate_structure_constraint": 100.0,
    "local_attractor-in_question_with_aux": 100.0,
    "npi_licensing-matrix_question": 100.0,
    "npi_licensing-only_npi_licensor": 100.0,
    "quantifiers-existential_there": 100.0,
    "quantifiers-superlative": 100.0,
}
# Paradigms where Table 3 prints another value: (paper, ours - paper).
ZORRO_DIFFER = {
    "argument_structure-dropped_argument": (100.0, -24.575),
    "argument_structure-transitive": (58.05, 0.8),
}

BLIMP_OURS = {
    "adjunct_island": 94.5, "anaphor_gender_agreement": 73.9,
    "anaphor_number_agreement": 80.1, "animate_subject_passive": 65.25,
    "animate_subject_trans": 84.65, "causative": 85.6,
    "coordinate_structure_constraint_complex_left_branch": 97.05,
    "coordinate_structure_constraint_object_extraction": 86.35,
    "determiner_noun_agreement_1": 96.1, "determiner_noun_agreement_2": 96.6,
    "determiner_noun_agreement_irregular_1": 68.45,
    "determiner_noun_agreement_irregular_2": 73.45,
    "determiner_noun_agreement_with_adj_2": 95.7,
    "determiner_noun_agreement_with_adj_irregular_1": 74.45,
    "determiner_noun_agreement_with_adj_irregular_2": 71.8,
    "determiner_noun_agreement_with_adjective_1": 96.45,
    "distractor_agreement_relational_noun": 50.25,
    "distractor_agreement_relative_clause": 55.85, "drop_argument": 77.1,
    "ellipsis_n_bar_1": 100.0, "ellipsis_n_bar_2": 99.95,
    "existential_there_object_raising": 67.95, "existential_there_quantifiers_1": 97.5,
    "existential_there_quantifiers_2": 97.0, "existential_there_subject_raising": 77.0,
    "expletive_it_object_raising": 69.5, "inchoative": 57.1, "intransitive": 73.55,
    "irregular_past_participle_adjectives": 100.0, "irregular_past_participle_verbs": 84.1,
    "irregular_plural_subject_verb_agreement_1": 52.25,
    "irregular_plural_subject_verb_agreement_2": 59.3,
    "left_branch_island_echo_question": 100.0, "left_branch_island_simple_question": 97.9,
    "matrix_question_npi_licensor_present": 97.4, "npi_present_1": 100.0,
    "npi_present_2": 100.0, "only_npi_licensor_present": 100.0, "only_npi_scope": 100.0,
    "passive_1": 59.5, "passive_2": 59.6, "principle_A_c_command": 71.75,
    "principle_A_case_1": 100.0, "principle_A_case_2": 99.2, "principle_A_domain_1": 100.0,
    "principle_A_domain_2": 58.3, "principle_A_domain_3": 50.4,
    "principle_A_reconstruction": 74.1, "regular_plural_subject_verb_agreement_1": 64.35,
    "regular_plural_subject_verb_agreement_2": 73.15,
    "sentential_negation_npi_licensor_present": 50.0,
    "sentential_negation_npi_scope": 50.0, "sentential_subject_island": 82.65,
    "superlative_quantifiers_1": 100.0, "superlative_quantifiers_2": 100.0,
    "tough_vs_raising_1": 87.1, "tough_vs_raising_2": 92.5, "transitive": 57.85,
    "wh_island": 100.0, "wh_questions_object_gap": 99.95, "wh_questions_subject_gap": 99.9,
    "wh_vs_that_no_gap": 99.95, "wh_vs_that_no_gap_long_distance": 99.7,
    "wh_vs_that_with_gap": 100.0, "wh_vs_that_with_gap_long_distance": 99.9,
}
# More than one point from Table 5: (paper, ours - paper); causes in the tests below.
BLIMP_DIFFER_MORE = {
    "ellipsis_n_bar_1": (85.65, 14.35),
    "irregular_past_participle_verbs": (100.0, -15.9),
    "sentential_negation_npi_licensor_present": (100.0, -50.0),
    "sentential_negation_npi_scope": (100.0, -50.0),
}
# Within one point: readings of the printed row that come closest (see the rules).
BLIMP_DIFFER_LESS = {
    "determiner_noun_agreement_1": (95.55, 0.55),
    "determiner_noun_agreement_2": (96.75, -0.15),
    "determiner_noun_agreement_irregular_2": (73.7, -0.25),
    "determiner_noun_agreement_with_adj_2": (95.6, 0.1),
    "determiner_noun_agreement_with_adjective_1": (95.95, 0.5),
    "existential_there_quantifiers_1": (97.3, 0.2),
    "existential_there_quantifiers_2": (96.85, 0.15),
    "irregular_plural_subject_verb_agreement_1": (53.2, -0.95),
    "principle_A_c_command": (71.35, 0.4),
}


def _paradigm_accuracy(outcomes) -> dict[str, float]:
    acc = accuracy(outcomes, n_boot=0)
    para = acc[acc["level"] == "paradigm"].set_index("group")["accuracy"]
    return (para * 100).round(2).to_dict()


def _differences(ours: dict[str, float], benchmark: str) -> dict[str, tuple]:
    paper = seed_004_table(benchmark).set_index("paradigm")["rule"]
    return {p: (paper[p], round(ours[p] - paper[p], 3)) for p in paper.index
            if abs(ours[p] - paper[p]) > 1e-9}


def _scorer(dataset):
    """score(paradigm, accepts) -> percent accuracy of a sentence predicate, for the
    other readings of a row."""
    text = dataset.sentences.set_index("sentence_id")["text"]
    pairs = dataset.pairs.assign(good=dataset.pairs["good_id"].map(text),
                                 bad=dataset.pairs["bad_id"].map(text))
    by = {p: list(zip(g["good"], g["bad"], strict=True)) for p, g in pairs.groupby("paradigm")}

    def score(paradigm, accepts):
        rule = R.Rule("reading", lambda t, o: accepts(t), False, "")
        return round(100 * float(np.mean([rule(g, b) for g, b in by[paradigm]])), 2)
    score.pairs = by
    return score


@pytest.fixture(scope="module")
def zorro_outcomes(zorro):
    return R.rule_outcomes(zorro)


@pytest.fixture(scope="module")
def blimp_outcomes(blimp):
    return R.rule_outcomes(blimp)


def test_outcomes_table(zorro_outcomes, blimp_outcomes):
    for out, n in ((zorro_outcomes, 46_000), (blimp_outcomes, 65_000)):
        assert list(out.columns) == OUTCOME_COLUMNS and len(out) == n
        assert set(out["system"]) == {"rules"} and (out["n"] == 1).all()
        assert set(out["correct"]) <= {0.0, 0.5, 1.0}
        assert (out["tie"] == (out["correct"] == 0.5)).all()
    assert zorro_outcomes.attrs["excluded"] == {"rules": 0}
    assert blimp_outcomes.attrs["excluded"] == {"rules": 2000}
    assert blimp_outcomes.attrs["no_rule"] == list(R.BLIMP_NO_RULE)


def test_zorro_table_3(zorro_outcomes):
    """Table 3's Simple Rule column. Our rules are the authors' (their Rules/
    zorro_rules.py, run on our files, gives the same 23 values); 21 paradigms equal the
    print, the mean is 94.01 (printed 93.97) and 13 paradigms are perfect (text: 14).

    - argument_structure-dropped_argument, ours 75.425, printed 100: the printed 100 is a
      slip of the table. The printed average 93.97 is the mean of the printed rows only
      with 75.425 in this row (with 100 they average 95.04), and the text's "14 of 23"
      counts the slip. "1st word not the" cannot solve the paradigm: in 983 pairs both
      sentences start with another determiner (``a sister saw him there .`` /
      ``a sister saw him by .``) and stay undecided. No version of Zorro's file gives 100
      (the authors' rule: 81.15, 74.525, 74.625, 75.325, 75.7, 75.325 and 75.425 over
      its seven versions in github.com/phueb/Zorro).
    - argument_structure-transitive, 58.85 against 58.05 (0.8 points): no version of the
      file gives 58.05 (57.475, 57.15 at tag CONLL2021, 58.85 now); the printed average
      uses 58.05.

    Data version: the CONLL2021 tag's sentence files differ from ours (687ba43, the
    sentences of commit 3b62dae) in nearly every line; on them the authors' rules give
    99.30, 98.40, 98.30, 98.20, 98.40, 98.40, 87.75, 51.45 (instead of 96.20, 98.30,
    98.05, 98.40, 98.60, 97.20, 88.40, 52.75 for the six agreement paradigms, irregular
    and pronoun_gender): the paper's numbers come from the current files.
    """
    ours = _paradigm_accuracy(zorro_outcomes)
    assert ours == ZORRO_OURS
    exact = zorro_outcomes.groupby("paradigm")["correct"].mean() * 100
    assert _differences(exact.to_dict(), "zorro") == ZORRO_DIFFER
    counts = zorro_outcomes[zorro_outcomes["paradigm"] == "argument_structure-dropped_argument"]
    assert counts["correct"].value_counts().to_dict() == {1.0: 1017, 0.5: 983}
    assert round(exact.mean(), 2) == 94.01 and int((exact == 100).sum()) == 13
    printed = seed_004_table("zorro").set_index("paradigm")["rule"]
    with_real_row = printed.copy()
    with_real_row["argument_structure-dropped_argument"] = 75.425
    assert round(printed.mean(), 2) == 95.04 and round(with_real_row.mean(), 2) == 93.97
    assert int((printed == 100).sum()) == 14 and int((with_real_row == 100).sum()) == 13


def test_zorro_decision_quirks_do_not_matter(zorro):
    """The authors' code keeps a running decision (0.5; the ungrammatical sentence
    matching sets 0; the grammatical one then moves 0 to 0.5 and a second match 0.5 to 1)
    and scores ellipsis pairs with equal ``and`` positions 0. A second match needs two of
    is/was/are/were or of this/that/these/those in one sentence; no sentence has them,
    and no n_bar pair has equal positions: the plain both-or-neither rule gives the same
    numbers."""
    s = zorro.sentences
    for paradigm, words in (
            ("agreement_subject_verb-in_simple_question", {"is", "was", "are", "were"}),
            ("agreement_determiner_noun-between_neighbors", {"this", "that", "these", "those"}),
            ("agreement_determiner_noun-across_1_adjective",
             {"this", "that", "these", "those"})):
        texts = s.loc[s["paradigm"] == paradigm, "text"]
        assert texts.map(lambda t, w=words: len(w & set(t.split()))).eq(1).all(), paradigm
    score = _scorer(zorro)
    same = [g.split().index("and") == b.split().index("and")
            for g, b in score.pairs["ellipsis-n_bar"]]
    assert not any(same)


def test_zorro_printed_wording(zorro):
    """Table 4 rows whose wording is not what the authors ran, scored as printed."""
    score = _scorer(zorro)
    w = str.split
    assert score("filler-gap-wh_question_object", lambda t: w(t)[1] == "the") == 50.0
    assert score("npi_licensing-matrix_question", lambda t: bool(
        {"does", "will", "should", "could", "did", "would"} & set(w(t)))) == 50.0
    for paradigm in ("argument_structure-swapped_arguments", "case-subjective_pronoun"):
        assert score(paradigm, lambda t: w(t)[0] == "the") == 0.0
    assert score("binding-principle_a", lambda t: w(t)[-4].endswith("ing")) == 85.7
    assert score("irregular-verb", lambda t: w(t)[w(t).index("had") + 1].endswith("n")
                 if "had" in w(t) else not any(x.endswith("n") for x in w(t))) == 85.95


def test_blimp_table_5(blimp_outcomes):
    """Table 5's Simple Rule column over its 65 paradigms: mean 82.83 (printed 84.35; its
    rows average 84.38), 13 perfect (15 printed rows of 100, "14 of 67" in the text).
    Four paradigms differ by more than one point (next tests); nine by less, where the
    closest reading of the row is not exactly what the authors ran."""
    ours = _paradigm_accuracy(blimp_outcomes)
    assert ours == BLIMP_OURS
    exact = blimp_outcomes.groupby("paradigm")["correct"].mean() * 100
    diff = _differences(exact.to_dict(), "blimp")
    assert {p: d for p, d in diff.items() if abs(d[1]) > 1} == BLIMP_DIFFER_MORE
    assert {p: d for p, d in diff.items() if abs(d[1]) <= 1} == BLIMP_DIFFER_LESS
    assert round(exact.mean(), 2) == 82.83 and int((exact == 100).sum()) == 13
    acc = accuracy(blimp_outcomes, n_boot=0)
    assert round(acc.loc[acc["level"] == "overall", "accuracy"].item() * 100, 2) == 82.83
    printed = seed_004_table("blimp").set_index("paradigm")["rule"]
    assert round(printed.mean(), 2) == 84.38 and int((printed == 100).sum()) == 15
    # with the four printed values, the rest of ours averages within 0.03 of the rows
    patched = exact.copy()
    for p, (paper, _) in BLIMP_DIFFER_MORE.items():
        patched[p] = paper
    assert round(patched.mean(), 2) == 84.39


def test_blimp_ellipsis_n_bar_1_number_words(blimp):
    """ellipsis_n_bar_1, ours 100, printed 85.65: Table 7's num_quant includes one-ten;
    without the number words the rule gives exactly 85.65. The 287 pairs whose
    grammatical sentence ends in two, three, four or five (``... and a snake irritates
    three.``) are then undecided: the authors' set did not match the number words."""
    score = _scorer(blimp)
    last = [R.blimp_words(g)[-1] for g, _ in score.pairs["ellipsis_n_bar_1"]]
    assert sum(w in R.NUMBERS for w in last) == 287
    assert set(last) & set(R.NUMBERS) == {"two", "three", "four", "five"}
    no_numbers = [w for w in R.NUM_QUANT if w not in R.NUMBERS]
    assert score("ellipsis_n_bar_1", lambda t: R.blimp_words(t)[-1] in no_numbers) == 85.65


def test_blimp_irregular_past_participle_verbs_row_copied(blimp):
    """irregular_past_participle_verbs, ours 84.10, printed 100: the printed row repeats
    irregular_past_participle_adjectives' in all five columns (BabyBERTa 59.8, 5-gram
    word 99.4, tag 12.2, oracle 99.4, rules 100), a copying slip. "Shorter" cannot
    decide the 318 pairs whose verbs are as long (went/gone 113, wore/worn 70,
    shrank/shrunk 37, drank/drunk 35, came/come 34, sang/sung 29). If this row were the
    only slip, the printed average 84.35 and the text's "14 of 67" would put the
    authors' value between 97.5 and 98.1."""
    table = seed_004_table("blimp").set_index("paradigm")
    cols = ["babyberta", "word", "tag", "oracle", "rule"]
    assert (table.loc["irregular_past_participle_verbs", cols]
            == table.loc["irregular_past_participle_adjectives", cols]).all()
    score = _scorer(blimp)
    ties = [(g, b) for g, b in score.pairs["irregular_past_participle_verbs"]
            if len(g) == len(b)]
    assert len(ties) == 318
    verbs = {tuple(x for x in zip(R.blimp_words(g), R.blimp_words(b), strict=True)
                   if x[0] != x[1]) for g, b in ties}
    assert {v[0] for v in verbs} == {("went", "gone"), ("wore", "worn"), ("shrank", "shrunk"),
                                     ("drank", "drunk"), ("came", "come"), ("sang", "sung")}
    rest = table["rule"].drop("irregular_past_participle_verbs").sum()
    lo, hi = 84.345 * 65 - rest, 84.355 * 65 - rest
    assert 97.4 < lo < hi < 98.2


def test_blimp_sentential_negation_rule_cannot_decide(blimp):
    """sentential_negation_npi_licensor_present and _scope, ours 50, printed 100: the
    printed rule, "Does not contain the word ever" (the npi_present rows'), cannot
    decide them: every sentence of both paradigms contains ever (``Teresa had not ever
    sold a movie theater.`` / ``Teresa had probably ever sold a movie theater.``)."""
    s = blimp.sentences
    for paradigm in ("sentential_negation_npi_licensor_present",
                     "sentential_negation_npi_scope"):
        texts = s.loc[s["paradigm"] == paradigm, "text"]
        assert len(texts) == 2000 and texts.map(lambda t: "ever" in R.blimp_words(t)).all()


def _dn(singular: tuple[str, ...], plural_noun: Callable[[str], bool]) -> Callable[[str], bool]:
    def accepts(text):
        w = R.blimp_words(text)
        for det in w[:-1]:
            if det in singular and plural_noun(w[-1]):
                return False
            if det in ("these", "those") and (w[-1].endswith("is") or not w[-1].endswith("s")):
                return False
        return True
    return accepts


def _later(words, first, then) -> bool:
    return any(first(a) and any(then(b) for b in words[i + 1:]) for i, a in enumerate(words))


def test_blimp_other_readings(blimp):
    """The other readings of the rows the docstrings mention, scored: each is further
    from the paper's number than the reading implemented (printed value in comments)."""
    score = _scorer(blimp)
    bw = R.blimp_words

    def words_in(ws):
        return lambda t: bool(set(ws) & {x.lower() for x in bw(t)})

    def prefix_in(ws):
        return lambda t: any(x.lower().startswith(s) for x in bw(t) for s in ws)

    irregular = lambda n: n in R.IRREGULAR_PLURALS or n.endswith("ses")  # noqa: E731
    regular = lambda n: re.search(r"[^i]s$", n) is not None  # noqa: E731
    readings = [
        # punctuation kept: "themselves." ends in "."                      (paper 80.1)
        ("anaphor_number_agreement", 50.0,
         lambda t: sum(x.endswith("s") for x in t.split()) % 2 == 0),
        ("causative", 60.15, lambda t: not words_in(R.UNACCUSATIVE)(t)),     # 85.6
        ("transitive", 53.55, lambda t: not words_in(R.UNACCUSATIVE)(t)),    # 57.85
        ("existential_there_object_raising", 68.6, lambda t: not prefix_in(R.VERB_SET)(t)),
        ("expletive_it_object_raising", 69.6, lambda t: not prefix_in(R.VERB_SET)(t)),
        ("existential_there_subject_raising", 77.6,                          # 77
         prefix_in((*R.SUBJ_WORDS, "appear", "sure", "threaten", "look"))),
        ("tough_vs_raising_2", 92.6, words_in((*R.SUBJ_WORDS, "apt"))),     # 92.5
        ("animate_subject_passive", 61.0, words_in(R.PEOPLE_GROUPS)),       # 65.25
        # "that" alone for the singular demonstratives
        ("determiner_noun_agreement_irregular_1", 62.4, _dn(("that",), irregular)),
        ("determiner_noun_agreement_irregular_2", 65.85, _dn(("that",), irregular)),
        ("determiner_noun_agreement_with_adj_irregular_1", 64.8, _dn(("that",), irregular)),
        ("determiner_noun_agreement_with_adj_irregular_2", 63.75, _dn(("that",), irregular)),
        ("determiner_noun_agreement_1", 84.4, _dn(("that",), regular)),
        ("determiner_noun_agreement_2", 84.6, _dn(("that",), regular)),
        ("determiner_noun_agreement_with_adjective_1", 84.65, _dn(("that",), regular)),
        ("determiner_noun_agreement_with_adj_2", 82.9, _dn(("that",), regular)),
        # whole wh-words instead of the letters wh (99.95, 99.9, 99.95, 99.7)
        *[(p, 100.0, lambda t: not words_in(("who", "what", "where", "when", "why",
                                             "which", "whose", "whom", "how"))(t))
          for p in ("wh_questions_object_gap", "wh_questions_subject_gap",
                    "wh_vs_that_no_gap", "wh_vs_that_no_gap_long_distance")],
        ("wh_island", 0.0, lambda t: t.lower().count("wh") >= 2),            # 100
        # strong quantifiers inside words (small, almost)                   (97.3, 96.85)
        ("existential_there_quantifiers_1", 95.0,
         lambda t: not any(q in t for q in R.STRONG_QUANTIFIERS)),
        ("existential_there_quantifiers_2", 93.85,
         lambda t: not any(q in t for q in R.STRONG_QUANTIFIERS)),
        # "while also containing {one-ten}" as a condition: no sentence has a number word
        ("existential_there_quantifiers_1", 50.0,
         lambda t: not words_in(R.STRONG_QUANTIFIERS)(t) and words_in(R.NUMBERS)(t)),
        ("existential_there_quantifiers_2", 50.0,
         lambda t: not (words_in(R.STRONG_QUANTIFIERS)(t) and words_in(R.NUMBERS)(t))),
        ("irregular_plural_subject_verb_agreement_1", 51.15,                 # 53.2
         lambda t: not _later(bw(t), regular, lambda b: b.endswith("s"))),
        ("irregular_plural_subject_verb_agreement_2", 61.3,                  # 59.3
         lambda t: not any(a in R.IRREGULAR_PLURALS and b.endswith("s")
                           for a, b in zip(bw(t), bw(t)[1:], strict=False))),
        ("principle_A_c_command", 69.05,                                      # 71.35
         lambda t: (bw(t)[-1].endswith("s") and (bw(t)[0].lower() in R.PL_DET[1:]
                                                  or bw(t)[1] == "lot"))
         or bw(t)[-2].endswith("s")),
    ]
    got = [(p, score(p, f)) for p, _, f in readings]
    assert got == [(p, v) for p, v, _ in readings]
