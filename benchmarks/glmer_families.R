# Reference fits of GLMM families, links, prior weights, offsets and observation-level random
# effects: every R number in tests/stats/mixed/test_glmer_families.py.
# Usage: Rscript benchmarks/glmer_families.R [OUT.csv [DATADIR]]
#   OUT     default tests/fixtures/glmer_families.csv (next to this script's folder)
#   DATADIR default tests/fixtures/lme4: the data sets it exports as gzip CSV (grouseticks.csv.gz,
#           verbagg_agg.csv.gz; sleepstudy and cbpp are exported by lme4_reference.R), each read
#           back and compared with the original.
# Writes one row per number: model, source, quantity, term, value; the first line is a comment
# with the R and package versions. Sources:
#   lme4     glmer / glmer.nb / lmer fits, bobyqa with a tight end radius and tolPwrss = 1e-10
#            (as lme4_reference.R, so the numbers are the optimum rather than where lme4's
#            default optimizer stops); "fit_seconds" is the median elapsed time of 3 refits
#            with lme4's default controls.
#   glmmTMB  glmmTMB's fits with its defaults (the Laplace approximation with the dispersion
#            as a parameter and the observed information at the mode: the marginal likelihood
#            that glmm maximises too); "fit_seconds" likewise. glmmTMB_lme4start: glmmTMB
#            started at lme4's estimates; glmmTMB_zero: its objective with the inner search
#            started from b = 0 at every evaluation (the poisson sqrt link, see below).
#   laplaceR the Laplace approximation written out below for one scalar random intercept
#            (inner mode by optimize(), the observed curvature there written out, outer
#            optim() over beta, log SD, log dispersion, SEs from numDeriv's Hessian), used where glmmTMB has no such family
#            (inverse.gaussian) or fails (Gamma inverse link: NA logLik). It is checked
#            against glmmTMB on the Gamma log and identity links and gaussian log link first
#            (stopifnot: logLik within 1e-5, fixed effects within 0.01 SE).
# Quantities: fixef|<term>, se|<term>, logLik, npar (df of logLik), nobs, sigma (sigma(m): lme4's
#   sqrt(pwrss / n) for a dispersion GLMM, glmmTMB's and laplaceR's sqrt(phi)), dispersion (phi of
#   Gamma / inverse Gaussian / gaussian; the negative binomial's size), sd|<group> (SD of each
#   random intercept), REMLcrit (lmer), singular (1/0), fit_seconds; and lme4's
#   "logLik_laplace": lme4's estimates on glmmTMB's scale, the number that says which of the two
#   reached the higher likelihood. For binomial, poisson and the negative binomial it is
#   glmmTMB's objective at lme4's estimates: lme4's own logLik equals it for a canonical link,
#   but for another (probit, cloglog, sqrt, the negative binomial's log) lme4's log|L| uses the
#   expected information where glmmTMB's uses the observed. For the dispersion families it is
#   the laplaceR log-likelihood at lme4's fixed effects and random-effect SD (sigma x theta)
#   with phi maximised: lme4's own logLik of such a fit is its Laplace deviance with the
#   family's aic() (dispersion = deviance / n, plus 2), not a marginal likelihood at any phi.
#
# Why these data: cbpp (lme4) is the binomial example of lme4's papers, and its counts with
# log(size) as the offset the natural poisson rate model; grouseticks (lme4) is the classic
# poisson data with an observation-level random effect (INDEX) and overdispersion (the negative
# binomial); VerbAgg (lme4) summed over the 2 modes x 2 situations of each id x btype x situ cell
# gives counts of "yes" out of 4 (the aggregated binomial of issue 31) with (1 | obs); sleepstudy's
# Reaction is a reaction time in ms, positive and right-skewed: reaction times are the textbook
# case of Gamma and inverse Gaussian GLMMs (Lo & Andrews 2015, Front. Psychol. 6:1171), and a
# gaussian GLMM with a log link models the same mean multiplicatively with constant variance.
suppressPackageStartupMessages({library(lme4); library(glmmTMB); library(statmod); library(numDeriv)})
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
testsdir <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
out_file <- if (length(args) > 0) args[1] else file.path(testsdir, "glmer_families.csv")
datadir <- if (length(args) > 1) args[2] else file.path(testsdir, "lme4")

