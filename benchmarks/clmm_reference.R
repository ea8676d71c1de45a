# ordinal's clmm beyond random intercepts: every ordinal constant in tests/stats/mixed/test_clmm_full.py.
# Usage (from the repository root; R 4.x with ordinal 2022.11.16, Matrix):
#   Rscript benchmarks/clmm_reference.R      writes the fixtures below (about a minute)
# Writes
#   tests/fixtures/clmm_soup.csv        ordinal's soup data (SURENESS, PROD, RESP)
#   tests/fixtures/clmm_reference.csv   model,quantity,name,value rows (values with 15
#                                       significant digits); the R/ordinal/Matrix versions in the
#                                       rows of model "session"
#   tests/fixtures/clmm_summaries.txt   R's printed summary() of each clmm below, each after a
#                                       line "=== MODEL"
# Models (ordinal's default controls):
#   wine_slope      clmm(rating ~ temp + contact + (1 + temp | judge), wine): random slopes
#   soup_slope      clmm(SURENESS ~ PROD + (1 + PROD | RESP), soup): 185 respondents, 1847 rows
#   wine_weights    clmm(rating ~ temp + contact + (1 | judge), weights = count) on wine with
#                   repeated (rating, temp, contact, judge) rows merged into one row of weight
#                   count (61 rows, 72 ratings): the fit of the 72 rows
#   wine_symmetric2 clmm(rating ~ temp + contact + (1 | judge), wine, threshold = "symmetric2")
#   wine_symmetric2_tight  the same, optimised further (method = "ucminf", gradTol = 1e-8)
#   wine_profile    the profile-likelihood interval of the judge SD: ordinal's clmm has no
#                   profile method; clmm2 (the same model and Laplace likelihood) has
#                   profile.clmm2, whose confint interpolates a spline through a grid of fits
#                   with the SD held fixed (sdFixed). Rows: confint(profile(m2, range, nSteps =
#                   60)) and the exact ends, uniroot (tol 1e-10) on the signed root of the
#                   likelihood ratio of the same sdFixed fits, at levels 0.95 and 0.99.
# Rows, by quantity:
#   MODEL logLik|AIC|BIC|nobs|edf|max.grad   (name empty)
#   MODEL coef|se NAME                coef(m) and sqrt(diag(vcov(m))) (ST1, ... included)
#   MODEL Theta NAME                  m$Theta
#   MODEL vcov ROW/COL                vcov(m)
#   MODEL ST GROUP/ROW/COL            m$ST (the lower-triangular factor of each term)
#   MODEL VarCorr GROUP/ROW/COL       VarCorr(m) (covariance matrices)
#   MODEL ranef|condVar GROUP/LEVEL/COLUMN   ranef(m, condVar = TRUE) and its "condVar"
#   MODEL seconds|cpu_seconds         median elapsed / CPU (user + system) time of 3 fits
#   wine_profile spline|exact LEVEL/END     the judge SD's interval ends (END lower or upper)
suppressPackageStartupMessages(library(ordinal))

script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
fixtures <- file.path(dirname(script_dir), "tests", "fixtures")
source(file.path(script_dir, "ordinal_fixtures.R"))
data(wine, package = "ordinal")
data(soup, package = "ordinal")
write.csv(soup[c("SURENESS", "PROD", "RESP")], file.path(fixtures, "clmm_soup.csv"), row.names = FALSE)

rows <- list()
add <- function(model, quantity, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = sprintf("%.15g", value))
}
timed <- function(f, reps = 3, kind = "elapsed") median(sapply(seq_len(reps), function(i) {
  t <- system.time(f())
  if (kind == "elapsed") t[["elapsed"]] else t[["user.self"]] + t[["sys.self"]]
}))

