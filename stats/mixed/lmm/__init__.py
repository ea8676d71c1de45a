"""The linear mixed model's core: lme4's penalised least squares and profiled deviance (Bates et
al. 2015), ``lmer``/``glmer`` and ``make_result``, and ``LmerResult``.
"""
