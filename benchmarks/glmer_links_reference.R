# Reference fits for tests/stats/mixed/test_glmer_links.py (issue 44, items 2, 5 and 9's nAGQ = 0):
# non-canonical links whose linear predictor can leave its domain, lme4's nAGQ > 1 logLik scale,
# lme4's deviance() of a GLMM, and glmer(nAGQ = 0).
# Usage: Rscript benchmarks/glmer_links_reference.R [OUTDIR]
#   OUTDIR default tests/fixtures (next to this script's folder); writes glmer_links_fits.csv:
#   one row per number: model, source, quantity, term, value; the first line is a comment with
#   the R and package versions (written with lme4 1.1-31, glmmTMB 1.1.5, R 4.2).
# Data: lme4's grouseticks (tests/fixtures/lme4/grouseticks.csv.gz, exported by glmer_families.R)
#   with sHEIGHT = scale(HEIGHT) (mean 0, SD 1 with n - 1: the tests compute the same); lme4's cbpp.
# Sources: lme4 (glmer, bobyqa with rhoend = 1e-10 and tolPwrss = 1e-10 unless said otherwise),
#   lme4_default (glmer's defaults), glmmTMB (defaults), glmmTMB_lme4start (glmmTMB started at
#   lme4's estimates). Quantities: fixef|term, se|term, logLik, theta|group (lme4's theta),
#   sd|group, deviance (lme4's deviance(m)), devresid_sum (sum of squared deviance residuals,
#   residuals(m, "deviance")), minus2logLik, converged (1 when no convergence message),
#   error (1 when the fit stops with an error), very_large_eigenvalue / large_eigenvalue_ratio
#   (1 when lme4's checkHess gives that message).
suppressPackageStartupMessages({library(lme4); library(glmmTMB)})
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
outdir <- if (length(args) > 0) args[1] else file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
rows <- list()
put <- function(model, source, quantity, term, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, source = source, quantity = quantity,
                                          term = term, value = as.numeric(value))
GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10, optCtrl = list(rhoend = 1e-10, maxfun = 1e5))

describe_lme4 <- function(model, m, source = "lme4") {
  fe <- fixef(m)
  put(model, source, "fixef", names(fe), unname(fe))
  put(model, source, "se", names(fe), sqrt(diag(as.matrix(vcov(m)))))
  put(model, source, "theta", names(getME(m, "theta")), unname(getME(m, "theta")))
  vc <- as.data.frame(VarCorr(m))
  vc <- vc[vc$grp != "Residual" & is.na(vc$var2), ]
  put(model, source, "sd", vc$grp, vc$sdcor)
  put(model, source, c("logLik", "minus2logLik", "deviance", "devresid_sum", "converged"), "",
      c(as.numeric(logLik(m)), -2 * as.numeric(logLik(m)), deviance(m),
        sum(residuals(m, "deviance")^2), length(m@optinfo$conv$lme4$messages) == 0))
}
describe_tmb <- function(model, t, source = "glmmTMB") {
  fe <- fixef(t)$cond
  put(model, source, "fixef", names(fe), unname(fe))
  put(model, source, "se", names(fe), sqrt(diag(vcov(t)$cond)))
  put(model, source, "logLik", "", as.numeric(logLik(t)))
  vc <- VarCorr(t)$cond
  put(model, source, "sd", names(vc), sapply(vc, function(v) sqrt(v[1, 1])))
  put(model, source, "converged", "", t$fit$convergence == 0 && isTRUE(t$sdr$pdHess))
}

gt <- read.csv(gzfile(file.path(outdir, "lme4", "grouseticks.csv.gz")),
               colClasses = c(INDEX = "character", BROOD = "character", YEAR = "character",
                              LOCATION = "character"))
stopifnot(nrow(gt) == 403, max(abs(gt$HEIGHT - grouseticks$HEIGHT)) == 0)
gt$sHEIGHT <- as.numeric(scale(gt$HEIGHT))