rows <- list()
put <- function(model, source, quantity, term, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, source = source, quantity = quantity,
                                          term = term, value = as.numeric(value))
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10,
                      optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
seconds <- function(f, reps = 3) median(sapply(seq_len(reps), function(i) system.time(f())[["elapsed"]]))

# --- data ------------------------------------------------------------------------------------
va <- VerbAgg
va$yes <- as.integer(va$r2 == "Y")
verbagg_agg <- aggregate(yes ~ id + Anger + Gender + btype + situ, data = va, FUN = sum)
verbagg_agg$n <- aggregate(yes ~ id + Anger + Gender + btype + situ, data = va, FUN = length)$yes
stopifnot(all(verbagg_agg$n == 4))
verbagg_agg$no <- verbagg_agg$n - verbagg_agg$yes
verbagg_agg$n <- NULL
verbagg_agg <- verbagg_agg[order(verbagg_agg$id, verbagg_agg$btype, verbagg_agg$situ), ]
verbagg_agg$obs <- seq_len(nrow(verbagg_agg))
rownames(verbagg_agg) <- NULL
exports <- list(grouseticks = grouseticks, verbagg_agg = verbagg_agg)
dir.create(datadir, recursive = TRUE, showWarnings = FALSE)
for (name in names(exports)) {
  path <- file.path(datadir, paste0(name, ".csv.gz"))
  con <- gzfile(path, "w")  # numbers with 17 significant digits: they read back exactly
  write.csv(rapply(exports[[name]], function(v) sprintf("%.17g", v), classes = "numeric",
                   how = "replace"), con, row.names = FALSE, quote = FALSE)
  close(con)
  back <- read.csv(path, colClasses = "character")
  orig <- exports[[name]]
  stopifnot(identical(names(back), names(orig)), nrow(back) == nrow(orig))
  for (col in names(orig)) stopifnot(if (is.numeric(orig[[col]]))
    identical(as.numeric(back[[col]]), as.numeric(orig[[col]])) else
    identical(back[[col]], as.character(orig[[col]])))
}
cbpp$obs <- seq_len(nrow(cbpp))         # tests: cbpp["obs"] = range(1, 57)
cbpp$prop <- cbpp$incidence / cbpp$size  # tests: the same division
ss <- sleepstudy
ss$w <- rep(c(0.5, 1, 2), length.out = nrow(ss))  # tests: np.tile([0.5, 1, 2], 60)
ss$off <- 10 * ss$Days                             # tests: 10 * Days

# --- what each fit reports ------------------------------------------------------------------
sd_rows <- function(model, source, sds) for (g in names(sds)) put(model, source, "sd", g, sds[[g]])

describe_lme4 <- function(model, m, secs) {
  fe <- fixef(m)
  put(model, "lme4", "fixef", names(fe), unname(fe))
  put(model, "lme4", "se", names(fe), sqrt(diag(as.matrix(vcov(m)))))
  ll <- logLik(m)
  put(model, "lme4", c("logLik", "npar", "nobs", "sigma", "singular", "fit_seconds"), "",
      c(as.numeric(ll), attr(ll, "df"), nobs(m), sigma(m), isSingular(m), secs))
  vc <- as.data.frame(VarCorr(m))
  vc <- vc[vc$grp != "Residual" & is.na(vc$var2), ]
  sd_rows(model, "lme4", setNames(as.list(vc$sdcor), vc$grp))
  if (!isGLMM(m)) put(model, "lme4", "REMLcrit", "", if (isREML(m)) REMLcrit(m) else deviance(m))
  if (grepl("^Negative Binomial", family(m)$family))
    put(model, "lme4", "dispersion", "", getME(m, "glmer.nb.theta"))
}

