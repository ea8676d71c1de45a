"""An experiment: which dataset, which scores or models, which analysis settings and
where to write. Built from command-line flags or a TOML file (see
``examples/experiment.toml``); both give the same ``Experiment`` and the same numbers."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from acceptability import data, stats
from acceptability.data.errors import DataError
from acceptability.data.io.sources import checksum
from acceptability.data.loaders.blimp import check_paradigms
from acceptability.data.loaders.marvin_linzen import check_constructions
from acceptability.data.loaders.multilingual import turblimp
from acceptability.data.loaders.zorro import check_paradigms as check_zorro_paradigms
from acceptability.data.names import display_names, with_display_names
from acceptability.data.tables import member
from acceptability.reports.analysis import AUTO, DEFAULT_FORMULA
from acceptability.reports.cli import experiment_schema
from acceptability.reports.cli.choices import DATASETS, DTYPES
from acceptability.reports.ratings.fits import level_formula
from acceptability.reports.syntaxgym.analysis import SYNTAXGYM
from acceptability.scoring.normalise import NORMALISATIONS, UNIGRAM, check_unigram_file
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED

PARADIGM_DATASETS = ("blimp", "zorro", "marvin-linzen", "turblimp")  # what --paradigm selects
CHECK_PARADIGMS = {"blimp": check_paradigms, "zorro": check_zorro_paradigms,
                   "marvin-linzen": check_constructions, "turblimp": turblimp.check_paradigms}
USER = "user"  # the dataset of an experiment on the user's own files
METHOD_NAME = re.compile(r"[a-z][a-z0-9_]*")  # "gpt2:logprob"; not "C:\\models\\x"
MAX_DELTA = experiment_schema.MAX_DELTA
BOUNDARIES = ("sum", "corrected")  # SyntaxGym's region surprisal (scoring.word_scores)
SYNTAXGYM_SCORES = ("give --model to score the suites (e.g. --model gpt2), or --scores FILE: "
                    "region surprisals written by `acceptability score --dataset syntaxgym` "
                    "or a suite that SyntaxGym filled in (.json)")  # scoring precision (README: float32 or bfloat16)
PATH_PREFIXES = (".", "/", "~")  # a model entry that starts so is a path
MODEL_FILES = (".gguf", ".arpa")  # and so is one ending so
HUB = "hub:"  # a model entry naming a Hugging Face hub id


@dataclass(frozen=True)
class Experiment:
    """Settings of one analysis run (``acceptability run``).

    ``scores``: ``"published"`` (the dataset's published model scores), a scores file, or
    None to score ``models`` with ``scoring.score``; with scores given, ``models`` selects
    some of their models; a model to score may name its method (``"gpt2:logprob"``,
    ``"bert-base-uncased:pll"``), else ``method`` applies. ``sentences`` and ``pairs``:
    the user's own files (CSV/TSV/Parquet; ``dataset`` is then ``"user"``), whose
    ``human`` column holds z-scores (``human_scale="z"``) or raw ratings to be z-scored
    over the sentences (``"raw"``; ``data.tables.human_on_z_scale``).
    ``paradigms``: BLiMP or Zorro paradigms, or Marvin & Linzen constructions, to load
    (default all). ``max_pairs``: keep the first N pairs of each paradigm (else phenomenon),
    for a quick look at a large benchmark. ``ratings`` (with ``scale``, e.g.
    ``"likert:1-7"``): the user's own trial-level ratings beside ``sentences``.
    ``columns``: the user's column names -> the package's, for every file
    (``{"subject": "participant"}``; ``data.read_dataset``).
    ``max_sentences``: keep the first N sentences (of each context condition of lau2020;
    whole lists of MegaAcceptability: ``data.Dataset.head``).
    ``norming``: how trial ratings become one human value per sentence
    (``stats.with_norming``; ``"auto"``: ``stats.ratings.human.default_norming``).
    ``by="auto"`` picks the
    per-group breakdown; ``formula="auto"`` fits the default mixed model where the data
    can carry it (``reports.analysis.resolve_formula``), ``""`` none; ``level``:
    ``"trial"`` models each rating (``formula="auto"``: ``stats.rating_model``'s defaults
    for the design; a formula of ``response_z`` or ``response``), ``"sentence"`` each
    sentence, ``"auto"`` as the formula says (``reports.ratings.fits.level_formula``);
    ``compare_metric=
    "auto"`` compares models on the ADC, else the BLiMP criterion, else r_sentence,
    whichever the data define first. ``sign``: the ADC's sign convention, ``"strict"`` or
    ``"thesis"`` (``stats.metrics.sign_agree``). ``normalise``: when scoring, one of
    ``scoring.normalise.NORMALISATIONS`` (Lau et al. 2017); SLOR and NormLP need
    ``unigram``, a corpus or word-frequency file (``scoring.normalise.read_unigram``).
    ``trust_remote_code``: let models that need code of their own run it (off by default;
    ``scoring.load_model``). ``suites``: SyntaxGym suites to load, by name or suite JSON
    file (default all 34; ``data.load_syntaxgym``); their scores are region surprisals
    (``reports.cli.syntaxgym_data``), summed over tokens (``boundary="sum"``) or with the
    word-boundary correction (``"corrected"``; ``scoring.region_surprisals``).
    ``start_token``: what a causal LM's first token is conditioned on (``"bos"``, ``"eos"``,
    a token, ``"none"``; default ``"auto"``: ``scoring.backends.causal.start_token``).
    ``device``, ``device_map``, ``max_memory`` and ``batch_tokens``: where and in what
    batches models are scored (``hardware``; ``scoring.load_model``, ``scoring.score``), not
    part of the scores' provenance (they change scores by float rounding at most).
    ``cache``: False scores without the score cache (``--no-cache``; ``scoring.score``'s
    ``cache=False``), which changes no number: not part of the provenance either.
    ``name``: the report's title, "acceptability report: NAME" (default: the dataset's
    name; of your own files, the sentences file's name without its suffixes).
    """

    dataset: str = "li-adger"
    data_path: str | None = None
    sentences: str | None = None
    pairs: str | None = None
    human_scale: str = "z"
    paradigms: tuple[str, ...] = ()
    suites: tuple[str, ...] = ()
    max_pairs: int | None = None
    max_sentences: int | None = None
    ratings: str | None = None
    scale: str | None = None
    columns: dict | None = None
    scores: str | None = "published"
    models: tuple[str, ...] = ()
    method: str = "logprob"
    revision: str | None = None
    dtype: str | None = None
    recheck: bool = False
    normalise: str | None = None
    unigram: str | None = None
    trust_remote_code: bool = False
    boundary: str = "sum"
    start_token: str | None = None
    device: str | None = None
    device_map: str | None = None
    max_memory: str | dict | None = None
    batch_tokens: int | None = None
    cache: bool = True
    deltas: tuple[float, ...] = DEFAULT_DELTAS
    n_boot: int = DEFAULT_N_BOOT
    seed: int = DEFAULT_SEED
    by: str | None = "auto"
    formula: str = AUTO
    level: str = AUTO
    compare_metric: str = AUTO
    correction: str = "holm"
    sign: str = "strict"
    norming: str = AUTO
    out: str = "report"
    name: str | None = None

    def __post_init__(self) -> None:
        if self.sentences is not None:
            object.__setattr__(self, "dataset", USER)
        elif self.human_scale != "z":
            raise DataError("human_scale applies to your own sentences file",
                            fix="give --sentences FILE, or leave out --human-scale")
        elif self.pairs is not None:
            raise DataError("a pairs file needs its sentences file",
                            fix="give --sentences FILE with --pairs FILE")
        elif self.dataset not in DATASETS:
            raise DataError(f"unknown dataset {self.dataset!r}", fix=f"use one of {list(DATASETS)}"
                            " or your own files (--sentences FILE [--pairs FILE])")
        object.__setattr__(self, "paradigms", tuple(self.paradigms))
        if self.paradigms:
            if self.dataset not in PARADIGM_DATASETS:
                raise DataError("paradigms select BLiMP paradigms, Zorro paradigms or Marvin "
                                f"& Linzen constructions, not parts of {self.dataset!r} data",
                                fix="use them with dataset blimp, zorro, marvin-linzen or "
                                    "turblimp")
            CHECK_PARADIGMS[self.dataset](self.paradigms)
        check_syntaxgym(self)
        self._check_bounds()
        self._check_ratings()
        self._check_columns()
        object.__setattr__(self, "formula", level_formula(self.formula, self.level,
                                                          DEFAULT_FORMULA))
        object.__setattr__(self, "deltas", tuple(check_delta(d) for d in self.deltas))
        object.__setattr__(self, "models", tuple(self.models))
        if self.sign not in stats.metrics.SIGNS:
            raise DataError(f"unknown sign convention {self.sign!r}",
                            fix=f"use one of {list(stats.metrics.SIGNS)}")
        if self.dtype not in (None, *DTYPES):
            raise DataError(f"unknown dtype {self.dtype!r}", fix=f"use one of {list(DTYPES)}")
        for flag in ("recheck", "trust_remote_code"):
            if not isinstance(getattr(self, flag), bool):
                raise DataError(f"{flag} must be true or false, got {getattr(self, flag)!r}")
        if self.recheck and self.dtype != "bfloat16":
            raise DataError("recheck rescores close pairs of a bfloat16 run in float32, and "
                            f"the scoring dtype is {self.dtype or 'float32'}",
                            fix="score with dtype bfloat16, or leave recheck off")
        self._check_normalise()
        self.hardware()  # a bad max_memory fails here, before any work
        if self.scores is None and not self.models:
            raise DataError("no scores and no models to score",
                            fix="give --scores (published or a file) or --model")
        if self.scores is None:
            self.scoring_plan()  # an unknown method fails here, before any work

    def _check_bounds(self) -> None:
        """max_pairs, max_sentences (or None) and n_boot of the schema's types and bounds
        (``experiment_schema.SCHEMA``; booleans are not numbers), which bound the work a
        run may ask for, before any model is scored."""
        for table, name in (("data", "max_pairs"), ("data", "max_sentences"),
                            ("analysis", "n_boot")):
            key, value = experiment_schema.SCHEMA[table][name], getattr(self, name)
            if not (key.fits(value) or value is None and table == "data"):
                raise DataError(f"{name} must be {key.expected()}, got {value!r}")

    def _check_ratings(self) -> None:
        """Trial-level ratings: a file needs its sentences and scale; a norming must be
        known (``reports.ratings.analysis.NORMINGS``)."""
        from acceptability.stats.ratings.normalize import METHODS as NORMINGS

        if self.ratings is not None and self.sentences is None:
            raise DataError("a ratings file needs its sentences file",
                            fix="give --sentences FILE with --ratings FILE")
        if (self.ratings is None) != (self.scale is None):
            raise DataError("a ratings file and its scale come together",
                            fix="give --ratings FILE --scale likert:1-7 (or me, binary)")
        if self.scale is not None:
            data.RatingScale.parse(self.scale)
        if self.norming not in (AUTO, *NORMINGS):
            raise DataError(f"unknown norming {self.norming!r}",
                            fix=f"use one of {[AUTO, *NORMINGS]}")

    def _check_columns(self) -> None:
        """A column map: text to text, for the user's own files only."""
        if not self.columns:
            object.__setattr__(self, "columns", None)
            return
        if self.dataset != USER:
            raise DataError(f"a column map applies to your own files, not to {self.dataset!r} "
                            "data", fix="give --sentences FILE (TOML: [data] sentences), or "
                                        "leave out --column")
        if not isinstance(self.columns, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in self.columns.items()):
            raise DataError(f"columns must map column names to column names, got "
                            f"{self.columns!r}", fix='e.g. columns = {subject = "participant"}')

    def _check_normalise(self) -> None:
        """A normalisation that cannot run fails here, before any work."""
        if self.normalise is None and self.unigram is None:
            return
        if self.scores is not None:
            raise DataError("normalise and unigram apply when models are scored, and these "
                            "scores are given", fix="give --model without --scores (TOML: "
                            "[scores] source = \"score\"), or leave out --normalise")
        if self.normalise not in (None, *NORMALISATIONS):
            raise DataError(f"unknown normalise {self.normalise!r}",
                            fix=f"use one of {list(NORMALISATIONS)}")
        if self.unigram is None:
            if self.normalise in UNIGRAM:
                raise DataError(f"normalise {self.normalise!r} needs a unigram model",
                                fix="give --unigram FILE (TOML: [scores] unigram), a corpus "
                                    "(.txt, one sentence per line) or word frequencies "
                                    "(.csv/.tsv with word and count)")
            return
        if self.normalise not in UNIGRAM:
            raise DataError(f"unigram is used only by normalise {' or '.join(UNIGRAM)}",
                            fix="add --normalise slor (TOML: [scores] normalise), or leave "
                                "out --unigram")
        check_unigram_file(self.unigram)

    def scoring_plan(self) -> list[tuple[str, str]]:
        """(model, method) for each model to score: its own ``model:method``, else
        ``method``."""
        return [model_method(spec, self.method) for spec in self.models]

    def hardware(self) -> dict:
        """The device, device_map, max_memory and batch_tokens given, as ``scoring.score``
        takes them (max_memory read by ``scoring.options.parse_max_memory``), the start
        token when given (which is in the scores' provenance: ``scores_settings``), and
        ``cache=False`` without the score cache."""
        from acceptability.scoring.options import parse_max_memory

        if self.batch_tokens is not None and (not isinstance(self.batch_tokens, int)
                                              or self.batch_tokens < 1):
            raise DataError(f"batch_tokens must be a whole number >= 1, got {self.batch_tokens!r}",
                            fix="give tokens per forward pass, e.g. 16384, or leave it out")
        given = {k: getattr(self, k) for k in ("device", "device_map", "batch_tokens",
                                               "start_token") if getattr(self, k)}
        if self.max_memory is not None:
            try:
                given["max_memory"] = parse_max_memory(self.max_memory)
            except ValueError as err:
                raise DataError(str(err)) from None
        return given if self.cache else given | {"cache": False}

    def title(self) -> str | None:
        """The report's title where ``name`` sets it (None: ``reports.build``'s default)."""
        return f"acceptability report: {self.name}" if self.name else None

    def replace(self, **changes) -> Experiment:
        """A copy with some settings changed (None values are ignored)."""
        return dataclasses.replace(self, **{k: v for k, v in changes.items() if v is not None})

    def scores_settings(self) -> dict:
        """Where the scores come from (for provenance): source, models, method, revision,
        dtype, normalisation and its unigram file (path and sha256)."""
        scored = self.scores is None
        models = [f"{m}:{method}" for m, method in self.scoring_plan()] if scored \
            else list(self.models)
        return {"scores": self.scores or "scored with scoring.score", "models": models,
                "revision": self.revision if scored else None,
                "dtype": (self.dtype or "float32") if scored else None,
                "recheck": self.recheck if scored else None, "normalise": self.normalise,
                "unigram": self.unigram and {"path": self.unigram,
                                             "sha256": checksum(Path(self.unigram))},
                **({"trust_remote_code": True} if scored and self.trust_remote_code else {}),
                **({"start_token": self.start_token} if scored and self.start_token else {}),
                **({"boundary": self.boundary} if scored and self.dataset == SYNTAXGYM
                   else {})}

    def analysis_settings(self) -> dict:
        """The settings that determine the statistics (for fingerprints and provenance)."""
        return {"deltas": list(self.deltas), "n_boot": self.n_boot, "seed": self.seed,
                "by": self.by, "compare_metric": self.compare_metric,
                "correction": self.correction, "sign": self.sign, "norming": self.norming}