# --- item 2: the poisson sqrt link (mu = eta^2: eta < 0 is outside R's valideta) ------------
sf <- TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)
m <- glmer(sf, gt, family = poisson(link = "sqrt"), control = GCTRL)
describe_lme4("grouse_sqrt", m)
describe_lme4("grouse_sqrt", glmer(sf, gt, family = poisson(link = "sqrt")), "lme4_default")
t <- glmmTMB(sf, gt, family = poisson(link = "sqrt"))
describe_tmb("grouse_sqrt", t)
start <- list(beta = fixef(m), theta = log(getME(m, "theta")))
describe_tmb("grouse_sqrt", glmmTMB(sf, gt, family = poisson(link = "sqrt"), start = start),
             "glmmTMB_lme4start")
# the rows' linear predictor at lme4's fit: the sign of eta where TICKS > 0
eta <- predict(m, type = "link")
put("grouse_sqrt", "lme4", "min_eta_positive_y", "", min(eta[gt$TICKS > 0]))

# the poisson identity link on cbpp (mu = eta must stay > 0): lme4's PIRLS stops with NaN
pf <- incidence ~ period + (1 | herd)
r <- tryCatch(glmer(pf, cbpp, family = poisson(link = "identity"), control = GCTRL), error = function(e) NULL)
put("cbpp_identity", "lme4", "error", "", is.null(r))
describe_tmb("cbpp_identity", glmmTMB(pf, cbpp, family = poisson(link = "identity")))

# lme4's convergence checks: Days in ms (x 1000) gives the fixed effects' Hessian a very large
# eigenvalue; 1 for each of checkHess' messages lme4 gives
ss <- sleepstudy
ss$ms <- ss$Days * 1000
big <- glmer(Reaction ~ ms + (1 | Subject), ss, family = Gamma(link = "identity"))
msgs <- unlist(big@optinfo$conv$lme4$messages)
put("sleepstudy_ms_gamma_identity", "lme4", c("very_large_eigenvalue", "large_eigenvalue_ratio"), "",
    c(any(grepl("very large eigenvalue", msgs)), any(grepl("large eigenvalue ratio", msgs))))

# --- item 5: lme4's nAGQ > 1 logLik and lme4's deviance() ----------------------------------
cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
describe_lme4("cbpp_laplace", glmer(cf, cbpp, binomial, control = GCTRL))
describe_lme4("cbpp_agq9", glmer(cf, cbpp, binomial, nAGQ = 9, control = GCTRL))
tf <- TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)
describe_lme4("grouse_log_laplace", glmer(tf, gt, poisson, control = GCTRL))
describe_lme4("grouse_log_agq9", glmer(tf, gt, poisson, nAGQ = 9, control = GCTRL))

# --- item 9: nAGQ = 0 (beta inside PIRLS, only theta optimised) ----------------------------
describe_lme4("cbpp_agq0", glmer(cf, cbpp, binomial, nAGQ = 0, control = GCTRL))
describe_lme4("grouse_log_agq0", glmer(tf, gt, poisson, nAGQ = 0, control = GCTRL))
describe_lme4("cbpp_probit_agq0", glmer(cf, cbpp, binomial(link = "probit"), nAGQ = 0, control = GCTRL))

# --- docs/mixed/differences-from-r.md's table of 12 counts (as written there) -------------
herds <- data.frame(k = c(2, 5, 3, 8, 1, 6, 4, 9, 5, 7, 0, 4), n = 10, x = rep(0:1, 6),
                    g = rep(letters[1:6], each = 2))
hf <- cbind(k, n - k) ~ x + (1 | g)
describe_lme4("herds_laplace", glmer(hf, herds, binomial, control = GCTRL))
describe_lme4("herds_agq9", glmer(hf, herds, binomial, nAGQ = 9, control = GCTRL))
describe_lme4("herds_agq0", glmer(hf, herds, binomial, nAGQ = 0, control = GCTRL))

out <- do.call(rbind, rows)
path <- file.path(outdir, "glmer_links_fits.csv")
con <- file(path, "w")
writeLines(sprintf("# %s; lme4 %s; glmmTMB %s", R.version.string, packageVersion("lme4"),
                   packageVersion("glmmTMB")), con)
write.csv(transform(out, value = sprintf("%.15g", value)), con, row.names = FALSE)
close(con)
cat("wrote", nrow(out), "rows to", path, "\n")
