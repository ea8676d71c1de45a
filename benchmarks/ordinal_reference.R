# ordinal's reference fits: every ordinal constant in tests/stats/mixed/test_ordinal.py.
# Usage (from the repository root):
#   Rscript benchmarks/ordinal_reference.R              writes the fixtures below
#   Rscript benchmarks/ordinal_reference.R --timing N   prints only "seconds,<median>": the median
#                                                       elapsed time of N default clmm fits of the
#                                                       MegaAcceptability design (bench_ordinal.py)
# Reads MegaAcceptability v1 from $ACCEPTABILITY_DATA_DIR (default ../shared/data):
# megaacceptability/mega-acceptability-v1.zip. Writes
#   tests/fixtures/ordinal/wine.csv.gz      ordinal's wine data set (Randall 1989), as gzip CSV
#   tests/fixtures/ordinal_reference.csv    model,quantity,name,value rows (write.csv, values with
#                                           15 significant digits), the R/ordinal/Matrix versions
#                                           in the rows of model "session"
#   tests/fixtures/ordinal_summaries.txt    R's printed summary() of each model and the anova
#                                           tables, each after a line "=== NAME"
#
# Models: wine, rating ~ temp + contact by clm with the flexible, symmetric and equidistant
# thresholds and the logit, probit, cloglog, loglog and cauchit links; by clmm with
# (1 | judge), Laplace, adaptive quadrature (nAGQ = 10) and non-adaptive quadrature
# (nAGQ = -10), and with three terms (1 | judge) + (1 | bottle) + (1 | judge:temp) by Laplace
# (bottle's SD is 0, on the boundary); wine4 (ratings 4 and 5 merged) by clm with symmetric
# thresholds (an odd number of them). MegaAcceptability ("mega"): the 12 verbs first by name
# (C-locale order, as Python's sorted), all their frames and participants, rows with a
# response: 3000 ratings, 408 participants, 600 items (verb | frame);
# rating ~ passive + (1 | participant) + (1 | item), passive = the frame starts with "NP was ",
# its null model rating ~ 1 + ... for the anova, and rating ~ passive by clm with symmetric
# thresholds (6 of them). tests/stats/mixed/test_ordinal.py builds
# the same subset (mega_frame()).
#
# Every fit uses ordinal's default controls; "mega|fit_seconds" is the median elapsed time of 3
# default fits. ordinal stops its clmm fits early (nlminb on a numerical gradient of a likelihood
# whose inner Newton loop stops at max|gradient| 1e-4): max.grad is 1e-5 for wine and 3e-3 for
# mega, so its estimates sit about 1e-5 from the optimum (tighter controls do not get closer:
# its inner loop then fails to converge).
#
# Rows, by quantity (MODEL is e.g. wine_clm_flexible):
#   MODEL logLik|AIC|BIC|nobs|edf|cond.H   (name empty)
#   MODEL coef|se NAME                     coef(m) and sqrt(diag(vcov(m))) (clmm: also ST1, ...)
#   MODEL Theta NAME                       m$Theta, names "1|2", ...
#   MODEL vcov ROW/COL                     vcov(m)
#   MODEL prob ROW/LEVEL                   predict(m, newdata = grid, type = "prob"), grid =
#                                          temp x contact (cold/no, warm/no, cold/yes, warm/yes)
#   MODEL ST GROUP                         random-intercept SD
#   MODEL ranef|condVar GROUP/LEVEL        ranef(m, condVar = TRUE) and its "condVar" (not for
#                                          mega_clmm_null, the null model of the anova)
#   ANOVA no.par|AIC|logLik|LR.stat|df|Pr(>Chisq) ROW   anova(m0, m1), ROW m0 or m1
suppressPackageStartupMessages(library(ordinal))

args <- commandArgs(trailingOnly = TRUE)
script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
root <- dirname(script_dir)
data_dir <- Sys.getenv("ACCEPTABILITY_DATA_DIR", file.path(dirname(root), "shared", "data"))

source(file.path(script_dir, "mega_subset.R"))
source(file.path(script_dir, "ordinal_fixtures.R"))
mega <- mega_subset(data_dir)

timed <- function(reps) {
  secs <- sapply(seq_len(reps), function(i) system.time(
    clmm(rating ~ passive + (1 | participant) + (1 | item), data = mega))[["elapsed"]])
  median(secs)
}

if (length(args) >= 1 && args[1] == "--timing") {
  cat(sprintf("seconds,%.4f\n", timed(as.integer(args[2]))))
  quit(save = "no")
}

fixtures <- file.path(root, "tests", "fixtures")
dir.create(file.path(fixtures, "ordinal"), showWarnings = FALSE, recursive = TRUE)
data(wine, package = "ordinal")
write.csv(wine, gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")), row.names = FALSE)

rows <- list()
add <- function(model, quantity, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = sprintf("%.15g", value))
}
summaries <- character()
keep_summary <- function(name, obj) {
  summaries <<- c(summaries, paste("===", name), capture.output(print(obj)))
}