def check_syntaxgym(exp: Experiment) -> None:
    """SyntaxGym's settings: suites and a region boundary with that dataset only; no
    sentence-level normalisation or recheck (its scores are region surprisals)."""
    object.__setattr__(exp, "suites", tuple(str(s) for s in exp.suites))
    if exp.boundary not in BOUNDARIES:
        raise DataError(f"unknown boundary {exp.boundary!r}", fix=f"use one of {list(BOUNDARIES)}")
    if exp.dataset != SYNTAXGYM:
        if exp.suites or exp.boundary != "sum":
            raise DataError(f"suites and boundary apply to SyntaxGym, not to {exp.dataset!r} "
                            "data", fix="use them with --dataset syntaxgym")
        return
    if exp.scores == "published":
        raise DataError("SyntaxGym publishes no region surprisals (a report shows Hu et al.'s "
                        "published outcomes beside your models')", fix=SYNTAXGYM_SCORES)
    if exp.max_pairs is not None:
        raise DataError("SyntaxGym suites have no minimal pairs to keep the first of",
                        fix="pick suites with --suite (TOML: [data] suites), or leave out "
                            "--max-pairs")
    used = [k for k in ("normalise", "unigram") if getattr(exp, k) is not None]
    used += ["recheck"] if exp.recheck else []
    if used:
        raise DataError(f"{used[0]} applies to sentence scores, and SyntaxGym's scores are "
                        "region surprisals", fix=f"leave out --{used[0]}")


