"""The experiment file's schema: each key of each table, the ``Experiment`` field it sets,
its type and bounds, in one table (``SCHEMA``). ``read`` checks a whole TOML document
against it before anything runs, each refusal naming the key, the type expected and the
file; docs/cli.md lists the table (``rows``). The training commands' settings files have
their table too (``TRAINING``, ``read_training``), checked the same way. The bounds of
resamples, seeds and ADC deltas are the statistics' own (``acceptability.stats.arguments``)."""

from __future__ import annotations

import json
import math
import reprlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from acceptability.data.errors import DataError
from acceptability.stats.arguments import MAX_DELTA, MAX_N_BOOT, MAX_SEED, MIN_N_BOOT

TEXT, WHOLE, FLAG = "a string", "an integer", "true or false"
TEXTS, NUMBERS, WHOLES = "a list of strings", "a list of numbers", "a list of integers"
NUMBER = "a number"
TEXT_TABLE, MEMORY, TABLE = "a table of strings", "a string or a table", "a table"
PATH = "a path"  # relative to the file's folder, ~ the user's home (``experiment.beside``)


@dataclass(frozen=True)
class Key:
    """One key: the ``Experiment`` field it sets, its type, bounds (``low`` excluded when
    ``open_low``; 0 allowed besides them when ``zero``, e.g. n_boot's "no intervals") and
    an example value as TOML writes it."""

    field: str
    type: str
    example: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    zero: bool = False
    note: str = ""

    def expected(self) -> str:
        """The type with its bounds: "an integer from 1 to 100", "an integer >= 1"."""
        if self.low is None and self.high is None:
            return self.type
        low, high = _shown(self.low), _shown(self.high)
        if self.open_low:
            return f"{self.type} in ({low}, {high}]"
        zero = ", or 0 (no intervals)" if self.zero else ""
        return f"{self.type} from {low} to {high}{zero}" if self.high is not None \
            else f"{self.type} >= {low}"

    def fits(self, value: object) -> bool:
        """Whether ``value`` (as tomllib reads it) has this key's type and bounds."""
        if self.type in LISTS:
            return isinstance(value, list) and all(self._item(v, LISTS[self.type])
                                                   for v in value)
        if self.type == TEXT_TABLE:
            return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in value.items())
        if self.type == MEMORY:
            return isinstance(value, str) or isinstance(value, dict) and all(
                isinstance(v, str | int) and not isinstance(v, bool) for v in value.values())
        kind = {TEXT: str, WHOLE: int, FLAG: bool, NUMBER: (int, float)}[self.type]
        return self._item(value, kind)

    def _item(self, value: object, kind: type | tuple) -> bool:
        """One value of type ``kind`` (booleans are not numbers) within the bounds."""
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            return False
        if self.low is None and self.high is None or self.zero and value == 0:
            return True
        above = value > self.low if self.open_low else value >= self.low
        return bool(above and (self.high is None or value <= self.high)
                    and not (isinstance(value, float) and math.isnan(value)))


LISTS = {TEXTS: str, NUMBERS: (int, float), WHOLES: int}  # a list's type: its items'


def _shown(bound: float | None) -> str:
    """A bound as the docs write it: 2**32-1 for the seed's, else with thousands commas."""
    if bound is not None and bound > 2**31 and math.log2(bound + 1).is_integer():
        return f"2**{int(math.log2(bound + 1))}-1"
    return "" if bound is None else f"{bound:,g}" if isinstance(bound, float) else f"{bound:,}"