describe_tmb <- function(model, m, secs, source = "glmmTMB") {
  fe <- fixef(m)$cond
  put(model, source, "fixef", names(fe), unname(fe))
  put(model, source, "se", names(fe), sqrt(diag(vcov(m)$cond)))
  ll <- logLik(m)
  fam <- family(m)$family
  disp <- if (fam %in% c("binomial", "poisson")) 1 else if (fam == "nbinom2") sigma(m) else sigma(m)^2
  put(model, source, c("logLik", "npar", "nobs", "sigma", "dispersion", "fit_seconds"), "",
      c(as.numeric(ll), attr(ll, "df"), nobs(m), sigma(m), disp, secs))
  vc <- VarCorr(m)$cond
  sd_rows(model, source, lapply(vc, function(v) sqrt(v[1, 1])))
}

# glmer and glmmTMB fits of one model; `args` (weights, offset) are passed by value (do.call)
# glmmTMB's Laplace log-likelihood at lme4's estimates (its objective, obj$fn, at lme4's fixed
# effects, log SDs and, for the negative binomial, log size): lme4's fit on glmmTMB's scale,
# which differs from lme4's own logLik for a non-canonical link (lme4's log|L| uses the expected
# information, glmmTMB's the observed)
tmb_at_lme4 <- function(model, t, m, extra = NULL) {
  stopifnot(abs(-t$obj$fn(t$fit$par) - as.numeric(logLik(t))) < 1e-6)
  vc <- as.data.frame(VarCorr(m))
  vc <- vc[is.na(vc$var2) & vc$grp != "Residual", ]
  par <- c(fixef(m), log(setNames(vc$sdcor, vc$grp)[names(VarCorr(t)$cond)]), extra)
  stopifnot(length(par) == length(t$obj$par))
  put(model, "lme4", "logLik_laplace", "", -t$obj$fn(unname(par)))
}

# glmmTMB's objective with the inner search for the random effects' mode started from b = 0 at
# every evaluation (TMB starts it from the last evaluation's mode, so that where the integrand
# has two modes, as with the sqrt link, its value depends on the path), maximised from lme4's
# estimates by nlminb (glmmTMB's optimiser), then BFGS with TMB's gradient and Nelder-Mead (the
# best of the three); SEs of the fixed effects from numDeriv's Hessian of that objective
tmb_zero <- function(model, t, m) {
  obj <- t$obj
  r <- obj$env$random
  fn <- function(p) {
    obj$env$last.par[r] <- 0
    obj$env$last.par.best[r] <- 0
    obj$fn(p)
  }
  gr <- function(p) {
    fn(p)
    obj$gr(p)
  }
  elapsed <- system.time({
    o <- nlminb(unname(c(fixef(m), log(getME(m, "theta")))), fn, gr, control = list(rel.tol = 1e-12))
    b <- optim(o$par, fn, gr, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000))
    nm <- optim(b$par, fn, method = "Nelder-Mead", control = list(reltol = 1e-14, maxit = 5000))
    for (cand in list(b, nm)) if (cand$value < o$objective) o <- list(par = cand$par, objective = cand$value)
  })[["elapsed"]]
  p <- length(fixef(m))
  se <- tryCatch(suppressWarnings(sqrt(diag(solve(numDeriv::hessian(fn, o$par))))[seq_len(p)]),
                 error = function(e) rep(NA, p))
  src <- "glmmTMB_zero"
  put(model, src, "fixef", names(fixef(m)), o$par[seq_len(p)])
  put(model, src, "se", names(fixef(m)), se)
  put(model, src, c("logLik", "npar", "nobs", "sigma", "dispersion", "fit_seconds"), "",
      c(-o$objective, length(o$par), nobs(m), 1, 1, elapsed))
  sd_rows(model, src, setNames(as.list(exp(o$par[-seq_len(p)])), names(VarCorr(t)$cond)))
  # BFGS straight from lme4's estimates: another optimum where there are several
  alt <- optim(unname(c(fixef(m), log(getME(m, "theta")))), fn, gr, method = "BFGS",
               control = list(reltol = 1e-14, maxit = 1000))
  put(model, src, "logLik_other_optimum", "", -alt$value)
  put(model, src, "fixef_other_optimum", names(fixef(m)), alt$par[seq_len(p)])
}

