"""The multilingual minimal-pair loaders (issue 46 items 1, 3, 4): TurBLiMP, RuBLiMP,
CLAMS, SLING and MultiBLiMP. Counts are checked against the sets' own documentation (the
shared data README and the sets' READMEs) and recomputed from the raw files with code
written here (csv, json, hashlib); one real pair per set is read back from its file."""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from acceptability import data
from acceptability.data.io.sources import registry
from acceptability.data.loaders.multilingual.pairs import EMPTY
from tests.conftest import need_data

SETS = ("turblimp", "rublimp", "clams", "sling")
SHAPE = {"pair_id", "good_id", "bad_id", "language", "phenomenon", "paradigm",
         "identical_text"}


@pytest.fixture(scope="module")
def turblimp():
    need_data("turblimp")
    return data.load_turblimp(experimental=True)


@pytest.fixture(scope="module")
def rublimp():
    need_data("rublimp")
    return data.load_rublimp()


@pytest.fixture(scope="module")
def sling():
    need_data("sling")
    return data.load_sling()


@pytest.fixture(scope="module")
def clams():
    need_data("clams")
    return data.load_clams()


def _csv_rows(f: Path, sep: str) -> list[dict[str, str]]:
    with open(f, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter=sep))


@pytest.mark.parametrize("name", SETS)
def test_registry_checksums_equal_the_shared_files(name):
    """Every registered file's sha256 is the shared copy's, every data file there is
    registered, and each URL is the raw file at the commit the shared README names."""
    folder = need_data(name)
    entries = registry(name)
    for rel, (checksum, url) in entries.items():
        digest = hashlib.sha256((folder / rel).read_bytes()).hexdigest()
        assert checksum == f"sha256:{digest}", rel
        assert url.startswith("https://raw.githubusercontent.com/") and url.endswith("/" + rel)
    suffix = {"turblimp": ".csv", "rublimp": ".csv", "clams": ".txt", "sling": ".jsonl"}[name]
    top = {"turblimp": "data", "rublimp": "datasets", "clams": ".", "sling": "SLING_Data"}[name]
    on_disk = {str(p.relative_to(folder)) for p in (folder / top).rglob(f"*{suffix}")}
    assert on_disk == {rel for rel in entries if rel.endswith(suffix)}
    commits = {"turblimp": "297de13fb7a0ce524fe32e8b175c6b5255d66960",
               "rublimp": "9f0d8dfa993b2c0f0acf12660258540376779543",
               "clams": "36b5c9a56ecc51d3eedb6c1a85b805085d631c71",
               "sling": "5a7f791fbb9db6d2fee66e128fe89c80ac1f993b"}
    readme = (folder.parent / "README.md").read_text()
    assert commits[name] in readme
    assert all(f"/{commits[name]}/" in url for _, url in entries.values())


def test_turblimp_counts_match_its_readme(turblimp):
    """README: 16 phenomena x 1,000 pairs; 22 experimental files x 100 (a baseline and
    the 20 word-order/subordination paradigms, for transitive and ditransitive)."""
    p = turblimp.pairs
    base, exp = p[~p["experimental"]], p[p["experimental"]]
    assert len(base) == 16_000 and base["phenomenon"].nunique() == 16
    assert set(base.groupby("paradigm").size()) == {1000}
    assert len(exp) == 2_200 and exp["paradigm"].nunique() == 22
    assert set(exp.groupby("paradigm").size()) == {100}
    assert sorted(set(exp["variant"])) == sorted(
        ["OSV", "OVS", "SOV", "SVO", "VOS", "VSO", "baseline", "dik", "finite", "inca", "ken"])
    assert len(data.load_turblimp().pairs) == 16_000  # experimental=False: the base set


def test_turblimp_identical_and_repeated_pairs_are_as_published(turblimp):
    """Recount from the raw files: pairs whose two sentences are the same text (kept,
    flagged) and pairs that repeat an earlier pair of their file (kept, own ids)."""
    folder = need_data("turblimp")
    same, repeats = Counter(), Counter()
    for sub, sep in (("base", ";"), ("experimental", ",")):
        for f in sorted((folder / "data" / sub).glob("*.csv")):
            rows = [(r["good_sentence"], r["bad_sentence"]) for r in _csv_rows(f, sep)]
            same[sub] += sum(g == b for g, b in rows)
            repeats[sub] += len(rows) - len(set(rows))
            if sub == "base" and any(g == b for g, b in rows):
                same[f.stem] = sum(g == b for g, b in rows)
    assert same == {"base": 20, "experimental": 10, "augmented_anaphor_agreement": 10,
                    "augmented_quantifiers": 10}
    assert dict(repeats) == {"base": 831, "experimental": 75}
    flagged = turblimp.pairs.groupby("experimental")["identical_text"].sum()
    assert flagged.to_dict() == {False: 20, True: 10}
    assert "30 pairs with identical texts, kept" in repr(turblimp)