# table ("" for the top level) -> key in the file -> Key
SCHEMA: dict[str, dict[str, Key]] = {
    "": {"out": Key("out", TEXT, '"report/li-adger"', note=PATH),
         "name": Key("name", TEXT, '"TurBLiMP"')},
    "data": {
        "dataset": Key("dataset", TEXT, '"li-adger"'),
        "path": Key("data_path", TEXT, '"/data/li-adger"', note=PATH),
        "paradigms": Key("paradigms", TEXTS, '["wh_island"]'),
        "max_pairs": Key("max_pairs", WHOLE, "100", low=1),
        "max_sentences": Key("max_sentences", WHOLE, "500", low=1),
        "sentences": Key("sentences", TEXT, '"my_sentences.csv"', note=PATH),
        "pairs": Key("pairs", TEXT, '"my_pairs.csv"', note=PATH),
        "human_scale": Key("human_scale", TEXT, '"raw"'),
        "ratings": Key("ratings", TEXT, '"my_ratings.csv"', note=PATH),
        "scale": Key("scale", TEXT, '"likert:1-7"'),
        "suites": Key("suites", TEXTS, '["number_prep", "my_suite.json"]',
                      note="suite names, or paths of suite files (.json)"),
        "columns": Key("columns", TEXT_TABLE, '{subject = "participant"}')},
    "scores": {
        "source": Key("scores", TEXT, '"published"', note='"published", "score" or the '
                      "path of a scores file"),
        "models": Key("models", TEXTS, '["gpt2:logprob"]', note="to score: hub ids or "
                      "paths (`experiment.resolve_model`); else models of the scores"),
        "method": Key("method", TEXT, '"logprob"'),
        "revision": Key("revision", TEXT, '"main"'),
        "dtype": Key("dtype", TEXT, '"bfloat16"'),
        "recheck": Key("recheck", FLAG, "true"),
        "normalise": Key("normalise", TEXT, '"slor"'),
        "unigram": Key("unigram", TEXT, '"corpus.txt"', note=PATH),
        "trust_remote_code": Key("trust_remote_code", FLAG, "true", note="true needs "
                                 "`--trust-remote-code`"),
        "boundary": Key("boundary", TEXT, '"corrected"'),
        "start_token": Key("start_token", TEXT, '"eos"'),
        "device": Key("device", TEXT, '"cuda"'),
        "device_map": Key("device_map", TEXT, '"auto"'),
        "max_memory": Key("max_memory", MEMORY, '"0=70GiB,cpu=200GiB"'),
        "batch_tokens": Key("batch_tokens", WHOLE, "16384", low=1)},
    "analysis": {
        "deltas": Key("deltas", NUMBERS, "[0.5, 1.0, 5.0]", low=0, high=MAX_DELTA,
                      open_low=True),
        "n_boot": Key("n_boot", WHOLE, "10_000", low=MIN_N_BOOT, high=MAX_N_BOOT, zero=True),
        "seed": Key("seed", WHOLE, "0", low=0, high=MAX_SEED),
        "by": Key("by", TEXT, '"auto"'),
        "formula": Key("formula", TEXT, '"human ~ score + (1 + score | phenomenon)"'),
        "level": Key("level", TEXT, '"trial"'),
        "compare_metric": Key("compare_metric", TEXT, '"adc_1"'),
        "correction": Key("correction", TEXT, '"holm"'),
        "sign": Key("sign", TEXT, '"thesis"'),
        "norming": Key("norming", TEXT, '"z"')},
}

MAX_RUNS = 1_000  # models one training command may train: restarts, replicates, orders
MAX_WIDTH = 1_000_000  # a model's widths, vocabulary and context, far above BERT-large's
# The training commands' settings files: "" the keys of all three, then each command's.
TRAINING: dict[str, dict[str, Key]] = {
    "": {"out": Key("out", TEXT, '"runs/cola"', note=PATH),
         "epochs": Key("epochs", NUMBER, "3", low=0, high=1_000, open_low=True),
         "batch_size": Key("batch_size", WHOLE, "32", low=1, high=65_536),
         "learning_rate": Key("learning_rate", NUMBER, "2e-5", low=0, high=10, open_low=True),
         "device": Key("device", TEXT, '"cuda"'),
         "dtype": Key("dtype", TEXT, '"bfloat16"')},
    "learning-curve": {
        "corpus": Key("corpus", TEXT, '"aochildes"', note='"aochildes" or a path'),
        "sizes": Key("sizes", WHOLES, "[75000, 150000]", low=1, high=1_000_000_000),
        "benchmark": Key("benchmark", TEXTS, '["zorro", "blimp"]'),
        "max_pairs": Key("max_pairs", WHOLE, "100", low=1),
        "kind": Key("kind", TEXT, '"causal"'),
        "replicates": Key("replicates", WHOLE, "1", low=1, high=MAX_RUNS),
        "save_steps": Key("save_steps", WHOLE, "500", low=1),
        "vocab_size": Key("vocab_size", WHOLE, "8192", low=1, high=MAX_WIDTH),
        **{name: Key(name, WHOLE, example, low=1, high=MAX_WIDTH) for name, example in (
            ("hidden_size", "128"), ("layers", "4"), ("heads", "4"),
            ("intermediate_size", "512"), ("max_length", "128"))}},
    "finetune": {
        "model": Key("model", TEXT, '"bert-base-uncased"', note="a hub id or a path"),
        "train": Key("train", TEXT, '"cola"', note='"cola" or a path'),
        "eval": Key("eval", TEXTS, '["dev.csv"]', note="paths"),
        "restarts": Key("restarts", WHOLE, "10", low=1, high=MAX_RUNS),
        "until_kept": Key("until_kept", FLAG, "true"),
        "select_on": Key("select_on", TEXT, '"out_of_domain_dev"')},
    "training-order": {
        "model": Key("model", TEXT, '"runs/words-600000"', note="a hub id or a path"),
        "train": Key("train", TEXT, '"cola"', note='"cola" or a path'),
        "test": Key("test", TEXT, '"li-adger"', note='"li-adger" or a path'),
        "shuffles": Key("shuffles", WHOLE, "10", low=1, high=MAX_RUNS),
        "seed": Key("seed", WHOLE, "0", low=0, high=MAX_SEED)},
}


