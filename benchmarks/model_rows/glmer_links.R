# Timing rows of lme4's glmer beside benchmarks/model_rows/glmer_links.py (issue 44, items 2 and 9):
# the poisson sqrt-link fit of grouseticks and glmer(nAGQ = 0) on cbpp and grouseticks, lme4's defaults.
# Usage (from anywhere): Rscript benchmarks/model_rows/glmer_links.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). Data: lme4's cbpp; grouseticks from tests/fixtures/lme4/grouseticks.csv.gz
# with sHEIGHT = scale(HEIGHT). R 4.2, lme4 1.1-31.
suppressPackageStartupMessages(library(lme4))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
gt <- read.csv(gzfile(file.path(fixtures, "lme4", "grouseticks.csv.gz")),
               colClasses = c(INDEX = "character", BROOD = "character", YEAR = "character",
                              LOCATION = "character"))
gt$sHEIGHT <- as.numeric(scale(gt$HEIGHT))
cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
tf <- TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)
models <- list(
  grouseticks_poisson_sqrt = function() glmer(tf, gt, family = poisson(link = "sqrt")),
  cbpp_nagq0 = function() glmer(cf, cbpp, family = binomial, nAGQ = 0),
  cbpp_probit_nagq0 = function() glmer(cf, cbpp, family = binomial(link = "probit"), nAGQ = 0),
  grouseticks_nagq0 = function() glmer(tf, gt, family = poisson, nAGQ = 0))
time_rows(models)
