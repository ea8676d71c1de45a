# Timing rows of model selection and tests in R beside benchmarks/model_rows/selection.py
# (issue 44, item 9), each package with its default settings: lmerTest's ranova, drop1
# (Satterthwaite, Kenward-Roger) and step on ham, car's Anova (types II, III) on a glmer fit
# of grouseticks, lme4's allFit on sleepstudy and cbpp (every optimiser it has installed) and
# isSingular. Each row fits the model and runs the function once.
# Usage (from anywhere): Rscript benchmarks/model_rows/selection.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). R 4.2, lme4 1.1-31, lmerTest 3.1-3, pbkrtest 0.5.2, car 3.1-1.
suppressPackageStartupMessages({library(lmerTest); library(car)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
ham3 <- Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer) +
  (1 | Information:Consumer)
fit_ham <- function() lmer(ham3, ham)
fit_ss <- function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy)
fit_cbpp <- function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, binomial)
fit_ticks <- function() glmer(TICKS ~ YEAR * cHEIGHT + (1 | LOCATION), grouseticks, poisson)
models <- list(
  ranova_ham = row(fit_ham, ranova),
  drop1_ham_satterthwaite = row(fit_ham, drop1),
  drop1_ham_kenward_roger = row(fit_ham, function(m) drop1(m, ddf = "Kenward-Roger")),
  step_ham = row(fit_ham, step),
  anova_ticks_type2 = row(fit_ticks, function(m) Anova(m, type = 2)),
  anova_ticks_type3 = row(fit_ticks, function(m) Anova(m, type = 3)),
  allfit_sleepstudy = row(fit_ss, function(m) allFit(m, verbose = FALSE)),
  allfit_cbpp = row(fit_cbpp, function(m) allFit(m, verbose = FALSE)),
  issingular_sleepstudy = row(fit_ss, function(m) isSingular(m, tol = 1e-4)))
time_rows(models, quietly)