def model_method(spec: str, default: str) -> tuple[str, str]:
    """``"gpt2:logprob"`` -> ``("gpt2", "logprob")``; a spec without a method (``"gpt2"``,
    a folder) takes ``default``; ``hub:ID`` names the hub id ``ID`` (experiment files:
    ``resolve_model``). An unknown method is an error listing the methods."""
    from acceptability.scoring.registry import METHODS

    model, method = split_method(str(spec))
    model, method = model.removeprefix(HUB), method or default
    if method not in METHODS:
        raise DataError(f"unknown scoring method {method!r} for model {model!r}",
                        fix=f"use one of {list(METHODS)}, e.g. --model {model}:logprob")
    return model, method


def split_method(spec: str) -> tuple[str, str | None]:
    """``"gpt2:logprob"`` -> ``("gpt2", "logprob")``, ``"gpt2"`` -> ``("gpt2", None)``;
    a colon not followed by a method name is part of the model (``C:\\models\\x``,
    ``hub:gpt2``)."""
    model, sep, method = spec.rpartition(":")
    if sep and model and METHOD_NAME.fullmatch(method) and model != HUB[:-1]:
        return model, method
    return spec, None


def check_delta(value: float | str) -> float:
    """An ADC delta: a number in (0, 100]."""
    try:
        d = float(value)
    except (TypeError, ValueError):
        raise DataError(f"delta must be a number, got {value!r}") from None
    if not 0 < d <= MAX_DELTA:
        raise DataError(f"delta must be in (0, {MAX_DELTA:g}], got {value}")
    return d


