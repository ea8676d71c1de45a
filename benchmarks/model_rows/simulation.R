# Timing rows of prediction and simulation in R beside benchmarks/model_rows/simulation.py
# (issue 44, item 10), lme4 with its default settings: predict with re.form on Penicillin and
# grouseticks, simulate (1000 responses, re.form = NA) on sleepstudy and cbpp, bootMer
# (100 refits, fun = fixef, parallel = "no") and profile on sleepstudy. Each row fits the
# model and runs the function once.
# Usage (from anywhere): Rscript benchmarks/model_rows/simulation.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). R 4.2, lme4 1.1-31.
suppressPackageStartupMessages(library(lme4))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
grouse <- grouseticks
grouse$cHEIGHT <- grouse$HEIGHT - mean(grouse$HEIGHT)
fit_pen <- function() lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin)
fit_ss <- function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy)
fit_cbpp <- function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, binomial)
fit_ticks <- function() glmer(TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION), grouse, poisson)
models <- list(
  predict_re_form_penicillin = row(fit_pen, function(m) predict(m, re.form = ~(1 | plate))),
  predict_re_form_grouseticks = row(fit_ticks, function(m) predict(m, re.form = ~(1 | LOCATION),
                                                                   type = "response")),
  simulate_sleepstudy_1000 = row(fit_ss, function(m) simulate(m, 1000, seed = 1)),
  simulate_cbpp_1000 = row(fit_cbpp, function(m) simulate(m, 1000, seed = 1)),
  bootmer_sleepstudy_100 = row(fit_ss, function(m) bootMer(m, fixef, nsim = 100, seed = 1)),
  profile_sleepstudy = row(fit_ss, profile))
time_rows(models, quietly)