describe <- function(model, m, modes = TRUE) {
  add(model, "logLik", "", as.numeric(logLik(m)))
  add(model, "AIC", "", AIC(m))
  add(model, "BIC", "", BIC(m))
  add(model, "nobs", "", nobs(m))
  add(model, "edf", "", m$edf)
  s <- summary(m)
  add(model, "cond.H", "", if (inherits(m, "clmm")) s$condHess else s$cond.H)
  v <- vcov(m)
  co <- coef(m)
  se <- sqrt(diag(v))
  for (nm in names(co)) add(model, "coef", nm, co[[nm]])
  for (nm in names(se)) add(model, "se", nm, se[[nm]])
  for (nm in colnames(m$Theta)) add(model, "Theta", nm, m$Theta[1, nm])
  for (i in rownames(v)) for (j in colnames(v)) add(model, "vcov", paste(i, j, sep = "/"), v[i, j])
  if (inherits(m, "clmm")) {
    for (g in names(m$ST)) add(model, "ST", g, m$ST[[g]][1, 1])
  }
  if (inherits(m, "clmm") && modes) {
    re <- ranef(m, condVar = TRUE)
    for (g in names(re)) {
      lev <- rownames(re[[g]])
      for (k in seq_along(lev)) {
        add(model, "ranef", paste(g, lev[k], sep = "/"), re[[g]][k, 1])
        add(model, "condVar", paste(g, lev[k], sep = "/"), attr(re[[g]], "condVar")[k, 1])
      }
    }
  }
}

describe_anova <- function(model, tab) {
  rownames(tab) <- c("m0", "m1")
  for (col in colnames(tab)) for (r in rownames(tab)) add(model, col, r, tab[r, col])
}

grid <- expand.grid(temp = levels(wine$temp), contact = levels(wine$contact))
fits <- list()
for (th in c("flexible", "symmetric", "equidistant")) {
  fits[[paste0("wine_clm_", th)]] <- clm(rating ~ temp + contact, data = wine, threshold = th)
}
for (ln in c("probit", "cloglog", "loglog", "cauchit")) {
  fits[[paste0("wine_clm_", ln)]] <- clm(rating ~ temp + contact, data = wine, link = ln)
}
for (nm in names(fits)) {
  describe(nm, fits[[nm]])
  p <- predict(fits[[nm]], newdata = grid, type = "prob")$fit
  for (i in seq_len(nrow(p))) for (j in colnames(p)) add(nm, "prob", paste(i, j, sep = "/"), p[i, j])
  keep_summary(nm, summary(fits[[nm]]))
}
# symmetric thresholds with an odd number of thresholds (4 categories) and with 6 (7 categories)
wine4 <- transform(wine, rating = factor(pmin(as.integer(rating), 4L), levels = 1:4, ordered = TRUE))
more <- list(wine4_clm_symmetric = clm(rating ~ temp + contact, data = wine4, threshold = "symmetric"),
             mega_clm_symmetric = clm(rating ~ passive, data = mega, threshold = "symmetric"))
for (nm in names(more)) {
  describe(nm, more[[nm]])
  keep_summary(nm, summary(more[[nm]]))
}
wine_temp <- clm(rating ~ temp, data = wine)
anova_clm <- anova(wine_temp, fits$wine_clm_flexible)
describe_anova("anova_wine_clm", anova_clm)
keep_summary("anova_wine_clm", anova_clm)

mixed <- list(
  wine_clmm_laplace = clmm(rating ~ temp + contact + (1 | judge), data = wine),
  wine_clmm_agq10 = clmm(rating ~ temp + contact + (1 | judge), data = wine, nAGQ = 10),
  wine_clmm_ghq10 = clmm(rating ~ temp + contact + (1 | judge), data = wine, nAGQ = -10),
  wine_clmm_three = clmm(rating ~ temp + contact + (1 | judge) + (1 | bottle) + (1 | judge:temp),
                         data = wine),
  mega_clmm_laplace = clmm(rating ~ passive + (1 | participant) + (1 | item), data = mega)
)
for (nm in names(mixed)) {
  describe(nm, mixed[[nm]])
  keep_summary(nm, summary(mixed[[nm]]))
}
mega_null <- clmm(rating ~ 1 + (1 | participant) + (1 | item), data = mega)
describe("mega_clmm_null", mega_null, modes = FALSE)
anova_mega <- anova(mega_null, mixed$mega_clmm_laplace)
describe_anova("anova_mega_clmm", anova_mega)
keep_summary("anova_mega_clmm", anova_mega)
add("mega", "fit_seconds", "", timed(3))

out <- do.call(rbind, rows)
write_ordinal_fixtures(out, summaries, fixtures, "ordinal")
cat("wrote", nrow(out), "rows and", length(summaries), "summary lines\n")
