"""The defaults every statistic shares: one place, so that
[evaluate][acceptability.stats.evaluate.evaluate],
[bootstrap][acceptability.stats.inference.bootstrap.bootstrap],
[compare][acceptability.stats.compare.compare], the reports and the command line cannot
drift apart.

Examples
--------
>>> from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED
>>> DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED
((0.5, 1.0, 5.0), 10000, 0)
"""

DEFAULT_DELTAS = (0.5, 1.0, 5.0)
"""ADC thresholds in z-units (Sprouse & Almeida's small/medium/large judgment differences)."""

DEFAULT_MAX_DELTA = 5.0
"""Upper end of the ADC curve and of its area (``adc_auc``,
[adc_area][acceptability.stats.metrics.adc_area])."""

DEFAULT_N_BOOT = 10_000
"""Bootstrap resamples wherever none are given: ``stats.bootstrap``, ``evaluate(ci=True)``,
``compare``, ``compare_all``, the command line and reports. 10,000 resamples of every
metric for 8 models on LI-Adger take ~2 s (README); p-values then resolve down to 2e-4."""

DEFAULT_SEED = 0
"""The random seed wherever none is given: the same call gives the same intervals; ``None``
draws fresh entropy."""

DEFAULT_FORMULA = "human ~ score + (1 + score | phenomenon)"
"""The sentence-level judgment model of reports and ``acceptability fit`` where the sentences
have human judgments and phenomena (``reports.analysis.resolve_formula``)."""

NORMINGS = ("z", "rank", "ordinal", "mean")
"""How trial-level ratings become one human value per sentence
([normalize_ratings][acceptability.stats.ratings.normalize.normalize_ratings]; the first is
the default)."""