def test_turblimp_real_pair_cues_and_region(turblimp):
    folder = need_data("turblimp")
    row = _csv_rows(folder / "data/base/augmented_binding.csv", ";")[7]
    pair = turblimp.pairs.set_index("pair_id").loc["binding_7"]
    text = turblimp.sentences.set_index("sentence_id")["text"]
    assert text[pair["good_id"]] == row["good_sentence"]
    assert text[pair["bad_id"]] == row["bad_sentence"]
    assert (pair["good_cue"], pair["bad_cue"], pair["critical_region"]) == (
        row["good_cue"], row["bad_cue"], row["critical_region"])
    exp = _csv_rows(folder / "data/experimental/argument_structure_transitive_OSV.csv", ",")[0]
    pair = turblimp.pairs.set_index("pair_id").loc["argument_structure_transitive_OSV_0"]
    assert text[pair["bad_id"]] == exp["bad_sentence"]
    assert pair["phenomenon"] == "argument_structure_transitive (experimental)"


def test_turblimp_cue_and_region_markers_as_the_docstring_says(turblimp):
    """``-`` (no region of its own) and ``∅`` (a word absent from that member), kept as
    published; counted here from the raw base files."""
    folder = need_data("turblimp")
    dash, absent = Counter(), Counter()
    for f in sorted((folder / "data" / "base").glob("*.csv")):
        for row in _csv_rows(f, ";"):
            stem = f.stem.removeprefix("augmented_")
            dash[stem] += row["critical_region"] == "-"
            absent[(stem, "good")] += row["good_cue"] == "∅"
            absent[(stem, "bad")] += row["bad_cue"] == "∅"
    assert +dash == {"ellipsis": 1000, "irregular_forms": 1000, "scrambling": 1000}
    assert +absent == {("passives", "good"): 1000, ("quantifiers", "good"): 1000,
                       ("npi_licensing", "good"): 680, ("determiners", "bad"): 1000}
    p = turblimp.pairs
    assert (p["critical_region"] == "-").sum() == 3000
    assert ((p["good_cue"] == "∅") | (p["bad_cue"] == "∅")).sum() == 3680


def test_turblimp_paradigm_selection_and_unknown_name():
    need_data("turblimp")
    ds = data.load_turblimp(paradigms=["binding", "argument_structure_ditransitive_VSO"],
                            experimental=True)
    assert ds.pairs.groupby("paradigm").size().to_dict() == {
        "argument_structure_ditransitive_VSO": 100, "binding": 1000}
    with pytest.raises(data.DataError, match="experimental=True"):
        data.load_turblimp(paradigms="argument_structure_ditransitive_VSO")


def test_rublimp_counts_and_metadata(rublimp):
    """README: 45k pairs; 45 paradigms x 1,000, with level, phenomenon, domain, tree depth."""
    p = rublimp.pairs
    assert len(p) == 45_000 and p["paradigm"].nunique() == 45
    assert set(p.groupby("paradigm").size()) == {1000}
    assert sorted(set(p["level"])) == ["Morphology", "Semantics", "Syntax"]
    assert p["phenomenon"].nunique() == 12
    assert sorted(set(p["domain"])) == ["librusec", "wikinews", "wikipedia"]
    assert p["tree_depth"].dtype.kind == "i" and not p["identical_text"].any()


def test_rublimp_real_pair_and_recurring_pairs(rublimp):
    folder = need_data("rublimp")
    rows = _csv_rows(folder / "datasets/negative_concord.csv", ",")
    row = rows[3]
    pair = rublimp.pairs.set_index("pair_id").loc[f"negative_concord_{row['id']}"]
    text = rublimp.sentences.set_index("sentence_id")["text"]
    assert (text[pair["good_id"]], text[pair["bad_id"]]) == (row["source_sentence"],
                                                            row["target_sentence"])
    assert (pair["level"], pair["tree_depth"]) == (row["level"], int(row["tree_depth"]))
    every = Counter()
    for f in (folder / "datasets").glob("*.csv"):
        every.update((r["source_sentence"], r["target_sentence"]) for r in _csv_rows(f, ","))
    assert sum(n - 1 for n in every.values()) == 9  # the docstring's 9 recurring pairs


