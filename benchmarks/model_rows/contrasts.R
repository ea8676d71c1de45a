# Timing rows of factor codings in R beside benchmarks/model_rows/contrasts.py (issue 44,
# items 1, 3 and 6), each package with its default settings.
# Usage (from anywhere): Rscript benchmarks/model_rows/contrasts.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). Data: MASS's oats (N made ordered, as
# benchmarks/contrasts_reference.R and tests/fixtures/contrasts_oats.csv), CO2, lme4's cbpp,
# ordinal's wine. R 4.2, lme4 1.1-31, lmerTest 3.1-3, ordinal 2022.11.16.
suppressPackageStartupMessages({library(lme4); library(ordinal)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
oats <- MASS::oats
oats$N <- factor(oats$N, ordered = TRUE)
co2 <- data.frame(CO2)
co2$Plant <- factor(as.character(co2$Plant))
data(wine, package = "ordinal")
sums <- list(Type = "contr.sum", Treatment = "contr.sum")
models <- list(
  lmer_oats_ordered = function() lmer(Y ~ N + V + (1 | B/V), oats),
  lmer_co2_treatment_column = function() lmer(uptake ~ Type + Treatment + (1 | Plant), co2),
  lmer_co2_sum_anova3 = function() {
    m <- lmerTest::lmer(uptake ~ Type * Treatment + conc + (1 | Plant), co2, contrasts = sums)
    anova(m, type = 3)
    m
  },
  glmer_cbpp_helmert = function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd),
                                        cbpp, binomial, contrasts = list(period = "contr.helmert")),
  clm_wine_sum = function() clm(rating ~ temp * contact, data = wine,
                                contrasts = list(temp = "contr.sum", contact = "contr.sum")),
  clmm_wine_sum = function() clmm(rating ~ temp + contact + (1 | judge), data = wine,
                                  contrasts = list(temp = "contr.sum", contact = "contr.helmert")))
time_rows(models, quietly)
