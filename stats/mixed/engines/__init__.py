"""Engines that fit a mixed model's design: the ``Engine`` protocol, the adapters (own penalised
least squares, the own Laplace fit, glmm, bambi) and ``choose_engine``.
"""