def load(p: Path, what: str = "experiment file") -> dict:
    """The TOML document of file ``p`` (an experiment or a training command's settings:
    ``what``), or a DataError naming it; a nesting too deep for tomllib names its line."""
    try:
        text = p.read_text(encoding="utf-8")
        return tomllib.loads(text)
    except FileNotFoundError:
        raise DataError(f"no such {what}", source=str(p)) from None
    except RecursionError:  # tomllib recurses once per level of nesting
        lines = text.splitlines()
        n = max(range(len(lines)), key=lambda i: lines[i].count("[") + lines[i].count("{"))
        raise DataError(f"line {n + 1}: {lines[n].split('=')[0].strip()[:40]!r} holds "
                        "arrays or tables nested too deeply to read", source=str(p),
                        fix="give each key a value of the type docs/cli.md lists (at most "
                            "a list of strings or numbers, or a table of strings)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise DataError(f"unreadable {what} ({err})", source=str(p)) from None


def read(doc: dict, source: str) -> dict[str, object]:
    """The ``Experiment`` fields a TOML document sets, every table and value checked
    against ``SCHEMA``; the first unknown key or bad value is a DataError naming the key,
    the type expected and ``source``."""
    values: dict[str, object] = {}
    for table, keys in SCHEMA.items():
        section = doc if table == "" else doc.get(table, {})
        if not isinstance(section, dict):
            raise DataError(f"[{table}] must be {TABLE}, got {reprlib.repr(section)}",
                            source=source, fix=f"write the [{table}] header and its keys "
                                               "under it")
        tables = set(SCHEMA) - {""} if table == "" else set()
        values |= _read_table(section, keys, table, source, tables)
    return values


def read_training(doc: dict, command: str, source: str) -> dict[str, object]:
    """The settings a training command's TOML file (one table, keys = the flags' names)
    sets, each checked against ``TRAINING`` as ``read`` checks an experiment file."""
    return _read_table(doc, training_keys(command), "", source)


def training_keys(command: str) -> dict[str, Key]:
    """The keys of ``command``'s settings file: those of all three, then its own."""
    return {**TRAINING[""], **TRAINING[command]}


def check_flags(values: dict[str, object], keys: dict[str, Key]) -> None:
    """Flags given (not None) of ``keys``' types and bounds; else a DataError naming the
    flag, as the file's messages name the key."""
    for name, value in values.items():
        if name in keys and value is not None:
            _check(keys[name], f"--{name.replace('_', '-')}", value, None)


def _read_table(section: dict, keys: dict[str, Key], table: str, source: str,
                tables: set[str] = frozenset()) -> dict[str, object]:
    """``section``'s values by field, each checked; an unknown key (other than the names
    of ``tables``) is a DataError listing the keys."""
    unknown = sorted(set(section) - set(keys) - tables)
    if unknown:
        where = f"[{table}]" if table else "the top level"
        raise DataError(f"unknown key {unknown[0]!r} in {where}", source=source,
                        fix=f"use one of {sorted(keys)}")
    return {keys[name].field: _check(keys[name], f"[{table}] {name}" if table else name,
                                     value, source)
            for name, value in section.items() if name in keys}


def check(table: str, name: str, value: object, source: str | None = None) -> object:
    """``value`` of key ``name`` in ``table`` when it fits ``SCHEMA``, else a DataError
    naming the key, the type expected, what was given and ``source``."""
    return _check(SCHEMA[table][name], f"[{table}] {name}" if table else name, value, source)


def _check(key: Key, where: str, value: object, source: str | None) -> object:
    """``value`` when it fits ``key``, else a DataError naming ``where`` (the key, or the
    flag), the type expected, what was given and ``source``."""
    if key.fits(value):
        return value
    name = where.split()[-1].lstrip("-").replace("-", "_")
    example = f"[{json.dumps(value)}]" if key.type == TEXTS and isinstance(value, str) \
        else key.example  # one string for a list: that string, in a list
    raise DataError(f"{where} must be {key.expected()}, got {reprlib.repr(value)}",
                    source=source, fix=f"e.g. {name} = {example}")


def rows(schema: dict[str, dict[str, Key]] = SCHEMA) -> list[tuple[str, str, str, str]]:
    """The schema as docs/cli.md lists it: key (under its table; ``TRAINING``'s: the
    commands that take it), type and bounds, an example, a note."""
    def label(table: str, name: str) -> str:
        if schema is TRAINING:
            return f"`{name}` ({f'`{table}`' if table else 'all three'})"
        return f"`{f'[{table}] ' if table else ''}{name}`"

    return [(label(table, name), key.expected(),
             "`" + key.example.replace("|", "\\|") + "`", key.note)
            for table, keys in schema.items() for name, key in keys.items()]
