# lme4's GLMM deviance function and profile intervals: the constants of
# tests/stats/mixed/test_laplace.py and tests/stats/mixed/test_glmer_profile.py.
# Usage: Rscript benchmarks/glmer_profile.R [OUT.csv [DATADIR]]
#   OUT.csv  default tests/fixtures/glmer_profile.csv (next to this script's folder)
#   DATADIR  default tests/fixtures/lme4: lme4's grouseticks is exported there as
#            grouseticks.csv.gz when that file is absent (write.csv, 15 significant digits)
# Runs in about three minutes (lme4 1.1-31, glmmTMB 1.1.5, R 4.2).
#
# Rows: model,what,name,value (model names below; the first line is a comment with the
# R and package versions).
#   devfun rows: lme4's glmer(..., devFunOnly = TRUE) with glmerControl(tolPwrss = 1e-13)
#     at points p1..p4 of pars. lme4 takes log|L|^2 from the factor at the last-but-one PIRLS
#     iterate, so its devfun is as exact as PIRLS is converged: 1e-12 left 5e-9 relative at a
#     point of cbpp_slope, 1e-13 leaves at most 2.2e-9 (tests/stats/mixed/test_laplace.py),
#     and 1e-14 stops lme4's first stage ("PIRLS step-halvings failed").
#     pars = c(theta, beta): what = "par", name = "p<k>|<i>" (i = 1.. in lme4's order of pars)
#     and what = "devfun", name = "p<k>". p1 is the fitted optimum, p2..p4 move theta and beta.
#   profile rows (models cbpp, cbpp_agq9, cbpp_slope and grouse): what = "confint",
#     name = "<row>|lower|upper": confint(m, method = "profile") (lme4's spline interpolation
#     of its profile), rows .sig01 (the random intercept's SD, = theta for a GLMM; for
#     cbpp_slope .sig01 SD (Intercept), .sig02 their correlation, .sig03 SD pnum) and the
#     fixed effects;
#     what = "exact": the same limits found exactly on lme4's own devfun: the others
#     re-optimised by minqa::bobyqa (rhoend 1e-9) with one parameter held, the signed root
#     sign(v - v_hat) sqrt(dev(v) - dev_hat) solved by uniroot (tol 1e-11) for -+qnorm(0.975);
#     what = "optimum": the polished optimum (name = a parameter, or "deviance") those start from;
#     what = "seconds", name = "profile": elapsed time of profile(m) (median of 3).
#   glmmTMB rows (model cbpp_probit; glmmTMB fits, and glmer reports, the Laplace likelihood
#     with the observed information, which lme4's devfun is not for a probit link):
#     what = "tmb_confint": glmmTMB's confint(method = "profile") (tmbprofile, interpolated),
#     what = "tmb_exact": the same limits found exactly on glmmTMB's objective (nlminb with one
#     parameter held, uniroot tol 1e-11), what = "tmb_optimum": the polished optimum and its
#     deviance (-2 logLik); rows the fixed effects and .sig01 (the SD; TMB profiles log SD).
# Models (data: lme4's cbpp and grouseticks; pnum = as.numeric(period)):
#   cbpp          cbind(incidence, size - incidence) ~ period + (1 | herd), binomial, nAGQ 1
#   cbpp_agq9     the same, nAGQ = 9
#   cbpp_probit   the same with binomial(link = "probit")
#   cbpp_cloglog  the same with binomial(link = "cloglog")
#   cbpp_weights  incidence / size ~ period + (1 | herd), weights = size (prior weights)
#   cbpp_slope    cbind(incidence, size - incidence) ~ pnum + (1 + pnum | herd)
#   cbpp_offset   incidence ~ period + (1 | herd), poisson, offset = log(size)
#   grouse        TICKS ~ YEAR + cHEIGHT + (1 | LOCATION), poisson
#   grouse_agq9   the same, nAGQ = 9
#   grouse_pw     the same with prior weights w = 1 + (row %% 3) / 2
#   grouse_3re    TICKS ~ YEAR + cHEIGHT + (1 | INDEX) + (1 | BROOD) + (1 | LOCATION) (q = 584)
suppressPackageStartupMessages({library(lme4); library(minqa)})
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
root <- normalizePath(file.path(dirname(script), ".."))
out_csv <- if (length(args) >= 1) args[1] else file.path(root, "tests", "fixtures", "glmer_profile.csv")
datadir <- if (length(args) >= 2) args[2] else file.path(root, "tests", "fixtures", "lme4")

