"""A rating data set in the report: norming, rater reliability and correlations beside the
human ceiling (``analysis``), the trial-level judgment models (``fits``), and their tables,
figures and sections."""