# glmer and glmmTMB fits of one model; `args` (weights, offset) are passed by value (do.call);
# with `tmb_start`, glmmTMB is also started at lme4's estimates (source "glmmTMB_lme4start") and
# its objective maximised with the inner search from b = 0 (tmb_zero, source "glmmTMB_zero")
fit_both <- function(model, form, data, family, tmb_family = family, args = list(), tmb_start = FALSE) {
  g <- function(...) do.call(glmer, c(list(form, data, family = family), args, list(...)))
  t <- function(...) do.call(glmmTMB, c(list(form, data, family = tmb_family), args, list(...)))
  m <- g(control = GCTRL)
  describe_lme4(model, m, seconds(function() g()))
  tm <- t()
  describe_tmb(model, tm, seconds(t))
  tmb_at_lme4(model, tm, m)
  if (tmb_start) {
    start <- list(beta = fixef(m), theta = log(getME(m, "theta")))
    ts <- t(start = start)
    describe_tmb(model, ts, seconds(function() t(start = start)), "glmmTMB_lme4start")
    tmb_zero(model, ts, m)
  }
}

# --- the Laplace approximation for one scalar random intercept ---------------------------
# log L = sum_j [ max_b h_j(b) + log(2 pi) / 2 - log(-h_j''(b_j)) / 2 ],
# h_j(b) = sum_{i in j} log f(y_i | linkinv(eta_i + b), phi) + log dnorm(b, 0, sd); the curvature
# -h_j'' = sum_i -(d2 mu_eta^2 + d1 dmu_eta) + 1 / sd^2 from the derivatives d1, d2 of log f in mu
# (written out below per family) and of mu_eta in eta (per link)
logf <- list(
  Gamma = function(y, mu, phi) dgamma(y, shape = 1 / phi, scale = mu * phi, log = TRUE),
  inverse.gaussian = function(y, mu, phi) dinvgauss(y, mean = mu, dispersion = phi, log = TRUE),
  gaussian = function(y, mu, phi) dnorm(y, mu, sqrt(phi), log = TRUE))
dlogf <- list(  # d/dmu and d^2/dmu^2 of log f
  Gamma = function(y, mu, phi) cbind((y - mu) / (phi * mu^2), (mu - 2 * y) / (phi * mu^3)),
  inverse.gaussian = function(y, mu, phi) cbind((y - mu) / (phi * mu^3), -(3 * y - 2 * mu) / (phi * mu^4)),
  gaussian = function(y, mu, phi) cbind((y - mu) / phi, rep(-1 / phi, length(y))))
dmu_eta <- list(  # d mu_eta / d eta
  identity = function(eta) 0 * eta, log = function(eta) exp(eta), inverse = function(eta) 2 / eta^3,
  "1/mu^2" = function(eta) 0.75 * eta^-2.5)