gpath <- file.path(datadir, "grouseticks.csv.gz")
if (!file.exists(gpath)) {
  dir.create(datadir, recursive = TRUE, showWarnings = FALSE)
  con <- gzfile(gpath, "w")
  write.csv(grouseticks, con, row.names = FALSE)
  close(con)
  back <- read.csv(gpath)
  stopifnot(nrow(back) == nrow(grouseticks), max(abs(back$cHEIGHT - grouseticks$cHEIGHT)) < 1e-12)
}

rows <- list()
put <- function(model, what, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, what = what, name = name, value = value)
}

cbpp$pnum <- as.numeric(cbpp$period)
gt <- grouseticks
gt$w <- 1 + (seq_len(nrow(gt)) %% 3) / 2
CTRL <- glmerControl(tolPwrss = 1e-13)
BOBYQA <- glmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-9))
CBPP <- cbind(incidence, size - incidence) ~ period + (1 | herd)
GROUSE <- TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)
models <- list(  # each a function of glmer's nAGQ, control, devFunOnly
  cbpp = function(...) glmer(CBPP, cbpp, binomial, ...),
  cbpp_agq9 = function(nAGQ, ...) glmer(CBPP, cbpp, binomial, nAGQ = 9, ...),
  cbpp_probit = function(...) glmer(CBPP, cbpp, binomial(link = "probit"), ...),
  cbpp_cloglog = function(...) glmer(CBPP, cbpp, binomial(link = "cloglog"), ...),
  cbpp_weights = function(...) glmer(incidence / size ~ period + (1 | herd), cbpp, binomial,
                                     weights = size, ...),
  cbpp_slope = function(...) glmer(cbind(incidence, size - incidence) ~ pnum + (1 + pnum | herd),
                                   cbpp, binomial, ...),
  cbpp_offset = function(...) glmer(incidence ~ period + (1 | herd), cbpp, poisson,
                                    offset = log(size), ...),
  grouse = function(...) glmer(GROUSE, gt, poisson, ...),
  grouse_agq9 = function(nAGQ, ...) glmer(GROUSE, gt, poisson, nAGQ = 9, ...),
  grouse_pw = function(...) glmer(GROUSE, gt, poisson, weights = w, ...),
  grouse_3re = function(...) glmer(TICKS ~ YEAR + cHEIGHT + (1 | INDEX) + (1 | BROOD) + (1 | LOCATION),
                                   gt, poisson, ...)
)
fit_model <- function(spec, devFunOnly = FALSE) {
  if (devFunOnly) spec(nAGQ = 1, control = CTRL, devFunOnly = TRUE) else spec(nAGQ = 1, control = BOBYQA)
}

fits <- list()
for (name in names(models)) {
  spec <- models[[name]]
  m <- suppressWarnings(fit_model(spec))
  fits[[name]] <- m
  dd <- fit_model(spec, devFunOnly = TRUE)
  p1 <- c(getME(m, "theta"), fixef(m))
  nt <- length(getME(m, "theta"))
  shift <- seq_along(fixef(m)) %% 2 - 0.5  # -+0.5 in turn
  points <- list(p1, c(p1[1:nt] * 0.5, fixef(m) + 0.3 * shift),
                 c(p1[1:nt] * 1.7 + 0.05, fixef(m) - 0.2 * shift), c(p1[1:nt] * 0, fixef(m)))
  for (k in seq_along(points)) {
    p <- unname(points[[k]])
    for (i in seq_along(p)) put(name, "par", sprintf("p%d|%d", k, i), p[i])
    put(name, "devfun", sprintf("p%d", k), dd(p))
  }
}

