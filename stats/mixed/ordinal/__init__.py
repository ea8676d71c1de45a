"""Ordinal ratings: ordinal's cumulative link models, ``clm`` and ``clmm`` (Christensen 2019):
links, thresholds, the design, Newton and Laplace fits, profiles, predictions and summaries.
"""
