"""The defaults every statistic shares: one place, so that ``evaluate``, ``bootstrap``,
``compare``, the reports and the command line cannot drift apart."""

DEFAULT_DELTAS = (0.5, 1.0, 5.0)
"""ADC thresholds in z-units (Sprouse & Almeida's small/medium/large judgment differences)."""

DEFAULT_MAX_DELTA = 5.0
"""Upper end of the ADC curve and of its area (``adc_auc``)."""

DEFAULT_N_BOOT = 10_000
"""Bootstrap resamples wherever none are given: ``stats.bootstrap``, ``evaluate(ci=True)``,
``compare``, ``compare_all``, the command line and reports. 10,000 resamples of every
metric for 8 models on LI-Adger take ~2 s (README); p-values then resolve down to 2e-4."""

DEFAULT_SEED = 0
"""The random seed wherever none is given: the same call gives the same intervals; ``None``
draws fresh entropy."""