# exact profile limits on lme4's devfun, in the parameters of lme4's profile: for the one
# random-effects term, its SD (.sig01), or SD, correlation, SD (.sig01-.sig03) for two
# coefficients, then the fixed effects
exact_limits <- function(spec, m, z = qnorm(0.975)) {
  dd <- fit_model(spec, devFunOnly = TRUE)
  cnms <- getME(m, "cnms")
  nc <- length(cnms[[1]])
  stopifnot(length(cnms) == 1, nc <= 2)
  nv <- if (nc == 1) 1 else 3
  to_pars <- function(s) {  # -> c(theta, beta): theta = (sd1, sd2 cor, sd2 sqrt(1 - cor^2))
    if (nc == 1) s else c(s[1], s[3] * s[2], s[3] * sqrt(1 - s[2]^2), s[-(1:3)])
  }
  f <- function(s) dd(to_pars(s))
  sdcor <- as.data.frame(VarCorr(m))$sdcor  # sd1 (, sd2, cor)
  start <- if (nc == 1) sdcor else sdcor[c(1, 3, 2)]
  p <- length(fixef(m))
  lower <- c(if (nc == 1) 0 else c(0, -1, 0), rep(-Inf, p))
  upper <- c(if (nc == 1) Inf else c(Inf, 1, Inf), rep(Inf, p))
  polish <- bobyqa(c(start, fixef(m)), f, lower, upper, control = list(rhoend = 1e-10, maxfun = 1e5))
  hat <- polish$par
  dev_hat <- polish$fval
  names(hat) <- c(sprintf(".sig%02d", seq_len(nv)), names(fixef(m)))
  se <- sqrt(diag(as.matrix(vcov(m))))
  out <- list(hat = hat, dev = dev_hat, lower = c(), upper = c())
  for (j in seq_along(hat)) {
    warm <- hat[-j]
    zeta <- function(v) {
      fn <- function(x) { s <- hat; s[j] <- v; s[-j] <- x; f(s) }
      opt <- bobyqa(warm, fn, lower[-j], upper[-j], control = list(rhoend = 1e-9, maxfun = 1e5))
      warm <<- opt$par
      sign(v - hat[j]) * sqrt(max(opt$fval - dev_hat, 0))
    }
    step <- if (j > nv) se[j - nv] else if (nc == 2 && j == 2) 0.25 else 0.25 * hat[j]
    lims <- c()
    for (s in c(-1, 1)) {
      warm <- hat[-j]
      bound <- if (s < 0) lower[j] else upper[j]
      b <- hat[j] + s * step
      repeat {  # an SD's or a correlation's profile may not reach -+z before its bound
        if (s * (b - bound) >= 0) { b <- bound; break }
        if (s * zeta(b) >= z) break
        b <- b + s * step
      }
      if (b == bound && s * zeta(bound) < z) { lims <- c(lims, bound); next }
      lims <- c(lims, uniroot(function(v) zeta(v) - s * z, sort(c(hat[j] + s * step * 1e-3, b)),
                              tol = 1e-11)$root)
    }
    out$lower[names(hat)[j]] <- lims[1]
    out$upper[names(hat)[j]] <- lims[2]
  }
  out
}

for (name in c("cbpp", "cbpp_agq9", "cbpp_slope", "grouse")) {
  m <- fits[[name]]
  ci <- confint(m, method = "profile")
  for (r in rownames(ci)) {
    put(name, "confint", paste0(r, "|lower"), ci[r, 1])
    put(name, "confint", paste0(r, "|upper"), ci[r, 2])
  }
  ex <- exact_limits(models[[name]], m)
  for (r in names(ex$hat)) {
    put(name, "optimum", r, ex$hat[[r]])
    put(name, "exact", paste0(r, "|lower"), ex$lower[[r]])
    put(name, "exact", paste0(r, "|upper"), ex$upper[[r]])
  }
  put(name, "optimum", "deviance", ex$dev)
  put(name, "seconds", "profile", median(replicate(3, system.time(profile(m))[["elapsed"]])))
}

