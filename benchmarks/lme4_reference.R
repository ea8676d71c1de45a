# lme4 reference fits: every lme4 constant in tests/stats/mixed/test_lmer.py and tests/stats/mixed/test_judgment.py,
# and the lme4 / lmerTest / glmmTMB numbers that parity tests of a mixed-model engine assert.
# Usage: python benchmarks/lme4_frames.py DIR &&
#        Rscript benchmarks/lme4_reference.R DIR [out.csv [DATADIR [SUMMARIES]]]
#   DIR/sentence.csv (human, score, phenomenon, type_id): LI-Adger sentence-level model, required;
#   DIR/pair.csv (dh, dlm, phenomenon): LI-Adger pair-level model, optional;
#   DIR/nested.csv (y, x, g, h): the synthetic nested design of tests/stats/mixed/test_lmer.py, optional;
#   DIR/fc.csv (participant, pair_id, paradigm, chose_good, dlm, good_first): BLiMP's human
#     forced-choice trials, optional. Its presence (lme4_frames.py writes it) also turns on the
#     rest of the full reference: lmerTest's Satterthwaite tests, profile intervals, conditional
#     modes and variances, predictions, lme4's data sets (sleepstudy, Penicillin, Pastes, cbpp,
#     InstEval) with their fits, the GLMMs (lme4 and glmmTMB) and their fit times, and the export
#     of those data sets as gzip CSV to DATADIR (default: tests/fixtures/lme4 next to this script's
#     folder), and lme4's printed summary() of every model that describe() reports, written to
#     SUMMARIES (default: tests/fixtures/lme4_summaries.txt), each after a line "=== PREFIX".
#     Without DIR/fc.csv only the LI-Adger and nested models are fitted, quickly.
# Prints name,value rows with 12 significant digits, then the R and package versions; out.csv gets
# the same rows by write.csv (quoted header, 15 digits). tests/fixtures/lme4_reference.csv is the printed
# output (stdout) after one "# Output of: ..." comment line.
#
# All fits use bobyqa with a tight end radius, so the numbers are the optimum rather than
# where an optimizer happened to stop: lme4's default nloptwrap stops early on the ML fit
# of the sentence model (logLik -1940.275 instead of -1940.102). "default_vs_bobyqa_max"
# is how far lme4's default REML fit of the sentence model lands from the bobyqa one.
# glmer fits also tighten the inner PIRLS loop (tolPwrss = 1e-10, see GCTRL); glmmTMB fits
# use glmmTMB's defaults. "default_logLik" is the logLik of a glmer fit with lme4's defaults.
# Every "fit_seconds" row is the median elapsed time of refits with lme4's (or glmmTMB's)
# default controls, not the bobyqa fits the estimates come from.
# Runs are not bit-for-bit repeatable: with address-space randomisation the near-singular
# sentence fits and the nested_uncorr fit land in one of a few states that differ by up to
# 2e-5 relative in their smallest variance components (1e-6 in fixed effects and SEs), far
# inside the tests' tolerances; `setarch -R Rscript ...` makes a run repeatable.
#
# Rows of the full reference, by kind (PREFIX is e.g. "sleepstudy|corr|"):
#   PREFIX fixef|se|vcov|ngrps|logLik|AIC|BIC|npar|nobs   describe() below (vcov is lme4's
#     as.data.frame(VarCorr(m))$vcov: variances, covariances, the residual variance)
#   PREFIX singular                 isSingular(m) (1/0)
#   PREFIX satt_df|satt_p|<coef>    lmerTest Satterthwaite df and Pr(>|t|) (REML fits)
#   PREFIX profile|<row>|lower|upper  confint(m, method = "profile"), 95%, lme4's row names.
#     Profile rows are standard deviations and correlations, not variances, in VarCorr order:
#       sleepstudy|corr|    .sig01 sd (Intercept)|Subject, .sig02 cor (Intercept),Days|Subject,
#                           .sig03 sd Days|Subject
#       sleepstudy|uncorr|  .sig01 sd (Intercept)|Subject, .sig02 sd Days|Subject (VarCorr's Subject.1)
#       penicillin|         .sig01 sd (Intercept)|plate, .sig02 sd (Intercept)|sample
#       pastes|             .sig01 sd (Intercept)|cask:batch, .sig02 sd (Intercept)|batch
#       pair|REML|          .sig01 sd (Intercept)|phenomenon
#     then .sigma (residual sd) and the fixed effects by name; the script checks this mapping.
#   PREFIX ranef|<grp>|<level>|<term>            conditional mode, ranef(m, condVar = TRUE)
#   PREFIX condvar|<grp>|<level>|<term1>|<term2> its conditional (co)variance, attr "postVar"
#     (glmmTMB: attr "condVar", which also carries the fixed effects' uncertainty)
#   sleepstudy|corr|predict|<row>, predict_fixed|<row>  predict(m), predict(m, re.form = NA)
#   sleepstudy|corr|predict_new|<Subject>|<Days>  newdata, allow.new.levels = TRUE (999 is new)
#   sleepstudy|anova|  anova(uncorr, corr), refit by ML (describe_anova below)
#   cbpp|agq9|logLik, AIC, BIC are lme4's numbers for nAGQ = 9, which sit on another scale than
#     nAGQ = 1 (lme4 issues #161, #567); cbpp|*|logLik_integrate is the marginal log-likelihood
#     at that fit's estimates by R's integrate() per herd, comparable across methods.
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
full <- file.exists(file.path(dir, "fc.csv"))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
testsdir <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
datadir <- if (length(args) > 2) args[3] else file.path(testsdir, "lme4")
summaries_file <- if (length(args) > 3) args[4] else file.path(testsdir, "lme4_summaries.txt")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
fit <- function(form, data, REML = TRUE) lmer(form, data, REML = REML, control = CTRL)
rows <- list()
put <- function(name, value) rows[[length(rows) + 1]] <<- data.frame(name = name, value = value)
summaries <- character()  # printed summary(m) of every described model, for SUMMARIES

