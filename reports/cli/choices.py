"""The names the command line offers that its parser needs to print ``--help``: kept in a
module that imports nothing, so that ``acceptability --help`` does not load pandas
(issue 42). The lists of the library's own layers are imported from their light modules:
scoring methods and normalisations from ``scoring.registry``, normings and defaults from
``stats.defaults``."""

from __future__ import annotations

#: The datasets ``--dataset`` and an experiment file's ``data.dataset`` name.
DATASETS = ("li-adger", "blimp", "zorro", "marvin-linzen", "syntaxgym", "cola", "lau2020",
            "megaacceptability", "example", "turblimp", "rublimp", "clams", "sling",
            "multiblimp")
#: Scoring precisions (``--dtype``; docs/scoring-speed.md).
DTYPES = ("float32", "bfloat16")
#: What a mixed model fits (``--level``): ``reports.ratings.fits.LEVELS``, the experiment
#: file's (``analysis.level``; a test checks them equal).
LEVELS = ("auto", "trial", "sentence")
