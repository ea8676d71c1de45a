"""What comes after a fit: F tests (Satterthwaite, Kenward-Roger), Wald tests, least-squares and
marginal means with their adjustments, model selection, refits with every optimiser, simulation,
the parametric bootstrap and likelihood profiles.
"""
