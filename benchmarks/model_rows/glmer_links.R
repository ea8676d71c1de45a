# Timing rows of lme4's glmer beside benchmarks/model_rows/glmer_links.py (issue 44, items 2 and 9):
# the poisson sqrt-link fit of grouseticks and glmer(nAGQ = 0) on cbpp and grouseticks, lme4's defaults.
# Usage (from anywhere): Rscript benchmarks/model_rows/glmer_links.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). Data: lme4's cbpp; grouseticks from tests/fixtures/lme4/grouseticks.csv.gz
# with sHEIGHT = scale(HEIGHT). R 4.2, lme4 1.1-31.
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 5
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(dirname(normalizePath(script)))), "tests", "fixtures")
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
cat("model,seconds,logLik\n")
for (name in names(models)) {
  run <- models[[name]]
  first <- system.time(m <- run())[["elapsed"]]
  k <- max(1, ceiling(0.2 / max(first, 1e-3)))
  times <- sapply(seq_len(reps), function(i) system.time(for (j in seq_len(k)) run())[["elapsed"]] / k)
  cat(sprintf("%s,%.6f,%.15g\n", name, median(times), as.numeric(logLik(m))))
}