# fixed effects, SEs, variance components, group counts, logLik, AIC, BIC, under prefix
describe <- function(prefix, m) {
  summaries <<- c(summaries, paste("===", prefix), capture.output(print(summary(m))))
  fe <- fixef(m)
  put(paste0(prefix, "fixef|", names(fe)), unname(fe))
  put(paste0(prefix, "se|", names(fe)), sqrt(diag(as.matrix(vcov(m)))))
  vc <- as.data.frame(VarCorr(m))
  put(paste0(prefix, "vcov|", vc$grp, "|", ifelse(is.na(vc$var1), "", vc$var1), "|",
             ifelse(is.na(vc$var2), "", vc$var2)), vc$vcov)
  put(paste0(prefix, "ngrps|", names(ngrps(m))), unname(ngrps(m)))
  put(paste0(prefix, c("logLik", "AIC", "BIC", "npar", "nobs")),
      c(as.numeric(logLik(m)), AIC(m), BIC(m), attr(logLik(m), "df"), nobs(m)))
}

# anova(m0, m1) (refits REML fits by ML, as tests compare): logLik, AIC, BIC, Chisq
describe_anova <- function(prefix, m0, m1) {
  a <- anova(m0, m1, refit = TRUE)
  put(paste0(prefix, c("logLik0", "logLik1", "AIC0", "AIC1", "BIC0", "BIC1", "Chisq", "Df")),
      c(a$logLik, a$AIC, a$BIC, a$Chisq[2], a[["Df"]][2]))
}

sentence <- read.csv(file.path(dir, "sentence.csv"),
                     colClasses = c(phenomenon = "character", type_id = "character"))
form <- human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)
m <- fit(form, sentence)
describe("sentence|REML|", m)
wald <- confint(m, method = "Wald", parm = "beta_")
put(paste0("sentence|REML|wald|", rownames(wald), "|", c("lower", "lower", "upper", "upper")),
    as.vector(wald))
