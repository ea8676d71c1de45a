"""The vectorised checks of data.tables (issue 30, item 12): the byte scan for control
characters, the duplicate check on integer codes and the Arrow membership test give
the answers of the pandas checks they replace."""

import numpy as np
import pandas as pd
import pytest

from acceptability.data import DataError
from acceptability.data.tables import CONTROL, _control_rows, id_column, member


@pytest.mark.parametrize("text", ["s\x85t", "s\x00", "a\tb", "\x7f", "x\x9f"])
def test_a_control_character_anywhere_is_found(text):
    ids = pd.Series(["plain", "caf\u00e9 \u00a3", None, text], dtype="str")
    assert _control_rows(ids).tolist() == [False, False, False, True]
    with pytest.raises(DataError, match="control character"):
        id_column(pd.DataFrame({"sentence_id": ids.fillna("n")}), "sentence_id", "mine")


def test_latin1_and_other_scripts_are_no_control_characters():
    ids = pd.Series(["\u00a0nbsp", "\u00bf", "\u0100", "\u4e2d", "\u00c2"], dtype="str")
    expected = ids.str.contains(CONTROL.pattern, regex=True).to_numpy(bool)
    assert _control_rows(ids).tolist() == expected.tolist() == [False] * 5


def test_membership_as_pandas():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": rng.choice(["a", "b", None], 500),
                          "sentence_id": rng.choice([f"s{i}" for i in range(300)], 500)},
                         dtype="str")
    ids = ["s1", "s7", None]
    assert (member(frame["sentence_id"], ids) == frame["sentence_id"].isin(ids)).all()
    assert member(pd.Series([None, "s1"], dtype="str"), ids).tolist() == [True, True]