def from_toml(path: str | os.PathLike, trust_remote_code: bool = False) -> Experiment:
    r"""An ``Experiment`` from a TOML file (the layout of ``examples/experiment.toml``:
    ``out`` and the tables ``[data]``, ``[scores]``, ``[analysis]``), every key checked
    against ``experiment_schema.SCHEMA`` before anything runs.

    Parameters
    ----------
    path : str or os.PathLike
        The TOML file; every path in it (``out``, data files, scores, models, unigram) is
        relative to the file's folder, ``~`` the user's home (``resolve_model``).
    trust_remote_code : bool
        Whether models may run code of their own (``--trust-remote-code``). A file cannot
        switch that on: its ``trust_remote_code = true`` is refused without this.

    Returns
    -------
    Experiment

    Raises
    ------
    DataError
        For a missing or unreadable file, an unknown key or a bad value, naming the file.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from acceptability.reports import from_toml
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "experiment.toml"
    ...     _ = path.write_text('out = "report"\n[data]\ndataset = "example"\n'
    ...                         '[analysis]\nn_boot = 0\n')
    ...     exp = from_toml(path)
    >>> exp.dataset, exp.scores, exp.n_boot, Path(exp.out).name
    ('example', 'published', 0, 'report')
    """
    p = Path(path)
    values = experiment_schema.read(experiment_schema.load(p), str(p))
    if "sentences" in values and "dataset" in values:
        raise DataError("[data] gives both a dataset and sentences", source=str(p),
                        fix="keep one: a named dataset, or your own sentences/pairs files")
    if values.get("trust_remote_code") and not trust_remote_code:
        raise DataError("[scores] trust_remote_code = true: an experiment file cannot let "
                        "models run code of their own", source=str(p),
                        fix="read that code first; to run it, add --trust-remote-code to the "
                            "command line (Python: from_toml(path, trust_remote_code=True))")
    values["trust_remote_code"] = trust_remote_code
    for key in ("data_path", "out", "sentences", "pairs", "ratings", "unigram"):
        if key in values:
            values[key] = str(beside(p, values[key]))
    if "suites" in values:  # a suite file, not a name: relative to p
        values["suites"] = [str(beside(p, s)) if _is_file_name(s) else s
                            for s in values["suites"]]
    if values.get("scores") == "score":
        values["scores"] = None
        values["models"] = [resolve_model(m, p) for m in values.get("models", [])]
    elif values.get("scores", "published") != "published":
        values["scores"] = str(beside(p, values["scores"]))
    try:
        return Experiment(**values)
    except DataError as err:  # a setting that fails with another: name the file too
        raise (err if err.source else DataError(str(err), source=str(p))) from None


