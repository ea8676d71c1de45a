"""Hand-written linear rules that solve Zorro and BLiMP paradigms from surface patterns
(Vázquez Martínez et al. 2023, sec. 3.1.2; appendix Tables 4, 6 and 7): evidence that
the benchmarks can be passed without reference to linguistic structure.

Each paradigm has one rule. A rule either accepts or rejects a sentence on its own (most
rows) or, for the rows the tables mark ``*``, compares the two sentences of a pair ("is
the shorter of the two"). A pair scores 1 when the rule accepts only its grammatical
sentence, 0 when it accepts only the ungrammatical one and 0.5 when it cannot decide
(it accepts both or neither), as the paper says. `rule_outcomes` scores a dataset
in the format of `stats.pair_outcomes` (system ``"rules"``), so that
``accuracy(rule_outcomes(dataset))`` gives the per-paradigm accuracy of Tables 3 and 5.

Words. Zorro's sentences are lower-case words with the final ``.`` or ``?`` as a token of
its own, and its rules count that token, as the authors' code does (``line.split(" ")``):
the "3rd last word" of ``who should William have without watching the baby ?`` is
``the``. BLiMP's punctuation is attached (``himself.``, ``Richard?``): its rules see words
with sentence punctuation stripped (``himself``), since a rule on ``himself.`` would never
find a word ending in ``s`` (anaphor_number_agreement: 50% instead of the paper's
80.1%). A BLiMP sentence's first word is capitalised, so rules on the 1st (or 2nd) word
compare it in lower case; elsewhere words are compared as written.

Readings. Zorro's rules are those the authors' code runs (``Rules/zorro_rules.py`` in
github.com/hjvm/benchmarking_acquisition); where Table 4's row says something else, the
docstring says what, and what the printed wording scores. That code keeps a running
``decision`` per pair (0.5; a match in the ungrammatical sentence sets 0, and each match
in the grammatical one then adds 0.5, so two matches give 1 where this module gives
0.5) and scores an ellipsis pair with equal ``and`` positions 0; no Zorro sentence
matches twice and no such pair exists, so the both-or-neither rule gives the same
numbers. No BLiMP code was published: Tables 6-7 are implemented as printed; where a row
allows several readings (a set of stems matched inside words or as whole words,
"followed by" next or anywhere later, which demonstrative "that" stands for, the
undefined ``pl_det``, which sentence of the pair the row describes), the reading that
comes closest to the paper's number is used and the docstring gives the others' scores.
Where no reading of a row gives the printed number, the row is implemented as printed
and the tests state the cause found in the data.

Seed 004 gives no rule for BLiMP's complex_NP_island and
wh_questions_subject_gap_long_distance (Tables 5 and 6 list 65 paradigms):
`rule_outcomes` leaves their pairs out and names them in ``attrs["no_rule"]``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.tables import OUTCOME_COLUMNS, pair_groups

SYSTEM = "rules"
BENCHMARKS = ("zorro", "blimp")
# BLiMP paradigms that seed 004's Tables 5 and 6 leave out: no rule to run.
BLIMP_NO_RULE = ("complex_NP_island", "wh_questions_subject_gap_long_distance")


@dataclass(frozen=True)
class Rule:
    """A paradigm's rule (seed 004, sec. 3.1.2): accepts or rejects sentences, and scores a pair.

    Calling the rule on a pair's grammatical and ungrammatical sentences gives the
    pair's outcome: 1 (it accepts only the grammatical one), 0 (only the ungrammatical
    one) or 0.5 (both or neither: undecided).

    Attributes
    ----------
    name : str
        The rule function's name.
    accepts : callable
        ``accepts(text, other)``: whether the rule accepts sentence ``text`` of a pair
        whose other sentence is ``other``.
    compares : bool
        Whether it looks at ``other`` (the rows the tables mark ``*``).
    doc : str
        The rule's description, citing its table row.

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import rule_for
    >>> rule = rule_for("binding-principle_a", "zorro")
    >>> rule.name, rule.compares
    ('zorro_has_ing_word', False)
    >>> rule("Ben thinks about himself calling this fuel .",
    ...      "Ben thinks about himself called this fuel .")
    1.0
    """

    name: str
    accepts: Callable[[str, str], bool] = field(repr=False)
    compares: bool
    doc: str = field(repr=False)

    def __call__(self, good: str, bad: str) -> float:
        g, b = bool(self.accepts(good, bad)), bool(self.accepts(bad, good))
        return 0.5 if g == b else float(g)


def _sentence_rule(f: Callable[[str], bool]) -> Rule:
    return Rule(f.__name__, lambda text, other: f(text), False, f.__doc__ or "")


def _pair_rule(f: Callable[[str, str], bool]) -> Rule:
    return Rule(f.__name__, f, True, f.__doc__ or "")


# ---------------------------------------------------------------- words


def zorro_words(text: str) -> list[str]:
    """A Zorro sentence's tokens: split on whitespace, the final ``.``/``?`` included.

    Parameters
    ----------
    text : str
        A Zorro sentence.

    Returns
    -------
    list of str
        Its tokens, as the authors' code counts them.

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import zorro_words
    >>> zorro_words("where are the ways ?")
    ['where', 'are', 'the', 'ways', '?']
    """
    return text.split()


_PUNCT = ".?!,;:\"“”"


def blimp_words(text: str) -> list[str]:
    """A BLiMP sentence's words: split on whitespace, sentence punctuation stripped.

    Apostrophes are kept (``patients'``, ``can't``).

    Parameters
    ----------
    text : str
        A BLiMP sentence.

    Returns
    -------
    list of str
        The words in sentence order.

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import blimp_words
    >>> blimp_words("Who can't Richard help himself?")
    ['Who', "can't", 'Richard', 'help', 'himself']
    """
    return [w for w in (t.strip(_PUNCT) for t in text.split()) if w]


def _first(text: str, i: int = 0) -> str:
    """The ``i``-th BLiMP word in lower case ('' where the sentence is shorter)."""
    w = blimp_words(text)
    return w[i].lower() if len(w) > i else ""


def _has_part(text: str, parts) -> bool:
    """One of ``parts`` (stems such as ``obligat``) occurs inside the sentence, as written."""
    return any(p in text for p in parts)


def _has_word(text: str, words) -> bool:
    """One of ``words`` is a word of the sentence, as written."""
    return any(w in words for w in blimp_words(text))


def _ends_s(word: str) -> bool:
    return word.endswith("s")


# ------------------------------------------------------- Zorro (Table 4)

_SG_VERBS = ("is", "was", "does")
_PL_VERBS = ("are", "were", "do")


def _verb_agrees(words: list[str], verb_at: int, noun_at: int) -> bool:
    """The verb at ``verb_at`` is one of is/was/does/are/were/do and the noun at
    ``noun_at`` ends in s iff the verb is plural (the authors' ``agr_subjverb``)."""
    try:
        verb, noun = words[verb_at], words[noun_at]
    except IndexError:
        return False
    return verb in _SG_VERBS + _PL_VERBS and _ends_s(noun) == (verb in _PL_VERBS)


def zorro_noun_agrees_with_3rd_last(text: str) -> bool:
    """Table 4, agreement_subject_verb across_rel_clause and across_prep_phrase: "2nd word
    ends in s iff 3rd last is in {are, were, do}". As the authors' code runs it, the 3rd
    last token (``.`` counts) must be one of is/was/does/are/were/do: ``the books that i
    like are poor .``"""
    return _verb_agrees(zorro_words(text), -3, 1)


def zorro_word_2_right_of_be_agrees(text: str) -> bool:
    """Table 4, agreement_subject_verb in_simple_question: "Word 2 right of {are, were}
    ends in s. Word 2 right of {is, are} does not" (the second set is {is, was} in the
    authors' code; the printed {is, are} is a slip). The first is/was/are/were of the
    sentence decides: ``where are the ways ?``."""
    words = zorro_words(text)
    for verb, plural in (("is", False), ("was", False), ("are", True), ("were", True)):
        if verb in words:
            i = words.index(verb)
            if len(words) > i + 2 and _ends_s(words[i + 2]) == plural:
                return True
    return False


def zorro_4th_word_agrees_with_2nd(text: str) -> bool:
    """Table 4, agreement_subject_verb in_question_with_aux: "4th word ends in s iff 2nd
    is in {are, were, do}": ``where do the horses go ?``."""
    return _verb_agrees(zorro_words(text), 1, 3)


def _determiner_agrees(text: str, offset: int) -> bool:
    words = zorro_words(text)
    for det, plural in (("this", False), ("that", False), ("these", True), ("those", True)):
        if det in words:
            i = words.index(det)
            if len(words) > i + offset and _ends_s(words[i + offset]) == plural:
                return True
    return False


def zorro_determiner_next_word(text: str) -> bool:
    """Table 4, agreement_determiner_noun between_neighbors: "If {these, those} in
    sentence, next word ends in s. If {this, that} in sentence, next word does not"
    (the first occurrence of each): ``this color must be white .``."""
    return _determiner_agrees(text, 1)


def zorro_determiner_word_2_right(text: str) -> bool:
    """Table 4, agreement_determiner_noun across_1_adjective: "If {these, those} in
    sentence, word 2 right ends in s. If {this, that} in sentence, word 2 right does
    not": ``look at this purple thing .``."""
    return _determiner_agrees(text, 2)


def zorro_3rd_word_is_the(text: str) -> bool:
    """Table 4, filler-gap wh_question_object: "2nd word is the". The authors' code
    tests the 3rd token (``sent[2]``): ``Laura married the dinner that ...``; the 2nd
    word (``married``) would leave every pair undecided (50% instead of 100%)."""
    words = zorro_words(text)
    return len(words) > 2 and words[2] == "the"


def zorro_who_not_before_the(text: str) -> bool:
    """Table 4, filler-gap wh_question_subject: "who does not immediately precede the":
    the sentence has a ``the`` and no ``who the`` (``Laura ended the finger that ...``
    against ``Laura ended who the finger ...``)."""
    words = zorro_words(text)
    return "the" in words and not any(a == "who" and b == "the"
                                      for a, b in zip(words, words[1:], strict=False))


def zorro_4th_word_is_and(text: str) -> bool:
    """Table 4, island-effects coord_struct_constr: "4th word is and":
    ``who must Philip and the dinosaur turn ?``."""
    words = zorro_words(text)
    return len(words) > 3 and words[3] == "and"


def zorro_3rd_last_is_the(text: str) -> bool:
    """Table 4, island-effects adjunct_island: "3rd last word is the", counting the final
    ``?``: ``who should William have without watching the baby ?``."""
    words = zorro_words(text)
    return len(words) >= 3 and words[-3] == "the"


def zorro_has_weak_quantifier(text: str) -> bool:
    """Table 4, quantifiers existential_there: "Contains one of {many, some, no, few, a,
    an}": ``there are many books about soft birds .``."""
    return any(w in ("many", "some", "no", "few", "a", "an") for w in zorro_words(text))


def zorro_has_more_or_fewer(text: str) -> bool:
    """Table 4, quantifiers superlative: "Contains one of {more, fewer}":
    ``no wolf could carry more than six waters .``."""
    return any(w in ("more", "fewer") for w in zorro_words(text))


def zorro_1st_word_is_only(text: str) -> bool:
    """Table 4, npi_licensing only_npi_licensor: "1st word is only":
    ``only Mark ever finds some suit .``."""
    words = zorro_words(text)
    return bool(words) and words[0] == "only"


def zorro_1st_word_is_aux(text: str) -> bool:
    """Table 4, npi_licensing matrix_question: "Contains one of {does, will, should,
    could, did, wouldo}". The authors' code tests the 1st word against {does, will,
    should, could, did, would}: ``does her boat ever play ...``; "contains" leaves every
    pair undecided (both sentences have the auxiliary: 50% instead of 100%)."""
    words = zorro_words(text)
    return bool(words) and words[0] in ("does", "will", "should", "could", "did", "would")


def zorro_1st_word_not_the(text: str) -> bool:
    """Table 4, argument_structure swapped_arguments and dropped_argument, case
    subjective_pronoun: "1st word is the". The authors' code accepts the sentence whose
    1st word is *not* ``the`` (``he made the slave her label .`` against ``the slave
    made her label he .``); the printed polarity scores 0% on swapped_arguments and
    subjective_pronoun, where the paper prints 100%."""
    words = zorro_words(text)
    return bool(words) and words[0] != "the"


def zorro_2nd_last_not_e(text: str) -> bool:
    """Table 4, argument_structure transitive: "2nd last word does not end in e", the
    final ``.``/``?`` counting as the last: ``Philip thinks .``."""
    words = zorro_words(text)
    return len(words) >= 2 and not words[-2].endswith("e")


def zorro_participle_after_had(text: str) -> bool:
    """Table 4, irregular verb: "word following had ends in n or no word ends in n". The
    authors' code: with ``had``, the word after the first ``had`` ends in n (``Michael
    had chosen ...``); without, the 2nd word does not (``Michael chose ...``). Testing
    every word instead of the 2nd scores 85.95% (the paper: 88.40%)."""
    words = zorro_words(text)
    if "had" in words:
        i = words.index("had")
        return len(words) > i + 1 and words[i + 1].endswith("n")
    return len(words) > 1 and not words[1].endswith("n")


def zorro_has_himself(text: str) -> bool:
    """Table 4, anaphor_agreement pronoun_gender: "Sentence contains himself"."""
    return "himself" in zorro_words(text)


def zorro_and_farther_right(text: str, other: str) -> bool:
    """Table 4, ellipsis n_bar: "*Sentence where and appears farther right": the first
    ``and`` stands at a later position than the other sentence's (``Mark fixed one worn
    canal and ...`` against ``Mark fixed one canal and ...``). The authors' code counts a
    pair with equal positions as wrong (0), here undecided (0.5); no Zorro pair has them."""
    a, b = zorro_words(text), zorro_words(other)
    return "and" in a and "and" in b and a.index("and") > b.index("and")


def zorro_has_ing_word(text: str) -> bool:
    """Table 4, binding principle_a: "4th last word ends with ing". The authors' code
    accepts a sentence with any word ending in ing (``Ben thinks about himself calling
    this fuel .``); the 4th last word alone scores 85.70% (the paper: 100%)."""
    return any(w.endswith("ing") for w in zorro_words(text))


def zorro_4th_word_not_s(text: str) -> bool:
    """Table 4, local_attractor in_question_with_aux: "4th word does not end with ’s"
    (the letter s, as the authors' code tests): ``is the whale getting the person ?``."""
    words = zorro_words(text)
    return len(words) > 3 and not words[3].endswith("s")


# ------------------------------------------------- BLiMP (Tables 6 and 7)

# Table 7's word sets. "one-ten" is the number words one to ten.
NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
VERB_SET = ("ask", "press", "entic", "prod", "obligat", "convinc", "badger", "compel",
            "sway", "order")
SUBJ_WORDS = ("certain", "soon", "likely", "unlikely", "bound", "about")
NUM_QUANT = (*NUMBERS, "many", "few", "several", "more", "some", "lot", "fewer")
MOD_AUX = ("had", "should", "is", "was", "can", "has", "will", "would", "could", "do",
           "does", "might", "were", "did")
PEOPLE_GROUPS = ("men", "woman", "children", "teacher", "lad", "offspring", "student",
                 "customer", "girl", "boy")
# Table 6 uses pl_det without defining it: plural determiners, with "the" (without it the
# rule scores 69.05% against the paper's 71.35%; with it 71.75%).
PL_DET = ("the", "these", "those", "some", "all", "most", "many", "few", "several")
UNACCUSATIVE = ("appear", "vanish", "exist", "sigh", "rust", "cheer", "clash", "fall",
                "fell", "waste")
FINAL_PREPOSITIONS = ("to", "with", "about", "from", "at", "through", "by", "like")
UNERGATIVE = ("communicat", "suffer", "compet", "shout", "laugh", "scream", "complain",
              "compromis", "grin", "chat")
STRONG_QUANTIFIERS = ("each", "most", "all", "every")
IRREGULAR_PLURALS = ("people", "women", "men", "children")


def blimp_no_itself(text: str) -> bool:
    """Table 6, anaphor_gender_agreement: "Does not contain itself"."""
    return not _has_word(text, ("itself",))


def _s_words(text: str) -> int:
    return sum(_ends_s(w) for w in blimp_words(text))


def blimp_even_s_words(text: str) -> bool:
    """Table 6, anaphor_number_agreement: "Number of words that end in s is even"
    (``These patients do respect themselves.``: patients, themselves)."""
    return _s_words(text) % 2 == 0


def blimp_odd_s_words(text: str) -> bool:
    """Table 6, distractor_agreement_relative_clause and
    regular_plural_subject_verb_agreement_2: "The number of words that ends in s is odd"
    (``The glove tightens.``)."""
    return _s_words(text) % 2 == 1


def blimp_no_unaccusative(text: str) -> bool:
    """Table 6, causative and transitive: "Does not contain one of {appear, vanish,
    exist, sigh, rust, cheer, clash, fall, fell, waste}", matched inside words
    (``appeared``; whole words only: 60.15% and 53.55% instead of 85.6% and 57.85%)."""
    return not _has_part(text, UNACCUSATIVE)


def blimp_no_final_preposition(text: str) -> bool:
    """Table 6, drop_argument, inchoative and intransitive: "Last word is not one of {to,
    with, about, from, at, through, by, like}" (``Noah works with.``)."""
    w = blimp_words(text)
    return bool(w) and w[-1] not in FINAL_PREPOSITIONS


def blimp_no_unergative(text: str) -> bool:
    """Table 6, passive_1 and passive_2: "None of {communicat, suffer, compet, shout,
    laugh, scream, complain, compromis, grin, chat} in sentence", matched inside words
    (``communicated``)."""
    return not _has_part(text, UNERGATIVE)


def shorter(text: str, other: str) -> bool:
    """Table 6, principle_A_case_1, principle_A_domain_1, principle_A_domain_2,
    irregular_past_participle_verbs (printed irregular_past_part_verbs),
    animate_subject_trans, regular_plural_subject_verb_agreement_1: "*Is the shorter of
    the two sentences", in characters (``they aren't`` against ``themselves aren't``: the
    two have as many words); equal lengths undecided.

    Parameters
    ----------
    text : str
        One sentence of a pair.
    other : str
        The other sentence.

    Returns
    -------
    bool
        Whether ``text`` is the shorter.

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import shorter
    >>> shorter("They aren't helping.", "Themselves aren't helping.")
    True
    """
    return len(text) < len(other)


def longer(text: str, other: str) -> bool:
    """Table 6, principle_A_case_2, superlative_quantifiers_1,
    distractor_agreement_relational_noun: "*Is the longer of the two sentences", in
    characters; equal lengths undecided.

    Parameters
    ----------
    text, other : str
        The two sentences of a pair; the rule judges ``text``.

    Returns
    -------
    bool
        True when ``text`` has more characters than ``other``.

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import longer
    >>> longer("No man has seen more than two cats.", "No man has seen at most two cats.")
    True
    """
    return len(text) > len(other)


def blimp_c_command(text: str) -> bool:
    """Table 6, principle_A_c_command: "(Last word ends in s and (1st word is any of
    pl_det or the 2nd word is lot)) or 2nd to last word ends in s)" (``A lot of patients
    ... didn't investigate themselves.``, ``A guy ... notices himself.``); pl_det:
    `PL_DET`."""
    w = blimp_words(text)
    if len(w) < 2:
        return False
    plural_subject = _first(text) in PL_DET or w[1] == "lot"
    return (_ends_s(w[-1]) and plural_subject) or _ends_s(w[-2])


def blimp_no_that(text: str) -> bool:
    """Table 6, principle_A_domain_3: "Does not contain that"."""
    return not _has_word(text, ("that",))


def blimp_4th_word_not_ed_nt(text: str) -> bool:
    """Table 6, principle_A_reconstruction: "4th word does not end in ed nor ’t" (the
    apostrophe as BLiMP writes it, ``'``): ``It's himself that this cashier attacked.``
    against ``It's himself that attacked this cashier.``."""
    w = blimp_words(text)
    return len(w) > 3 and not w[3].endswith(("ed", "'t", "’t"))


def blimp_no_control_verb(text: str) -> bool:
    """Table 6, existential_there_object_raising and expletive_it_object_raising: "Does
    not contain one of verb_set" (Table 7: {ask, press, entic, prod, obligat, convinc,
    badger, compel, sway, order}), matched inside words (``obligated``; as word
    beginnings: 68.6% and 69.6% against the paper's 67.95% and 69.5%)."""
    return not _has_part(text, VERB_SET)


def blimp_has_raising_word(text: str) -> bool:
    """Table 6, existential_there_subject_raising: "Contains one of subj_words or {appear,
    sure, threaten, look}" (Table 7 subj_words: {certain, soon, likely, unlikely, bound,
    about}), matched inside words (as word beginnings: 77.6%; the paper: 77%)."""
    return _has_part(text, (*SUBJ_WORDS, "appear", "sure", "threaten", "look"))


def blimp_no_raising_adjective(text: str) -> bool:
    """Table 6, tough_vs_raising_1: "Does not contain one of subj_words, nor apt"."""
    return not _has_part(text, (*SUBJ_WORDS, "apt"))


def blimp_has_raising_adjective(text: str) -> bool:
    """Table 6, tough_vs_raising_2: "Contains one of subj_words, or apt", matched inside
    words (as whole words: 92.6%; the paper: 92.5%)."""
    return _has_part(text, (*SUBJ_WORDS, "apt"))


def _final_noun_agrees(text: str, singular_wrong: Callable[[str], bool]) -> bool:
    """The last word after a lower-case this/that (``singular_wrong`` says the noun is
    plural) or these/those (a noun ending in ``is`` or not in ``s`` is singular)."""
    w = blimp_words(text)
    if len(w) < 2:
        return True
    noun = w[-1]
    for det in w[:-1]:
        if det in ("this", "that") and singular_wrong(noun):
            return False
        if det in ("these", "those") and (noun.endswith("is") or not _ends_s(noun)):
            return False
    return True


def blimp_det_noun_irregular(text: str) -> bool:
    """Table 6, determiner_noun_agreement_irregular_1/_2 and _with_adj_irregular_1/_2:
    "Does not end in that followed by (one of {people, women, men, children} or a word
    ending in ses) nor in {those, these} followed by (a word ending in is or not with s
    at all)". Read as: the last word, after a lower-case demonstrative anywhere before
    it (the subject's capitalised ``Those`` does not count; an adjective may intervene);
    "that" stands for both singular demonstratives, this and that ("that" alone: 62.40,
    65.85, 64.80, 63.75% against the paper's 68.45, 73.7, 74.45, 71.8%)."""
    return _final_noun_agrees(
        text, lambda n: n in IRREGULAR_PLURALS or n.endswith("ses"))


def blimp_det_noun_regular(text: str) -> bool:
    """Table 6, determiner_noun_agreement_1/_2, _with_adjective_1 and _with_adj_2:
    "Does not end in that followed by a word ending in a letter other than i followed by
    s nor in {those, these} followed by (a word ending in is or not with s at all)",
    read as `blimp_det_noun_irregular` ("that" alone: 84.40, 84.60, 84.65, 82.90%
    against the paper's 95.55, 96.75, 95.95, 95.6%)."""
    return _final_noun_agrees(text, lambda n: re.search(r"[^i]s$", n) is not None)


def blimp_ends_in_quantifier(text: str) -> bool:
    """Table 6, ellipsis_n_bar_1: "Last word in num_quant" (Table 7: {one-ten, many,
    few, several, more, some, lot, fewer}): ``... and Becca wasn't going to many.``."""
    w = blimp_words(text)
    return bool(w) and w[-1] in NUM_QUANT


def blimp_last_word_repeated(text: str) -> bool:
    """Table 6, ellipsis_n_bar_2: "Last word has already occurred in sentence"
    (``... one person and Ann hasn't attacked more unsure person.``)."""
    w = blimp_words(text)
    return len(w) > 1 and w[-1] in w[:-1]


def blimp_no_wh(text: str) -> bool:
    """Table 6, wh_questions_object_gap, wh_questions_subject_gap, wh_vs_that_no_gap and
    wh_vs_that_no_gap_long_distance: "Does not contain wh", the letters wh anywhere, as
    written (whole wh-words instead: 100% on all four, against the paper's 99.95, 99.9, 99.95, 99.7%:
    ``while`` and ``white`` contain wh)."""
    return "wh" not in text


def blimp_has_wh(text: str) -> bool:
    """Table 6, wh_vs_that_with_gap and wh_vs_that_with_gap_long_distance:
    "Contains wh" (the letters anywhere, as `blimp_no_wh`)."""
    return "wh" in text


def blimp_participle_after_the(text: str) -> bool:
    """Table 6, irregular_past_participle_adjectives (printed irregular_past_part_adj):
    "If 1st word is the, then 2nd word ends in n,
    otherwise 2nd word must not end in n" (``The hidden offspring ...``)."""
    w = blimp_words(text)
    if len(w) < 2:
        return False
    return w[1].endswith("n") == (_first(text) == "the")


def blimp_adjunct_last_word(text: str) -> bool:
    """Table 6, adjunct_island: "Last word is not about and does not end in ing"
    (``Who should Derek hug Richard after shocking?``)."""
    w = blimp_words(text)
    return bool(w) and w[-1] != "about" and not w[-1].endswith("ing")


def blimp_2nd_word_not_aux(text: str) -> bool:
    """Table 6, coordinate_structure_constraint_complex_left_branch and
    left_branch_island_simple_question: "2nd word is not in mod_aux" (Table 7: {had,
    should, is, was, can, has, will, would, could, do, does, might, were, did}):
    ``Whose museums had Dana alarmed?`` against ``Whose had Dana alarmed museums?``."""
    return _first(text, 1) not in MOD_AUX


def blimp_2nd_last_not_and(text: str) -> bool:
    """Table 6, coordinate_structure_constraint_object_extraction: "2nd to last word is
    not and" (``Who were all men leaving and Eric?``)."""
    w = blimp_words(text)
    return len(w) < 2 or w[-2] != "and"


def blimp_not_wh_initial(text: str) -> bool:
    """Table 6, left_branch_island_echo_question: "Does not start with Wh"."""
    return not text.startswith("Wh")


def blimp_ends_ing_ed_with(text: str) -> bool:
    """Table 6, sentential_subject_island: "Ends in ing or ed or with"
    (``Who has the waitress's observing Christine bothered.``)."""
    w = blimp_words(text)
    return bool(w) and (w[-1].endswith(("ing", "ed")) or w[-1] == "with")


def blimp_wh_once(text: str) -> bool:
    """Table 6, wh_island: "wh, capitalized or not, occurs twice in sentence". The row
    names the ungrammatical sentence (``Who have those men revealed who helped?``), as
    Table 4's "1st word is the" rows do: the rule accepts a sentence in which wh does
    not occur twice (read literally, it scores 0% where the paper prints 100%)."""
    return text.lower().count("wh") < 2


def blimp_1st_word_aux(text: str) -> bool:
    """Table 6, matrix_question_npi_licensor_present: "1st word in mod_aux"
    (``Had Bruce ever played?``)."""
    return _first(text) in MOD_AUX


def blimp_no_ever(text: str) -> bool:
    """Table 6, npi_present_1, npi_present_2, sentential_negation_npi_licensor_present
    and sentential_negation_npi_scope: "Does not contain the word ever"."""
    return not _has_word(text, ("ever",))


def blimp_1st_word_only(text: str) -> bool:
    """Table 6, only_npi_licensor_present and only_npi_scope: "1st word is only"."""
    return _first(text) == "only"


def blimp_no_strong_quantifier(text: str) -> bool:
    """Table 6, existential_there_quantifiers_1 and _2: "Does not contain {each, most,
    all, every} while also containing {one-ten}". Whole words as written (``All
    convertibles weren't there existing.`` has no ``all``; matched inside words, as in
    ``small``: 95.0% and 93.85% against the paper's 97.3% and 96.85%). The clause after
    "while" is left out: no sentence of the two paradigms has a number word one-ten, so
    as a condition it would leave every pair undecided (50%), and the paper's numbers
    are those of the rule without it."""
    return not _has_word(text, STRONG_QUANTIFIERS)


def blimp_1st_word_not_no(text: str) -> bool:
    """Table 6, superlative_quantifiers_2: "1st word is not no"."""
    return _first(text) != "no"


def blimp_has_people_group(text: str) -> bool:
    """Table 6, animate_subject_passive: "Contains one of people_groups" (Table 7: {men,
    woman, children, teacher, lad, offspring, student, customer, girl, boy}), matched
    inside words (``teachers``; as whole words: 61.0%, the paper 65.25%)."""
    return _has_part(text, PEOPLE_GROUPS)


def blimp_no_plural_s_verb(text: str) -> bool:
    """Table 6, irregular_plural_subject_verb_agreement_1: "Contains no word ending in a
    letter other than i and followed by s that is followed by a word ending in s":
    no word ending in [^i]s immediately followed by a word ending in s (``The axes has
    ...``; ``analysis`` ends in is). "Followed by" anywhere later scores 51.15%, the
    next word 52.25% (the paper: 53.2%)."""
    w = blimp_words(text)
    return not any(re.search(r"[^i]s$", a) and _ends_s(b)
                   for a, b in zip(w, w[1:], strict=False))


def blimp_no_irregular_plural_s_verb(text: str) -> bool:
    """Table 6, irregular_plural_subject_verb_agreement_2: "None of {people, women, men,
    children} is followed by a word ending in s", anywhere later in the sentence (``The
    children isn't attacking Becky.``); the next word only: 61.3% (the paper: 59.3%)."""
    w = blimp_words(text)
    return not any(a in IRREGULAR_PLURALS and any(_ends_s(b) for b in w[i + 1:])
                   for i, a in enumerate(w))


# ------------------------------------------------------------- registries


_COMPARISONS = (shorter, longer, zorro_and_farther_right)  # the rows marked *


def _registry(table: dict[str, Callable]) -> dict[str, Rule]:
    return {paradigm: _pair_rule(f) if f in _COMPARISONS else _sentence_rule(f)
            for paradigm, f in table.items()}


ZORRO_RULES: dict[str, Rule] = _registry({
    "agreement_determiner_noun-across_1_adjective": zorro_determiner_word_2_right,
    "agreement_determiner_noun-between_neighbors": zorro_determiner_next_word,
    "agreement_subject_verb-across_prepositional_phrase": zorro_noun_agrees_with_3rd_last,
    "agreement_subject_verb-across_relative_clause": zorro_noun_agrees_with_3rd_last,
    "agreement_subject_verb-in_question_with_aux": zorro_4th_word_agrees_with_2nd,
    "agreement_subject_verb-in_simple_question": zorro_word_2_right_of_be_agrees,
    "anaphor_agreement-pronoun_gender": zorro_has_himself,
    "argument_structure-dropped_argument": zorro_1st_word_not_the,
    "argument_structure-swapped_arguments": zorro_1st_word_not_the,
    "argument_structure-transitive": zorro_2nd_last_not_e,
    "binding-principle_a": zorro_has_ing_word,
    "case-subjective_pronoun": zorro_1st_word_not_the,
    "ellipsis-n_bar": zorro_and_farther_right,
    "filler-gap-wh_question_object": zorro_3rd_word_is_the,
    "filler-gap-wh_question_subject": zorro_who_not_before_the,
    "irregular-verb": zorro_participle_after_had,
    "island-effects-adjunct_island": zorro_3rd_last_is_the,
    "island-effects-coordinate_structure_constraint": zorro_4th_word_is_and,
    "local_attractor-in_question_with_aux": zorro_4th_word_not_s,
    "npi_licensing-matrix_question": zorro_1st_word_is_aux,
    "npi_licensing-only_npi_licensor": zorro_1st_word_is_only,
    "quantifiers-existential_there": zorro_has_weak_quantifier,
    "quantifiers-superlative": zorro_has_more_or_fewer,
})

BLIMP_RULES: dict[str, Rule] = _registry({
    "anaphor_gender_agreement": blimp_no_itself,
    "anaphor_number_agreement": blimp_even_s_words,
    "causative": blimp_no_unaccusative,
    "transitive": blimp_no_unaccusative,
    "drop_argument": blimp_no_final_preposition,
    "inchoative": blimp_no_final_preposition,
    "intransitive": blimp_no_final_preposition,
    "passive_1": blimp_no_unergative,
    "passive_2": blimp_no_unergative,
    "principle_A_case_1": shorter,
    "principle_A_case_2": longer,
    "principle_A_c_command": blimp_c_command,
    "principle_A_domain_1": shorter,
    "principle_A_domain_2": shorter,
    "principle_A_domain_3": blimp_no_that,
    "principle_A_reconstruction": blimp_4th_word_not_ed_nt,
    "existential_there_object_raising": blimp_no_control_verb,
    "existential_there_subject_raising": blimp_has_raising_word,
    "expletive_it_object_raising": blimp_no_control_verb,
    "tough_vs_raising_1": blimp_no_raising_adjective,
    "tough_vs_raising_2": blimp_has_raising_adjective,
    "determiner_noun_agreement_irregular_1": blimp_det_noun_irregular,
    "determiner_noun_agreement_irregular_2": blimp_det_noun_irregular,
    "determiner_noun_agreement_with_adj_irregular_1": blimp_det_noun_irregular,
    "determiner_noun_agreement_with_adj_irregular_2": blimp_det_noun_irregular,
    "determiner_noun_agreement_with_adjective_1": blimp_det_noun_regular,
    "determiner_noun_agreement_with_adj_2": blimp_det_noun_regular,
    "determiner_noun_agreement_1": blimp_det_noun_regular,
    "determiner_noun_agreement_2": blimp_det_noun_regular,
    "ellipsis_n_bar_1": blimp_ends_in_quantifier,
    "ellipsis_n_bar_2": blimp_last_word_repeated,
    "wh_questions_object_gap": blimp_no_wh,
    "wh_questions_subject_gap": blimp_no_wh,
    "wh_vs_that_no_gap": blimp_no_wh,
    "wh_vs_that_no_gap_long_distance": blimp_no_wh,
    "wh_vs_that_with_gap": blimp_has_wh,
    "wh_vs_that_with_gap_long_distance": blimp_has_wh,
    "irregular_past_participle_adjectives": blimp_participle_after_the,
    "irregular_past_participle_verbs": shorter,
    "adjunct_island": blimp_adjunct_last_word,
    "coordinate_structure_constraint_complex_left_branch": blimp_2nd_word_not_aux,
    "coordinate_structure_constraint_object_extraction": blimp_2nd_last_not_and,
    "left_branch_island_echo_question": blimp_not_wh_initial,
    "left_branch_island_simple_question": blimp_2nd_word_not_aux,
    "sentential_subject_island": blimp_ends_ing_ed_with,
    "wh_island": blimp_wh_once,
    "matrix_question_npi_licensor_present": blimp_1st_word_aux,
    "npi_present_1": blimp_no_ever,
    "npi_present_2": blimp_no_ever,
    "only_npi_licensor_present": blimp_1st_word_only,
    "only_npi_scope": blimp_1st_word_only,
    "sentential_negation_npi_licensor_present": blimp_no_ever,
    "sentential_negation_npi_scope": blimp_no_ever,
    "existential_there_quantifiers_1": blimp_no_strong_quantifier,
    "existential_there_quantifiers_2": blimp_no_strong_quantifier,
    "superlative_quantifiers_1": longer,
    "superlative_quantifiers_2": blimp_1st_word_not_no,
    "animate_subject_passive": blimp_has_people_group,
    "animate_subject_trans": shorter,
    "distractor_agreement_relational_noun": longer,
    "distractor_agreement_relative_clause": blimp_odd_s_words,
    "irregular_plural_subject_verb_agreement_1": blimp_no_plural_s_verb,
    "irregular_plural_subject_verb_agreement_2": blimp_no_irregular_plural_s_verb,
    "regular_plural_subject_verb_agreement_1": shorter,
    "regular_plural_subject_verb_agreement_2": blimp_odd_s_words,
})

_REGISTRIES = {"zorro": ZORRO_RULES, "blimp": BLIMP_RULES}
_NO_RULE = {"zorro": (), "blimp": BLIMP_NO_RULE}


def _benchmark(dataset, benchmark: str | None) -> str:
    name = benchmark if benchmark is not None else getattr(dataset, "name", None)
    if name not in BENCHMARKS:
        how = "given" if benchmark is not None else "the dataset's name"
        raise DataError(f"no rules for benchmark {name!r} ({how})",
                        fix=f"pass benchmark= one of {list(BENCHMARKS)}")
    return name


def rule_for(paradigm: str, benchmark: str) -> Rule:
    """The rule of a paradigm.

    Parameters
    ----------
    paradigm : str
        A Zorro file stem or a BLiMP UID.
    benchmark : {"zorro", "blimp"}
        The benchmark.

    Returns
    -------
    Rule
        The paradigm's rule.

    Raises
    ------
    DataError
        For an unknown benchmark, or a paradigm without a rule (naming the closest names).

    Examples
    --------
    >>> from acceptability.scoring.baselines.rules import rule_for
    >>> rule_for("wh_island", "blimp").name
    'blimp_wh_once'
    """
    rules = _REGISTRIES[_benchmark(None, benchmark)]
    if paradigm not in rules:
        _unknown([paradigm], benchmark)
    return rules[paradigm]


def _unknown(names: list[str], benchmark: str) -> None:
    rules = _REGISTRIES[benchmark]
    parts = []
    for name in names:
        if name in _NO_RULE[benchmark]:
            parts.append(f"{name!r} (seed 004 gives it no rule)")
            continue
        close = difflib.get_close_matches(str(name), list(rules), n=3, cutoff=0.5)
        parts.append(f"{name!r}" + (f" (did you mean {' or '.join(map(repr, close))}?)"
                                    if close else ""))
    raise DataError(f"no {benchmark} rule for paradigm(s) {', '.join(parts)}",
                    source=f"stats.rules, {benchmark}",
                    fix=f"use the paradigm names of {benchmark.upper()}_RULES "
                        f"({len(rules)} names)")


def rule_outcomes(dataset, benchmark: str | None = None) -> pd.DataFrame:
    """The rules' outcome on each pair of a Zorro or BLiMP dataset (seed 004, Tables 3 and 5).

    In the format of `stats.pair_outcomes`, so that ``accuracy(rule_outcomes(dataset))``
    gives the per-paradigm accuracy of Tables 3 and 5. BLiMP's two paradigms seed 004
    gives no rule (`BLIMP_NO_RULE`) are left out, counted in ``attrs["excluded"]`` and
    named in ``attrs["no_rule"]``.

    Parameters
    ----------
    dataset : Dataset
        A Zorro or BLiMP dataset (``paradigm`` on its pairs).
    benchmark : {"zorro", "blimp"}, optional
        Default: the dataset's name.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``system`` = ``"rules"``, ``n`` = 1, ``correct`` = 1 (the rule
        accepts only the grammatical sentence), 0 (only the ungrammatical one) or 0.5
        (both or neither: undecided, ``tie`` True).

    Raises
    ------
    DataError
        For an unknown benchmark or a paradigm without a rule (naming the closest ones).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import from_frames
    >>> from acceptability.scoring.baselines.rules import rule_outcomes
    >>> sentences = pd.DataFrame({"sentence_id": ["g", "b"],
    ...                           "text": ["where do the horses go ?", "where does the horses go ?"]})
    >>> pairs = pd.DataFrame({"pair_id": ["p"], "good_id": ["g"], "bad_id": ["b"],
    ...                       "paradigm": ["agreement_subject_verb-in_question_with_aux"]})
    >>> ds = from_frames(sentences, pairs, name="zorro")
    >>> rule_outcomes(ds)[["system", "correct", "tie"]].to_dict("records")
    [{'system': 'rules', 'correct': 1.0, 'tie': False}]
    """
    bench = _benchmark(dataset, benchmark)
    rules = _REGISTRIES[bench]
    groups = pair_groups(dataset.pairs)
    present = list(dict.fromkeys(groups["paradigm"]))
    unknown = [p for p in present if p not in rules and p not in _NO_RULE[bench]]
    if unknown:
        _unknown(unknown, bench)
    no_rule = [p for p in present if p in _NO_RULE[bench]]
    text = dataset.sentences.set_index("sentence_id")["text"]
    good = dataset.pairs["good_id"].map(text).to_numpy(dtype=object)
    bad = dataset.pairs["bad_id"].map(text).to_numpy(dtype=object)
    paradigm = groups["paradigm"].to_numpy(dtype=object)
    keep = ~np.isin(paradigm, no_rule)
    correct = np.full(len(groups), np.nan)
    for i in np.flatnonzero(keep):
        correct[i] = rules[paradigm[i]](good[i], bad[i])
    out = groups[keep].assign(system=SYSTEM, n=1, correct=correct[keep],
                              tie=correct[keep] == 0.5)
    out = out[OUTCOME_COLUMNS].reset_index(drop=True)
    out.attrs.update(excluded={SYSTEM: int((~keep).sum())}, no_rule=no_rule,
                     benchmark=bench)
    return out