put("sentence|REML|singular", isSingular(m))
put("sentence|REML|criterion", REMLcrit(m))
describe("sentence|ML|", fit(form, sentence, REML = FALSE))
m0 <- fit(human ~ 1 + (1 + score | phenomenon) + (1 | phenomenon:type_id), sentence)
describe_anova("sentence|anova|", m0, m)
times <- sapply(1:3, function(i) system.time(d <<- lmer(form, sentence))[["elapsed"]])
both <- c(fixef(d) - fixef(m), as.data.frame(VarCorr(d))$vcov - as.data.frame(VarCorr(m))$vcov)
put("sentence|default_vs_bobyqa_max", max(abs(both)))
put("sentence|fit_seconds", median(times))  # lme4 defaults (nloptwrap), median of 3

if (file.exists(file.path(dir, "pair.csv"))) {
  pair <- read.csv(file.path(dir, "pair.csv"), colClasses = c(phenomenon = "character"))
  # called here rather than through fit(), so that lmerTest and profile() can re-evaluate the
  # call; the same fit as fit(dh ~ dlm + (1 | phenomenon), pair)
  mp <- lmer(dh ~ dlm + (1 | phenomenon), pair, control = CTRL)
  describe("pair|REML|", mp)
}

if (file.exists(file.path(dir, "nested.csv"))) {
  nested <- read.csv(file.path(dir, "nested.csv"), colClasses = c(g = "character", h = "character"))
  describe("nested_gh|REML|", fit(y ~ x + (1 | g/h), nested))
  describe("nested_uncorr|REML|", fit(y ~ x + (1 + x || g) + (1 | g:h), nested))
  n1 <- fit(y ~ x + (1 | g), nested)
  describe("nested_g|REML|", n1)
  describe_anova("nested|anova|", n1, fit(y ~ x + (1 | g) + (1 | g:h), nested))
}