def test_sling_counts_match_the_shared_readme(sling):
    """54 paradigm files in 8 phenomena, 40,560 pairs: 40 x 1,000 + 14 x 40."""
    p = sling.pairs
    assert len(p) == 40_560 and p["paradigm"].nunique() == 54
    assert p["phenomenon"].nunique() == 8
    sizes = p.groupby("paradigm").size()
    assert Counter(sizes) == {1000: 40, 40: 14}
    full = sizes[sizes == 1000].index  # the paper's "38K": 38 of them are not a _v2 file
    assert sum(not name.endswith("_v2") for name in full) == 38
    folder = need_data("sling")
    same = Counter()
    for f in (folder / "SLING_Data").rglob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["sentence_good"] == row["sentence_bad"]:
                same[f.stem] += 1
    assert same == {"zai_le": 16, "cl_adj_simple_noun": 4, "cl_simple_noun": 4}
    assert int(p["identical_text"].sum()) == 24


def test_sling_real_pair(sling):
    folder = need_data("sling")
    lines = (folder / "SLING_Data/Anaphor/Plural/cl_self_male.jsonl").read_text(
        encoding="utf-8").splitlines()
    row = json.loads(lines[5])
    pair = sling.pairs.set_index("pair_id").loc[f"Anaphor/Plural/cl_self_male:{row['pair_ID']}"]
    text = sling.sentences.set_index("sentence_id")["text"]
    assert (text[pair["good_id"]], text[pair["bad_id"]]) == (row["sentence_good"],
                                                            row["sentence_bad"])
    assert (pair["phenomenon"], pair["sling_paradigm"]) == ("Anaphor", "Plural")


def test_clams_pairs_each_grammatical_line_with_its_variants(clams):
    """Per language, pairs = ungrammatical lines (each follows its grammatical one), and
    the counts the module docstring states."""
    folder = need_data("clams")
    want = {}
    for lang in ("en", "fr", "de", "he", "ru"):
        labels = [line.split("\t")[0] for f in sorted((folder / f"{lang}_evalset").glob("*.txt"))
                  for line in f.read_text(encoding="utf-8").splitlines()]
        want[lang] = labels.count("False")
    assert clams.pairs.groupby("language").size().to_dict() == want == {
        "en": 157_346, "fr": 49_360, "de": 47_820, "he": 40_820, "ru": 40_120}
    assert clams.pairs.groupby("language")["paradigm"].nunique().to_dict() == {
        "de": 7, "en": 22, "fr": 7, "he": 7, "ru": 7}
    lines = (folder / "he_evalset/subj_rel.txt").read_text(encoding="utf-8").splitlines()
    good, bad = lines[10].split("\t"), lines[11].split("\t")
    assert (good[0], bad[0]) == ("True", "False")
    pair = clams.pairs.set_index("pair_id").loc["he:subj_rel:5:0"]
    text = clams.sentences.set_index("sentence_id")["text"]
    assert (text[pair["good_id"]], text[pair["bad_id"]]) == (good[1], bad[1])
    assert (pair["phenomenon"], pair["paradigm"], pair["construction"]) == (
        "agreement", "he:subj_rel", "subj_rel")


def test_clams_one_language():
    need_data("clams")
    ds = data.load_clams(language="fr")
    assert len(ds.pairs) == 49_360 and set(ds.pairs["language"]) == {"fr"}
    with pytest.raises(data.DataError, match="unknown CLAMS language 'it'"):
        data.load_clams(language="it")


@pytest.mark.parametrize("name", SETS)
def test_same_shape_and_set_aside_reported(name, request):
    ds = request.getfixturevalue(name)
    assert set(ds.pairs.columns) >= SHAPE
    assert {"language", "phenomenon", "paradigm", "label"} <= set(ds.sentences.columns)
    assert ds.exclusions[["table", "reason", "n"]].to_dict("records") == [
        {"table": "pairs", "reason": EMPTY, "n": 0}]
    assert not ds.sentences["text"].str.strip().eq("").any()
    loaded = {"turblimp": ".csv", "rublimp": ".csv", "clams": ".txt", "sling": ".jsonl"}[name]
    assert set(ds.checksums) == {rel for rel in registry(name) if rel.endswith(loaded)}


def test_an_empty_sentence_is_set_aside_and_counted(tmp_path):
    folder = need_data("turblimp")
    (tmp_path / "data" / "base").mkdir(parents=True)
    rel = "data/base/augmented_binding.csv"
    lines = (folder / rel).read_text(encoding="utf-8").splitlines()
    cells = lines[3].split(";")
    lines[3] = ";".join(["", *cells[1:]])
    (tmp_path / rel).write_text("\n".join(lines) + "\n", encoding="utf-8")
    ds = data.load_turblimp(tmp_path, paradigms="binding")
    assert len(ds.pairs) == 999 and "binding_2" not in set(ds.pairs["pair_id"])
    ex = ds.exclusions.iloc[0]
    assert (ex["reason"], ex["n"], ex["ids"]) == (EMPTY, 1, ("binding_2",))