# glmmTMB's profile of the probit fit: the likelihood glmer's fits report (observed
# information in the Laplace curvature), which lme4's devfun is not for a non-canonical link
tmb <- glmmTMB::glmmTMB(CBPP, cbpp, family = binomial(link = "probit"))
tmb_names <- c(names(glmmTMB::fixef(tmb)$cond), ".sig01")  # TMB's order: beta, log SD
ci <- confint(tmb, method = "profile")  # tmbprofile, interpolated
for (i in seq_along(tmb_names)) {
  tr <- if (i == length(tmb_names)) exp else identity  # log SD -> SD
  put("cbpp_probit", "tmb_confint", paste0(tmb_names[i], "|lower"), tr(ci[i, 1]))
  put("cbpp_probit", "tmb_confint", paste0(tmb_names[i], "|upper"), tr(ci[i, 2]))
}
ex <- local({  # exact limits on glmmTMB's objective (TMB's Laplace -log L, obj$fn): nlminb
  # re-optimises the others with one parameter held, uniroot (tol 1e-11) solves for the limit
  fn <- tmb$obj$fn
  gr <- tmb$obj$gr
  ctl <- list(rel.tol = 1e-14, x.tol = 1e-12, eval.max = 1e4, iter.max = 1e4)
  polish <- nlminb(tmb$fit$par, fn, gr, control = ctl)
  hat <- polish$par
  dev_hat <- 2 * polish$objective
  se <- sqrt(diag(solve(optimHess(hat, fn, gr))))
  lims <- matrix(NA, length(hat), 2)
  for (j in seq_along(hat)) {
    zeta <- function(v) {
      full <- function(x) { p <- hat; p[j] <- v; p[-j] <- x; p }
      opt <- nlminb(hat[-j], function(x) fn(full(x)), function(x) gr(full(x))[-j], control = ctl)
      sign(v - hat[j]) * sqrt(max(2 * opt$objective - dev_hat, 0))
    }
    for (s in 1:2) {
      sg <- c(-1, 1)[s]
      b <- hat[j] + sg * se[j]
      while (sg * zeta(b) < qnorm(0.975)) b <- b + sg * se[j]
      lims[j, s] <- uniroot(function(v) zeta(v) - sg * qnorm(0.975), sort(c(hat[j], b)), tol = 1e-11)$root
    }
  }
  list(hat = hat, dev = dev_hat, lims = lims)
})
for (i in seq_along(tmb_names)) {
  tr <- if (i == length(tmb_names)) exp else identity
  put("cbpp_probit", "tmb_exact", paste0(tmb_names[i], "|lower"), tr(ex$lims[i, 1]))
  put("cbpp_probit", "tmb_exact", paste0(tmb_names[i], "|upper"), tr(ex$lims[i, 2]))
  put("cbpp_probit", "tmb_optimum", tmb_names[i], tr(ex$hat[i]))
}
put("cbpp_probit", "tmb_optimum", "deviance", ex$dev)

out <- do.call(rbind, rows)
con <- file(out_csv, "w")
writeLines(sprintf("# %s, lme4 %s, Matrix %s, minqa %s, glmmTMB %s, TMB %s", R.version.string,
                   packageVersion("lme4"), packageVersion("Matrix"), packageVersion("minqa"),
                   packageVersion("glmmTMB"), packageVersion("TMB")), con)
write.csv(transform(out, value = sprintf("%.15g", value)), con, row.names = FALSE, quote = c(1, 2, 3))
close(con)
cat("wrote", nrow(out), "rows to", out_csv, "\n")