if (full) {
  suppressPackageStartupMessages(library(glmmTMB))
  # GLMMs also need a tight PIRLS tolerance: with lme4's default tolPwrss = 1e-7 the Laplace
  # objective itself is off (logLik at the optimum: cbpp by 2.8e-4, fc by 0.039), and the fc
  # fit stops with variances up to 0.9% too small ("default_logLik"). At 1e-10 the cbpp
  # optimum agrees with glmmTMB's to 1e-8, and fc's Laplace objective with glmmTMB's at the
  # same estimates to 8e-6. Tighter (1e-14) breaks the finite-difference Hessian that glmer's
  # standard errors come from (fc SEs 6 times too small).
  GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10,
                        optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
  # median elapsed seconds of reps calls of f (a refit with default controls); the last fit
  put_time <- function(name, f, reps = 5) {
    last <- NULL
    times <- sapply(seq_len(reps), function(i) system.time(last <<- f())[["elapsed"]])
    put(name, median(times))
    invisible(last)
  }
  put_singular <- function(prefix, m) put(paste0(prefix, "singular"), isSingular(m))
  # lmerTest's Satterthwaite df and p-value per fixed effect of a REML lmer fit
  put_satterthwaite <- function(prefix, m) {
    co <- summary(lmerTest::as_lmerModLmerTest(m))$coefficients
    stopifnot(isTRUE(all.equal(unname(co[, "Estimate"]), unname(fixef(m)), tolerance = 1e-12)))
    put(paste0(prefix, "satt_df|", rownames(co)), co[, "df"])
    put(paste0(prefix, "satt_p|", rownames(co)), co[, "Pr(>|t|)"])
  }
  # 95% profile intervals; names: lme4's .sigNN rows, whose meaning the header lists
  put_profile <- function(prefix, m, meaning) {
    ci <- confint(m, method = "profile", level = 0.95)
    new <- unname(lme4:::tnames(m, old = FALSE, prefix = c("sd", "cor")))
    stopifnot(identical(rownames(ci)[seq_along(new)], sprintf(".sig%02d", seq_along(new))),
              identical(new, meaning))
    put(paste0(prefix, "profile|", rownames(ci), "|lower"), ci[, 1])
    put(paste0(prefix, "profile|", rownames(ci), "|upper"), ci[, 2])
  }
  # conditional modes and (co)variances of levels of grouping factor grp
  put_ranef <- function(prefix, re, grp, levels, attrname = "postVar") {
    modes <- re[[grp]]
    pv <- attr(modes, attrname)
    terms <- colnames(modes)
    for (lev in levels) {
      i <- match(lev, rownames(modes))
      put(paste0(prefix, "ranef|", grp, "|", lev, "|", terms), unlist(modes[i, ]))
      for (a in seq_along(terms)) for (b in a:length(terms))
        put(paste0(prefix, "condvar|", grp, "|", lev, "|", terms[a], "|", terms[b]), pv[a, b, i])
    }
  }
  # glmmTMB's fit (conditional model) in describe()'s names
  describe_tmb <- function(prefix, m) {
    fe <- fixef(m)$cond
    put(paste0(prefix, "fixef|", names(fe)), unname(fe))
    put(paste0(prefix, "se|", names(fe)), sqrt(diag(vcov(m)$cond)))
    vc <- VarCorr(m)$cond
    for (g in names(vc)) {
      v <- vc[[g]]
      for (a in seq_len(nrow(v))) for (b in a:ncol(v))
        put(paste0(prefix, "vcov|", g, "|", rownames(v)[a], "|", if (a == b) "" else colnames(v)[b]),
            v[a, b])
    }
    ng <- sapply(m$modelInfo$reTrms$cond$flist, nlevels)
    put(paste0(prefix, "ngrps|", names(ng)), unname(ng))
    put(paste0(prefix, c("logLik", "AIC", "BIC", "npar", "nobs")),
        c(as.numeric(logLik(m)), AIC(m), BIC(m), attr(logLik(m), "df"), nobs(m)))
  }

  # the LI-Adger models, refitted by direct calls so that lmerTest can re-evaluate them
  ms <- lmer(form, sentence, control = CTRL)
  stopifnot(identical(fixef(ms), fixef(m)))
  put_satterthwaite("sentence|REML|", ms)
  if (exists("mp")) {
    put_satterthwaite("pair|REML|", mp)
    put_profile("pair|REML|", mp, "sd_(Intercept)|phenomenon")
    put_singular("pair|REML|", mp)
    put_time("pair|REML|fit_seconds", function() lmer(dh ~ dlm + (1 | phenomenon), pair))
  }

  # lme4's data sets, exported for tests that run without R (write.csv: numbers with 15
  # significant digits, factors as their labels), read back and checked against the originals
  dir.create(datadir, recursive = TRUE, showWarnings = FALSE)
  cbpp2 <- transform(cbpp, failures = size - incidence)
  exports <- list(sleepstudy = sleepstudy, penicillin = Penicillin, pastes = Pastes, cbpp = cbpp2,
                  insteval = InstEval[, c("y", "s", "d", "service", "dept")])
  for (name in names(exports)) {
    path <- file.path(datadir, paste0(name, ".csv.gz"))
    con <- gzfile(path, "w")
    write.csv(exports[[name]], con, row.names = FALSE)
    close(con)
    back <- read.csv(path, colClasses = "character")
    orig <- exports[[name]]
    stopifnot(identical(names(back), names(orig)), nrow(back) == nrow(orig))
    for (col in names(orig)) stopifnot(if (is.numeric(orig[[col]]))
      identical(as.numeric(back[[col]]), as.numeric(orig[[col]])) else
      identical(back[[col]], as.character(orig[[col]])))
  }

  # sleepstudy
  ss <- lmer(Reaction ~ Days + (Days | Subject), sleepstudy, control = CTRL)
  describe("sleepstudy|corr|", ss)
  put_singular("sleepstudy|corr|", ss)
  put_satterthwaite("sleepstudy|corr|", ss)
  put_profile("sleepstudy|corr|", ss, c("sd_(Intercept)|Subject",
                                        "cor_Days.(Intercept)|Subject", "sd_Days|Subject"))
  put_ranef("sleepstudy|corr|", ranef(ss, condVar = TRUE), "Subject", c("308", "309", "310"))
  rows_at <- c(1, 2, 11, 180)
  put(paste0("sleepstudy|corr|predict|", rows_at), unname(predict(ss)[rows_at]))
  put(paste0("sleepstudy|corr|predict_fixed|", rows_at), unname(predict(ss, re.form = NA)[rows_at]))
  new <- data.frame(Days = c(0, 5.5, 0, 5.5), Subject = c("308", "308", "999", "999"))
  put(paste0("sleepstudy|corr|predict_new|", new$Subject, "|", new$Days),
      unname(predict(ss, newdata = new, allow.new.levels = TRUE)))
  put_time("sleepstudy|corr|fit_seconds",
           function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy))
  su <- lmer(Reaction ~ Days + (Days || Subject), sleepstudy, control = CTRL)
  describe("sleepstudy|uncorr|", su)
  put_singular("sleepstudy|uncorr|", su)
  put_profile("sleepstudy|uncorr|", su, c("sd_(Intercept)|Subject", "sd_Days|Subject"))
  put_time("sleepstudy|uncorr|fit_seconds",
           function() lmer(Reaction ~ Days + (Days || Subject), sleepstudy))
  sn <- lmer(Reaction ~ Days + (1 | Subject) + (0 + Days | Subject), sleepstudy, control = CTRL)
  describe("sleepstudy|nointercept|", sn)
  put_singular("sleepstudy|nointercept|", sn)
  describe_anova("sleepstudy|anova|", su, ss)

  # Penicillin (crossed), Pastes (nested)
  pen <- lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin, control = CTRL)
  describe("penicillin|", pen)
  put_singular("penicillin|", pen)
  put_satterthwaite("penicillin|", pen)
  put_profile("penicillin|", pen, c("sd_(Intercept)|plate", "sd_(Intercept)|sample"))
  re <- ranef(pen, condVar = TRUE)
  put_ranef("penicillin|", re, "plate", "a")
  put_ranef("penicillin|", re, "sample", "A")
  put_time("penicillin|fit_seconds",
           function() lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin))
  pas <- lmer(strength ~ 1 + (1 | batch/cask), Pastes, control = CTRL)
  describe("pastes|", pas)
  put_singular("pastes|", pas)
  put_satterthwaite("pastes|", pas)
  put_profile("pastes|", pas, c("sd_(Intercept)|cask:batch", "sd_(Intercept)|batch"))
  put_time("pastes|fit_seconds", function() lmer(strength ~ 1 + (1 | batch/cask), Pastes))

  # InstEval: 73421 ratings, crossed students and lecturers (REML)
  ie <- lmer(y ~ service + (1 | s) + (1 | d), InstEval, control = CTRL)
  describe("insteval|", ie)
  put_singular("insteval|", ie)
  put_time("insteval|fit_seconds", function() lmer(y ~ service + (1 | s) + (1 | d), InstEval), 3)

  # cbpp: binomial GLMM, Laplace and 9-point adaptive Gauss-Hermite quadrature, and glmmTMB
  herd_loglik <- function(m) {  # marginal log-likelihood at m's estimates, by integrate()
    eta <- drop(model.matrix(~ period, cbpp) %*% fixef(m))
    sd <- getME(m, "theta")[[1]]
    sum(sapply(split(seq_len(nrow(cbpp)), cbpp$herd), function(ix) log(integrate(function(u)
      sapply(u, function(v) prod(dbinom(cbpp$incidence[ix], cbpp$size[ix], plogis(eta[ix] + v)))) *
        dnorm(u, 0, sd), -Inf, Inf, rel.tol = 1e-12)$value)))
  }
  cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
  gl <- glmer(cf, cbpp, binomial, control = GCTRL)
  describe("cbpp|laplace|", gl)
  put_singular("cbpp|laplace|", gl)
  put_ranef("cbpp|laplace|", ranef(gl, condVar = TRUE), "herd", c("1", "2"))
  put("cbpp|laplace|logLik_integrate", herd_loglik(gl))
  d <- put_time("cbpp|laplace|fit_seconds", function() glmer(cf, cbpp, binomial))
  put("cbpp|laplace|default_logLik", as.numeric(logLik(d)))  # lme4's defaults, for comparison
  g9 <- glmer(cf, cbpp, binomial, nAGQ = 9, control = GCTRL)
  describe("cbpp|agq9|", g9)
  put_singular("cbpp|agq9|", g9)
  put("cbpp|agq9|logLik_integrate", herd_loglik(g9))
  put_time("cbpp|agq9|fit_seconds", function() glmer(cf, cbpp, binomial, nAGQ = 9))
  gt <- glmmTMB(cf, cbpp, family = binomial)
  describe_tmb("cbpp|tmb|", gt)
  put_ranef("cbpp|tmb|", ranef(gt, condVar = TRUE)$cond, "herd", c("1", "2"), "condVar")
  put_time("cbpp|tmb|fit_seconds", function() glmmTMB(cf, cbpp, family = binomial))
  # poisson GLMM on the same data (counts of new cases), lme4 and glmmTMB
  pf <- incidence ~ period + (1 | herd)
  gp <- glmer(pf, cbpp, poisson, control = GCTRL)
  describe("cbpp|poisson|", gp)
  put_singular("cbpp|poisson|", gp)
  describe_tmb("cbpp|poisson_tmb|", glmmTMB(pf, cbpp, family = poisson))

  # BLiMP forced choice: crossed participant, pair and paradigm intercepts
  fc <- read.csv(file.path(dir, "fc.csv"), colClasses = c(participant = "character",
                 pair_id = "character", paradigm = "character"))
  ff <- chose_good ~ dlm + (1 | participant) + (1 | pair_id) + (1 | paradigm)
  fl <- glmer(ff, fc, binomial, control = GCTRL)
  describe("fc|laplace|", fl)
  put_singular("fc|laplace|", fl)
  d <- put_time("fc|laplace|fit_seconds", function() glmer(ff, fc, binomial), 3)
  put("fc|laplace|default_logLik", as.numeric(logLik(d)))
  ft <- glmmTMB(ff, fc, family = binomial)
  describe_tmb("fc|tmb|", ft)
  put_time("fc|tmb|fit_seconds", function() glmmTMB(ff, fc, family = binomial), 3)
  fg <- chose_good ~ dlm + good_first + (1 | participant) + (1 | pair_id) + (1 | paradigm)
  fgl <- glmer(fg, fc, binomial, control = GCTRL)
  describe("fc_gf|laplace|", fgl)
  put_singular("fc_gf|laplace|", fgl)
  put_time("fc_gf|laplace|fit_seconds", function() glmer(fg, fc, binomial), 3)
}

out <- do.call(rbind, rows)
cat(sprintf("%s,%.12g", out$name, out$value), sep = "\n")
cat(sprintf("# %s, lme4 %s, Matrix %s%s\n", R.version.string, packageVersion("lme4"),
            packageVersion("Matrix"), if (full) sprintf(", lmerTest %s, glmmTMB %s, TMB %s",
            packageVersion("lmerTest"), packageVersion("glmmTMB"), packageVersion("TMB")) else ""))
if (length(args) > 1) write.csv(out, args[2], row.names = FALSE)
if (full) {
  head <- sprintf("# summary(m) of each model of benchmarks/lme4_reference.R, %s, lme4 %s",
                  R.version.string, packageVersion("lme4"))
  writeLines(c(head, summaries), summaries_file)
}