laplace_loglik <- function(beta, sd, phi, y, X, g, fam) {
  if (!is.finite(sd) || !is.finite(phi) || sd < 0) return(-Inf)
  eta0 <- drop(X %*% beta)
  f <- logf[[fam$family]]
  if (sd == 0) return(sum(f(y, fam$linkinv(eta0), phi)))  # no random effect: the GLM
  total <- 0
  for (ix in split(seq_along(y), g)) {
    h <- function(b) {
      mu <- fam$linkinv(eta0[ix] + b)
      if (any(!is.finite(mu)) || any(mu <= 0)) return(-1e300)
      sum(f(y[ix], mu, phi)) + dnorm(b, 0, sd, log = TRUE)
    }
    o <- optimize(h, c(-8 * sd, 8 * sd), maximum = TRUE, tol = 1e-12 * max(1, sd))
    eta <- eta0[ix] + o$maximum
    mu <- fam$linkinv(eta)
    d <- dlogf[[fam$family]](y[ix], mu, phi)
    curv <- sum(-(d[, 2] * fam$mu.eta(eta)^2 + d[, 1] * dmu_eta[[fam$link]](eta))) + 1 / sd^2
    if (!is.finite(curv) || curv <= 0) return(-Inf)
    total <- total + o$objective + 0.5 * log(2 * pi) - 0.5 * log(curv)
  }
  total
}
# maximise over (beta, log sd, log phi) from `start`; SEs of beta from the inverse Hessian of
# the negative log-likelihood in all parameters (as TMB's sdreport)
laplace_fit <- function(form, data, fam, start) {
  X <- model.matrix(nobars(form)[-2], data)
  y <- model.response(model.frame(nobars(form), data))
  g <- data[[as.character(findbars(form)[[1]][[3]])]]
  p <- ncol(X)
  nll <- function(par) {
    v <- -laplace_loglik(par[1:p], exp(par[p + 1]), exp(par[p + 2]), y, X, g, fam)
    if (is.finite(v)) v else 1e300
  }
  o <- optim(start, nll, method = "BFGS", control = list(reltol = 1e-14, maxit = 1000,
                                                         parscale = pmax(abs(start), 1e-8)))
  o <- optim(o$par, nll, method = "Nelder-Mead", control = list(reltol = 1e-15, maxit = 5000,
                                                                parscale = pmax(abs(o$par), 1e-8)))
  # numDeriv's Richardson-extrapolated Hessian from steps of 10% and 1% of each parameter (the
  # first agrees with glmmTMB's SEs to 1e-5 on the Gamma and gaussian fits); an ill-conditioned
  # Hessian (inverse.gaussian 1/mu^2: entries from 1 to 1e11) gives SEs that change with the
  # step: NA where the two disagree by more than 1% or the Hessian is singular
  se <- sapply(c(0.1, 0.01), function(d) tryCatch(
    sqrt(diag(solve(numDeriv::hessian(nll, o$par, method.args = list(d = d)))))[1:p],
    error = function(e) rep(NA, p)))
  se <- ifelse(abs(se[, 1] / se[, 2] - 1) < 0.01, se[, 1], NA)
  list(beta = setNames(o$par[1:p], colnames(X)), se = se,
       sd = exp(o$par[p + 1]), phi = exp(o$par[p + 2]), logLik = -o$value,
       npar = length(o$par), nobs = length(y), nll = nll, p = p, g = as.character(findbars(form)[[1]][[3]]))
}
describe_laplace <- function(model, r, secs) {
  put(model, "laplaceR", "fixef", names(r$beta), unname(r$beta))
  put(model, "laplaceR", "se", names(r$beta), r$se)
  put(model, "laplaceR", c("logLik", "npar", "nobs", "sigma", "dispersion", "fit_seconds"), "",
      c(r$logLik, r$npar, r$nobs, sqrt(r$phi), r$phi, secs))
  sd_rows(model, "laplaceR", setNames(list(r$sd), r$g))
}
# the Laplace logLik at lme4's beta and random-effect SD, phi maximised (see the header)
laplace_at_lme4 <- function(model, m, r) {
  sd <- as.data.frame(VarCorr(m))$sdcor[1]
  f <- function(lphi) r$nll(c(fixef(m), log(sd), lphi))
  o <- optimize(f, log(sigma(m)^2) + c(-5, 5), tol = 1e-10)
  put(model, "lme4", "logLik_laplace", "", -o$objective)
}

# --- 1. observation-level random effects ----------------------------------------------------
fit_both("cbpp_obs", cbind(incidence, size - incidence) ~ period + (1 | herd) + (1 | obs),
         cbpp, binomial)
fit_both("verbagg_obs", cbind(yes, no) ~ Anger + Gender + btype + situ + (1 | id) + (1 | obs),
         verbagg_agg, binomial)