summaries <- character()
describe <- function(model, fit) {
  m <- fit()
  summaries <<- c(summaries, paste("===", model), capture.output(print(summary(m))))
  add(model, "logLik", "", as.numeric(logLik(m)))
  add(model, "AIC", "", AIC(m))
  add(model, "BIC", "", BIC(m))
  add(model, "nobs", "", nobs(m))
  add(model, "edf", "", m$edf)
  add(model, "max.grad", "", max(abs(m$gradient)))
  v <- vcov(m)
  co <- coef(m)
  for (nm in names(co)) add(model, "coef", nm, co[[nm]])
  se <- sqrt(diag(v))
  for (nm in names(se)) add(model, "se", nm, se[[nm]])
  for (nm in colnames(m$Theta)) add(model, "Theta", nm, m$Theta[1, nm])
  for (i in rownames(v)) for (j in colnames(v)) add(model, "vcov", paste(i, j, sep = "/"), v[i, j])
  vc <- VarCorr(m)
  for (g in names(m$ST)) {
    st <- m$ST[[g]]
    for (i in rownames(st)) for (j in colnames(st)) {
      add(model, "ST", paste(g, i, j, sep = "/"), st[i, j])
      add(model, "VarCorr", paste(g, i, j, sep = "/"), vc[[g]][i, j])
    }
  }
  re <- ranef(m, condVar = TRUE)
  for (g in names(re)) {
    cv <- as.matrix(attr(re[[g]], "condVar"))
    for (k in seq_len(nrow(re[[g]]))) for (j in seq_len(ncol(re[[g]]))) {
      nm <- paste(g, rownames(re[[g]])[k], colnames(re[[g]])[j], sep = "/")
      add(model, "ranef", nm, re[[g]][k, j])
      add(model, "condVar", nm, cv[k, j])
    }
  }
  add(model, "seconds", "", timed(fit))
  add(model, "cpu_seconds", "", timed(fit, kind = "cpu"))
}

agg <- aggregate(list(count = rep(1, nrow(wine))), by = wine[c("rating", "temp", "contact", "judge")], FUN = sum)
describe("wine_slope", function() clmm(rating ~ temp + contact + (1 + temp | judge), data = wine))
describe("soup_slope", function() clmm(SURENESS ~ PROD + (1 + PROD | RESP), data = soup))
describe("wine_weights", function() clmm(rating ~ temp + contact + (1 | judge), data = agg, weights = count))
describe("wine_symmetric2", function() clmm(rating ~ temp + contact + (1 | judge), data = wine,
                                            threshold = "symmetric2"))
# ordinal's default fit of wine_symmetric2 stops 4e-4 from the optimum (its logLik 2e-5 lower);
# ucminf with gradTol 1e-8 goes on to it
describe("wine_symmetric2_tight", function() clmm(rating ~ temp + contact + (1 | judge), data = wine,
                                                  threshold = "symmetric2",
                                                  control = clmm.control(method = "ucminf", gradTol = 1e-8,
                                                                         innerCtrl = "noWarn")))

# the judge SD's profile: clmm2 with the SD held fixed
m2 <- clmm2(rating ~ temp + contact, random = judge, data = wine, Hess = TRUE)
signed_root <- function(s) {
  fixed <- update(m2, Hess = FALSE, sdFixed = s)
  sign(s - m2$stDev) * sqrt(max(2 * (m2$logLik - fixed$logLik), 0))
}
pr <- profile(m2, range = c(0.3, 3.2), nSteps = 60, trace = 0)
for (level in c(0.95, 0.99)) {
  z <- qnorm((1 + level) / 2)
  spline <- confint(pr, level = level)
  lower <- uniroot(function(s) signed_root(s) + z, c(0.05, m2$stDev), tol = 1e-10)$root
  upper <- uniroot(function(s) signed_root(s) - z, c(m2$stDev, 5), tol = 1e-10)$root
  add("wine_profile", "spline", paste(level, "lower", sep = "/"), spline[1, 1])
  add("wine_profile", "spline", paste(level, "upper", sep = "/"), spline[1, 2])
  add("wine_profile", "exact", paste(level, "lower", sep = "/"), lower)
  add("wine_profile", "exact", paste(level, "upper", sep = "/"), upper)
}
add("wine_profile", "stDev", "", m2$stDev)
add("wine_profile", "logLik", "", m2$logLik)

out <- do.call(rbind, rows)
write_ordinal_fixtures(out, summaries, fixtures, "clmm")
cat("wrote", nrow(out), "rows\n")