def _multiblimp(root: Path) -> Path:
    """MultiBLiMP's published layout (Hugging Face jumelet/multiblimp): <iso639-3>/data.tsv,
    tab-separated, an unnamed index column, ``sen``, ``wrong_sen``, ``phenomenon`` and
    further fields (lm-evaluation-harness's multiblimp tasks read ``sen``/``wrong_sen``)."""
    for lang, rows in {"nld": [("De man loopt.", "loopt", "De man lopen.", "lopen", "SV-#"),
                               ("Wij lopen.", "lopen", "Wij loop.", "loop", "SV-P")],
                       "tur": [("Ben geldim.", "geldim", "Ben geldin.", "geldin", "SV-P"),
                               ("", "x", "Sen geldin.", "geldin", "SV-P")]}.items():
        (root / lang).mkdir(parents=True)
        text = "\tsen\tverb\twrong_sen\twrong_verb\tphenomenon\n" + "".join(
            f"{i}\t" + "\t".join(r) + "\n" for i, r in enumerate(rows))
        (root / lang / "data.tsv").write_text(text, encoding="utf-8")
    return root


def test_multiblimp_from_the_users_folder(tmp_path):
    root = _multiblimp(tmp_path / "multiblimp")
    ds = data.load_multiblimp(root)
    assert data.multiblimp_languages(root) == ["nld", "tur"]
    assert ds.pairs[["pair_id", "language", "phenomenon", "paradigm", "wrong_verb"]].to_dict(
        "records")[:1] == [{"pair_id": "nld_0", "language": "nld", "phenomenon": "SV-#",
                            "paradigm": "nld:SV-#", "wrong_verb": "lopen"}]
    assert list(ds.pairs["pair_id"]) == ["nld_0", "nld_1", "tur_0"]
    assert ds.exclusions.iloc[0]["ids"] == ("tur_1",)
    assert set(ds.checksums) == {"nld/data.tsv", "tur/data.tsv"}
    assert list(data.load_multiblimp(root, languages="tur").pairs["pair_id"]) == ["tur_0"]


def test_multiblimp_errors_name_the_expected_layout(tmp_path, monkeypatch):
    monkeypatch.delenv("ACCEPTABILITY_DATA_DIR", raising=False)
    with pytest.raises(data.DataError, match=r"<ISO 639-3 code>/data\.tsv"):
        data.load_multiblimp(tmp_path)
    with pytest.raises(data.DataError, match="no MultiBLiMP folder given"):
        data.load_multiblimp()
    root = _multiblimp(tmp_path / "mb")
    with pytest.raises(data.DataError, match="unknown MultiBLiMP language 'deu'"):
        data.load_multiblimp(root, languages="deu")
    (root / "nld" / "data.tsv").write_text("good\tbad\nA.\tB.\n", encoding="utf-8")
    with pytest.raises(data.DataError, match=r"missing columns \['sen', 'wrong_sen'\]"):
        data.load_multiblimp(root, languages="nld")


@pytest.mark.parametrize(("name", "n"), [("sling", 40_560), ("rublimp", 45_000)])
def test_experiment_files_name_the_sets(tmp_path, name, n):
    """An experiment file's ``data.dataset`` loads the set (as --dataset NAME does)."""
    need_data(name)
    from acceptability.reports.cli.experiment import from_toml, load_dataset

    toml = tmp_path / "exp.toml"
    toml.write_text(f'[data]\ndataset = "{name}"\nmax_pairs = 2\n[scores]\nsource = "s.csv"\n')
    exp = from_toml(toml)
    ds = load_dataset(exp)
    paradigms = pd.unique(data.load_sling().pairs["paradigm"]) if name == "sling" else range(45)
    assert exp.dataset == name and len(ds.pairs) == 2 * len(paradigms) < n


def test_without_a_local_folder_the_registry_path_is_read_and_checked(tmp_path, monkeypatch):
    """No path and no $ACCEPTABILITY_DATA_DIR/<set>: the loader asks the registry for the
    file (raw GitHub URL at the pinned commit, sha256); a cached copy with that checksum is
    used as is (pooch checks it), so this runs offline."""
    folder = need_data("turblimp")
    monkeypatch.setenv("ACCEPTABILITY_DATA_DIR", str(tmp_path / "no-data-here"))
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    rel = "data/base/augmented_binding.csv"
    cached = tmp_path / "cache" / "turblimp" / rel.replace("/", "__")
    cached.parent.mkdir(parents=True)
    cached.write_bytes((folder / rel).read_bytes())
    ds = data.load_turblimp(paradigms="binding")
    assert len(ds.pairs) == 1000 and ds.source == str(cached.parent)
    assert ds.checksums == {rel: registry("turblimp")[rel][0]}