def beside(toml: Path, entry: str) -> Path:
    """A path of experiment file ``toml``: ``~`` the user's home, else relative to the
    file's folder (an absolute path as it is)."""
    return (toml.parent / Path(entry).expanduser()).resolve()


def resolve_model(spec: str, toml: Path) -> str:
    """A model to score, as experiment file ``toml`` names it: ``hub:ID`` a Hugging Face
    hub id; a folder or file beside ``toml`` its absolute path; otherwise a hub id
    (``gpt2``), unless it looks like a path (starts with ``.``, ``/`` or ``~``, holds a
    ``/`` or ``\\``, or ends in .gguf or .arpa): then a DataError naming both readings,
    never a hub download in its place. A ``:method`` suffix stays."""
    model, method = split_method(spec)
    if model.startswith(HUB):
        return spec
    suffix = f":{method}" if method else ""
    local = beside(toml, model)
    if local.exists():
        return f"{local}{suffix}"
    if model.startswith(PATH_PREFIXES) or "/" in model or "\\" in model \
            or model.lower().endswith(MODEL_FILES):
        raise DataError(f"model {model!r} is not a folder or file next to the experiment "
                        f"file (resolved to {local})", source=str(toml),
                        fix=f"give the model's folder relative to the file or as an absolute "
                            f"path; for a Hugging Face hub id write \"{HUB}{model}{suffix}\"")
    return spec


