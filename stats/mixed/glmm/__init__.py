"""Generalised linear mixed models: the GLM families and links, lme4's Laplace approximation
(PIRLS) on sparse random-effects rows, and ``GlmerResult``.
"""
