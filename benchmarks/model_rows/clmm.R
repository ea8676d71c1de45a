# Timing rows of ordinal's clmm beside benchmarks/model_rows/clmm.py (issue 44, item 8).
# Usage (from anywhere): Rscript benchmarks/model_rows/clmm.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). Data: tests/fixtures/ordinal/wine.csv.gz and
# tests/fixtures/clmm_soup.csv (benchmarks/clmm_reference.R). R 4.x, ordinal 2022.11.16.
# clmm_wine_profile: ordinal's clmm has no profile method; the same model by clmm2, its
# profile (default 20 steps over its Wald range) and confint, as benchmarks/clmm_reference.R.
suppressPackageStartupMessages(library(ordinal))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
wine <- read.csv(gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")), colClasses = c(judge = "character", bottle = "character"))
wine$rating <- factor(wine$rating, levels = 1:5, ordered = TRUE)
for (v in c("temp", "contact", "judge", "bottle")) wine[[v]] <- factor(wine[[v]])
counts <- aggregate(list(count = rep(1, nrow(wine))), by = wine[c("rating", "temp", "contact", "judge")], FUN = sum)
soup <- read.csv(file.path(fixtures, "clmm_soup.csv"), colClasses = c(RESP = "character"))
soup$SURENESS <- factor(soup$SURENESS, levels = 1:6, ordered = TRUE)
soup$PROD <- factor(soup$PROD); soup$RESP <- factor(soup$RESP)
wf <- rating ~ temp + contact
m2 <- clmm2(wf, random = judge, data = wine, Hess = TRUE)
models <- list(
  clmm_wine = function() clmm(rating ~ temp + contact + (1 | judge), data = wine),
  clmm_wine_agq10 = function() clmm(rating ~ temp + contact + (1 | judge), data = wine, nAGQ = 10),
  clmm_wine_ghq10 = function() clmm(rating ~ temp + contact + (1 | judge), data = wine, nAGQ = -10),
  clmm_wine_three = function() clmm(rating ~ temp + contact + (1 | judge) + (1 | bottle) + (1 | judge:temp), data = wine),
  clmm_wine_slope = function() clmm(rating ~ temp + contact + (1 + temp | judge), data = wine),
  clmm_soup_slope = function() clmm(SURENESS ~ PROD + (1 + PROD | RESP), data = soup),
  clmm_wine_weights = function() clmm(rating ~ temp + contact + (1 | judge), data = counts, weights = count),
  clmm_wine_symmetric2 = function() clmm(rating ~ temp + contact + (1 | judge), data = wine, threshold = "symmetric2"),
  clmm_wine_profile = function() { confint(profile(m2, trace = 0)); m2 })
time_rows(models)