def _is_file_name(entry: str) -> bool:
    """A suite entry that names a file (``.json``, or a path) rather than a suite."""
    return entry.endswith(".json") or "/" in entry or "\\" in entry


def load_dataset(exp: Experiment):
    """The experiment's dataset: its first ``max_pairs`` pairs per paradigm and first
    ``max_sentences`` sentences when set; trial-level ratings normed into ``human``
    (``stats.with_norming``, the step ``stats.evaluate`` takes)."""
    ds = _load_dataset(exp)
    if exp.max_sentences is not None:
        ds = ds.head(exp.max_sentences)
    if exp.max_pairs is not None:
        ds = head_pairs(ds, exp.max_pairs)
    from acceptability.stats.ratings.human import with_norming

    return with_norming(ds, exp.norming)  # as stats.evaluate does in Python


def head_pairs(ds, n: int):
    """`ds` with the first `n` pairs of each paradigm (else phenomenon) and their sentences."""
    group = ds.pairs["paradigm"] if "paradigm" in ds.pairs else ds.pairs["phenomenon"]
    first = ds.pairs.groupby(group.fillna(ds.pairs["phenomenon"]), sort=False).head(n)
    return ds.subset(pair_ids=first["pair_id"])


def _load_dataset(exp: Experiment):
    if exp.dataset == USER:
        return data.read_dataset(exp.sentences, exp.pairs, human_scale=exp.human_scale,
                                 ratings=exp.ratings, scale=exp.scale, columns=exp.columns)
    if exp.dataset == "lau2020":
        return data.load_lau2020(exp.data_path, context="all")
    if exp.dataset == "example":
        return data.load_example()[0]
    if exp.dataset == SYNTAXGYM:
        return data.load_syntaxgym(exp.data_path, suites=exp.suites or None)
    if exp.dataset == "blimp":
        return data.load_blimp(exp.data_path, paradigms=exp.paradigms or None)
    if exp.dataset == "zorro":
        return data.load_zorro(exp.data_path, paradigms=exp.paradigms or None)
    if exp.dataset == "marvin-linzen":
        return data.load_marvin_linzen(exp.data_path, constructions=exp.paradigms or None)
    if exp.dataset == "turblimp":  # the experimental paradigms when --paradigm names one
        return data.load_turblimp(exp.data_path, paradigms=exp.paradigms or None,
                                  experimental=any(map(turblimp.is_experimental, exp.paradigms)))
    loader = {"li-adger": data.load_li_adger, "cola": data.load_cola,
              "megaacceptability": data.load_megaacceptability, "rublimp": data.load_rublimp,
              "clams": data.load_clams, "sling": data.load_sling,
              "multiblimp": data.load_multiblimp}[exp.dataset]
    return loader(exp.data_path)


