"""Generalised linear mixed models: the GLM families and links, and lme4's Laplace approximation
(PIRLS) on sparse random-effects rows.
"""
