# Timing rows of ordinal's clm beside benchmarks/model_rows/clm.py (issue 44, item 8).
# Usage (from anywhere): Rscript benchmarks/model_rows/clm.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). Data: tests/fixtures/ordinal/wine.csv.gz and
# tests/fixtures/clm_soup.csv.gz (benchmarks/clm_reference.R). R 4.x, ordinal 2022.11.16.
suppressPackageStartupMessages(library(ordinal))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
wine <- read.csv(gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")))
wine$rating <- factor(wine$rating, levels = 1:5, ordered = TRUE)
wine$temp <- factor(wine$temp); wine$contact <- factor(wine$contact)
wine$w <- rep(1:3, length.out = nrow(wine))
soup <- read.csv(gzfile(file.path(fixtures, "clm_soup.csv.gz")), colClasses = "character")
soup$SURENESS <- factor(soup$SURENESS, levels = 1:6, ordered = TRUE)
for (v in c("PROD", "PRODID", "DAY")) soup[[v]] <- factor(soup[[v]])
soup_counts <- aggregate(n ~ SURENESS + PROD + DAY, data = transform(soup, n = 1), FUN = sum)
wf <- rating ~ temp + contact
wine_plain <- clm(wf, data = wine)
models <- list(
  clm_wine = function() clm(wf, data = wine),
  clm_wine_probit = function() clm(wf, data = wine, link = "probit"),
  clm_wine_cloglog = function() clm(wf, data = wine, link = "cloglog"),
  clm_wine_loglog = function() clm(wf, data = wine, link = "loglog"),
  clm_wine_cauchit = function() clm(wf, data = wine, link = "cauchit"),
  clm_wine_equidistant = function() clm(wf, data = wine, threshold = "equidistant"),
  clm_wine_symmetric = function() clm(wf, data = wine, threshold = "symmetric"),
  clm_wine_symmetric2 = function() clm(wf, data = wine, threshold = "symmetric2"),
  clm_wine_nominal = function() clm(wf, nominal = ~contact, data = wine),
  clm_wine_scale = function() clm(wf, scale = ~temp, data = wine),
  clm_wine_nom_scale = function() clm(rating ~ temp, nominal = ~contact, scale = ~temp, data = wine),
  clm_wine_weights = function() clm(wf, weights = w, data = wine),
  clm_soup_nominal = function() clm(SURENESS ~ PROD, nominal = ~DAY, data = soup),
  clm_soup_scale = function() clm(SURENESS ~ PRODID, scale = ~PROD, link = "probit", data = soup),
  clm_soup_symmetric2 = function() clm(SURENESS ~ PROD + DAY, threshold = "symmetric2", link = "cloglog", data = soup),
  clm_soup_weights = function() clm(SURENESS ~ PROD + DAY, weights = n, data = soup_counts),
  clm_wine_profile = function() { confint(wine_plain); wine_plain })
time_rows(models)