def select_models(scores: pd.DataFrame, models: tuple[str, ...]) -> pd.DataFrame:
    """Keep ``models`` of a scores table (all when empty); an unknown model is an error."""
    if not models:
        return scores
    have = list(dict.fromkeys(scores["model"]))
    unknown = [m for m in models if m not in have]
    if unknown:
        raise DataError(f"unknown model {unknown[0]!r}", fix=f"the scores have {have}")
    return scores[scores["model"].isin(models)].reset_index(drop=True)


def scoring_module():
    """``acceptability.scoring``, or a DataError saying how to install it."""
    try:
        from acceptability import scoring
    except ImportError as err:
        raise DataError(f"scoring is not available ({err})",
                        fix="pip install 'acceptability[scoring]'") from None
    return scoring


def score_models(dataset, plan: list[tuple[str, str]], revision: str | None = None,
                 dtype: str | None = None, recheck: bool = False, normalise: str | None = None,
                 unigram: str | None = None, trust_remote_code: bool = False,
                 hardware: dict | None = None) -> pd.DataFrame:
    """Score ``dataset`` with each (model, method) of ``plan`` (``scoring.score``; torch is
    imported when a model loads, in ``dtype``: float32 unless "bfloat16"), each named
    ``<display name>_<method>`` (``_<normalise>`` added when normalised, as
    ``scoring.score`` names it). ``recheck``: rescore a bfloat16 run's close pairs in
    float32 (not n-gram models, which have no dtype), saying how many on stderr.
    ``unigram``: the file of the unigram model SLOR and NormLP need
    (``scoring.normalise.read_unigram``), read once before any model loads.
    ``trust_remote_code``, and ``hardware`` (``Experiment.hardware``): as
    ``scoring.score``'s."""
    scoring = scoring_module()
    from acceptability.scoring.registry import lookup

    score = getattr(scoring, "score", None)
    if score is None:
        raise DataError("scoring.score is not available in this version of the package")
    unigram_model = scoring.normalise.read_unigram(unigram) if unigram else None
    frames = []
    for (m, method), name in zip(plan, model_names(plan, [normalise] if normalise else []),
                                 strict=True):
        frames.append(score(dataset, model=m, method=method, revision=revision, dtype=dtype,
                            model_name=name, recheck=recheck and lookup(method).neural,
                            normalise=normalise, unigram=unigram_model,
                            trust_remote_code=trust_remote_code, **(hardware or {})))
        if "recheck" in frames[-1].attrs:
            print(f"{name}: {frames[-1].attrs['recheck']['message']}", file=sys.stderr)
    return pd.concat(frames, ignore_index=True)