fit_both("grouseticks_obs", TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION),
         grouseticks, poisson)

# --- 2. prior weights and offsets ------------------------------------------------------------
for (reml in c(TRUE, FALSE)) {
  tag <- if (reml) "REML" else "ML"
  m <- lmer(prop ~ period + (1 | herd), cbpp, weights = size, REML = reml, control = CTRL)
  describe_lme4(paste0("cbpp_lmer_weights_", tag), m,
                seconds(function() lmer(prop ~ period + (1 | herd), cbpp, weights = size, REML = reml)))
  m <- lmer(Reaction ~ Days + (Days | Subject), ss, weights = w, REML = reml, control = CTRL)
  describe_lme4(paste0("sleepstudy_lmer_weights_", tag), m,
                seconds(function() lmer(Reaction ~ Days + (Days | Subject), ss, weights = w, REML = reml)))
}
m <- lmer(Reaction ~ Days + (Days | Subject), ss, offset = off, control = CTRL)
describe_lme4("sleepstudy_lmer_offset", m,
              seconds(function() lmer(Reaction ~ Days + (Days | Subject), ss, offset = off)))
# binomial proportions with the trials as prior weights: the same fit as cbind(incidence, size - incidence)
fit_both("cbpp_prop_weights", prop ~ period + (1 | herd), cbpp, binomial, args = list(weights = cbpp$size))
# a cbind() response with prior weights: lme4 multiplies them (log f = w log dbinom(k; n, mu))
# (tests: np.tile([1.0, 2.0], 28))
cf0 <- cbind(incidence, size - incidence) ~ period + (1 | herd)
m <- glmer(cf0, cbpp, binomial, weights = rep(c(1, 2), 28), control = GCTRL)
describe_lme4("cbpp_cbind_weights", m,
              seconds(function() glmer(cf0, cbpp, binomial, weights = rep(c(1, 2), 28))))
# counts per herd-period with log(herd size) as offset: the `offset =` argument and offset() agree
fit_both("cbpp_poisson_offset", incidence ~ period + (1 | herd), cbpp, poisson, args = list(offset = log(cbpp$size)))
m2 <- glmer(incidence ~ period + (1 | herd) + offset(log(size)), cbpp, poisson, control = GCTRL)
stopifnot(isTRUE(all.equal(fixef(m2), fixef(glmer(incidence ~ period + (1 | herd), cbpp, poisson,
                                                   offset = log(size), control = GCTRL)), tolerance = 1e-8)))

# --- 3. families and links -------------------------------------------------------------------
cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
for (link in c("logit", "probit", "cloglog"))
  fit_both(paste0("cbpp_binomial_", link), cf, cbpp, binomial(link = link))
tf <- TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)
# the sqrt link's mu = eta^2 has a second branch (eta < 0) that the random effects of
# low-count herds and locations reach: the integrand can have two modes. glmmTMB from its
# default start stops with eta < 0 for many rows (grouseticks logLik -1476.9, cbpp -104.8);
# started at lme4's estimates it reaches -1235.3 and -98.501. With the inner search started from
# b = 0 at every evaluation (as the package's Laplace fit does), cbpp's optimum is -98.501 with
# eta > 0 throughout, and grouseticks' -1234.19; but BFGS straight from lme4's estimates climbs
# to about -1222 (logLik_other_optimum), where the fixed part of eta is negative in 1997: as
# mu = eta^2 is the same for eta and -eta, the likelihood has an optimum for each way of
# splitting the rows between the branches, and none of these fits is known to be the global one.
fit_both("grouseticks_poisson_log", tf, grouseticks, poisson)
fit_both("grouseticks_poisson_sqrt", tf, grouseticks, poisson(link = "sqrt"), tmb_start = TRUE)
fit_both("cbpp_poisson_sqrt", incidence ~ period + (1 | herd), cbpp, poisson(link = "sqrt"),
         tmb_start = TRUE)