def model_names(plan: list[tuple[str, str]], suffix: list[str]) -> list[str]:
    """The name of each (model, method) of ``plan`` in a scores table:
    ``<display name>_<method>`` and ``suffix`` joined by underscores, a local folder or
    file by its name (unique among them), not its path."""
    local = {m: str(Path(m).expanduser().resolve()) for m, _ in plan
             if Path(m).expanduser().exists()}  # folders and ARPA files, by absolute path
    shown = display_names(local.get(m, m) for m, _ in plan)  # by name, unique
    return ["_".join([shown[local.get(m, m)], method, *suffix]) for m, method in plan]


def load_scores(exp: Experiment, dataset) -> pd.DataFrame:
    """The experiment's scores: published, from a file, or computed with ``scoring``.

    When the experiment restricts its dataset (``paradigms``, ``max_pairs``), scores of
    sentences outside it are set aside (``within``); otherwise a score for a sentence
    the dataset lacks is an error naming its row. (SyntaxGym suites are evaluated on
    region surprisals: ``reports.cli.syntaxgym_data.load_regions``.)"""
    if exp.scores is None:
        return score_models(dataset, exp.scoring_plan(), exp.revision, exp.dtype, exp.recheck,
                            exp.normalise, exp.unigram, exp.trust_remote_code, exp.hardware())
    restricted = bool(exp.paradigms) or exp.max_pairs is not None \
        or exp.max_sentences is not None
    if exp.scores == "published":
        if exp.dataset == "li-adger":
            scores = data.load_li_adger_scores(exp.data_path)
        elif exp.dataset == "example":
            scores = data.load_example()[1]
        elif exp.dataset == "zorro":  # RoBERTa-base, scored by Zorro's authors
            scores = data.load_zorro_reference_scores(exp.data_path, dataset)
        else:
            what = "your own data" if exp.dataset == USER else f"dataset {exp.dataset!r}"
            raise DataError(f"no published scores for {what}",
                            fix="give a scores file (--scores FILE), or --model to score the "
                                "sentences")
    else:
        scores = data.read_scores(exp.scores, None if restricted else dataset)
    if restricted:
        scores = within(scores, dataset, exp.scores)
    return with_display_names(select_models(scores, exp.models))


def within(scores: pd.DataFrame, dataset, source: str) -> pd.DataFrame:
    """The rows of ``scores`` whose sentence is in ``dataset`` (a restricted one: some
    paradigms, the first pairs of each); the others are set aside, counted in
    ``attrs["set_aside"]`` and said on stderr. No row in the dataset is an error."""
    inside = member(scores["sentence_id"], dataset.sentences["sentence_id"])
    if not inside.any():
        raise DataError(f"no score for any sentence of the selected {dataset.name} pairs "
                        "or sentences", source=source,
                        fix="score the sentences of the selected paradigms (acceptability "
                            "score with the same --paradigm, --max-pairs and --max-sentences)")
    return kept(scores, inside, f"score rows ({scores.loc[~inside, 'sentence_id'].nunique():,} "
                "sentences) outside the selected paradigms, pairs or sentences (--paradigm, "
                "--max-pairs, --max-sentences)")


def kept(table: pd.DataFrame, inside: pd.Series, said: str) -> pd.DataFrame:
    """The rows of ``table`` where ``inside``; the others are counted in
    ``attrs["set_aside"]`` and, ``said`` naming them, on stderr."""
    out = table[inside].reset_index(drop=True)
    out.attrs["set_aside"] = int((~inside).sum())
    if out.attrs["set_aside"]:
        print(f"set aside {out.attrs['set_aside']:,} {said}", file=sys.stderr)
    return out