# glmer.nb with tolPwrss = 1e-10 stops: "pwrssUpdate did not converge"; its default inner tolerance
nb <- glmer.nb(tf, grouseticks, control = glmerControl(optimizer = "bobyqa",
                                                      optCtrl = list(rhoend = 1e-10, maxfun = 1e5)))
describe_lme4("grouseticks_nb", nb, seconds(function() glmer.nb(tf, grouseticks)))
tnb <- glmmTMB(tf, grouseticks, family = nbinom2)
describe_tmb("grouseticks_nb", tnb, seconds(function() glmmTMB(tf, grouseticks, family = nbinom2)))
tmb_at_lme4("grouseticks_nb", tnb, nb, log(getME(nb, "glmer.nb.theta")))

rf <- Reaction ~ Days + (1 | Subject)
dispersion_fit <- function(model, fam, tmb = TRUE, lme4 = TRUE) {
  m <- if (lme4) tryCatch(glmer(rf, ss, family = fam, control = GCTRL), error = function(e) NULL)
  if (!is.null(m)) describe_lme4(model, m, seconds(function() glmer(rf, ss, family = fam)))
  t <- if (tmb) glmmTMB(rf, ss, family = fam)
  if (!is.null(t) && is.finite(logLik(t))) describe_tmb(model, t, seconds(function() glmmTMB(rf, ss, family = fam)))
  # laplaceR starts from glmmTMB's estimates, else lme4's, else a GLM's
  start <- if (!is.null(t) && is.finite(logLik(t)))
    c(fixef(t)$cond, log(sqrt(VarCorr(t)$cond$Subject[1])), log(sigma(t)^2)) else if (!is.null(m))
    c(fixef(m), log(as.data.frame(VarCorr(m))$sdcor[1]), log(sigma(m)^2)) else {
    g0 <- glm(Reaction ~ Days, fam, ss, start = c(if (fam$link == "log") 5.5 else 1 / 260^2, 0))
    c(coef(g0), log(0.1 * abs(coef(g0)[[1]])), log(summary(g0)$dispersion))
  }
  elapsed <- system.time(r <- laplace_fit(rf, ss, fam, unname(start)))[["elapsed"]]
  describe_laplace(model, r, elapsed)
  if (!is.null(m)) laplace_at_lme4(model, m, r)
  if (!is.null(t) && is.finite(logLik(t))) {  # the check of laplaceR against glmmTMB
    ll <- as.numeric(logLik(t))
    z <- (r$beta - fixef(t)$cond) / r$se
    cat(sprintf("%s: laplaceR - glmmTMB logLik %.2e, max |fixef diff| / SE %.2e\n", model,
                r$logLik - ll, max(abs(z))))
    stopifnot(abs(r$logLik - ll) < 1e-5, max(abs(z)) < 1e-2)
  }
}
dispersion_fit("sleepstudy_gamma_log", Gamma(link = "log"))
dispersion_fit("sleepstudy_gamma_identity", Gamma(link = "identity"))
dispersion_fit("sleepstudy_gamma_inverse", Gamma(link = "inverse"))
dispersion_fit("sleepstudy_gaussian_log", gaussian(link = "log"))
for (link in c("log", "identity", "inverse", "1/mu^2"))
  dispersion_fit(paste0("sleepstudy_inverse.gaussian_", link), inverse.gaussian(link = link),
                 tmb = FALSE, lme4 = link != "1/mu^2")  # lme4: "PIRLS loop resulted in NaN value"

out <- do.call(rbind, rows)
con <- file(out_file, "w")
writeLines(sprintf("# %s, lme4 %s, glmmTMB %s, TMB %s, statmod %s, numDeriv %s; written by benchmarks/glmer_families.R",
                   R.version.string, packageVersion("lme4"), packageVersion("glmmTMB"),
                   packageVersion("TMB"), packageVersion("statmod"), packageVersion("numDeriv")), con)
write.csv(out, con, row.names = FALSE)
close(con)
cat("wrote", nrow(out), "rows to", out_file, "\n")
