# Reference numbers for model selection and tests of mixed models (issue 44, item 9):
# lmerTest's ranova / drop1 / step, car's Anova (Wald chi-square, types II and III) on glmer
# fits, lme4's allFit and isSingular. Read by tests/stats/mixed/test_selection.py,
# test_wald_anova.py and test_allfit.py.
# Usage: Rscript benchmarks/selection_reference.R
#   Writes tests/fixtures/selection_reference.csv (next to this script's folder). The data are
#   lme4's sleepstudy, cbpp and grouseticks, lmerTest's ham and the aggregated VerbAgg, which
#   the tests read from tests/fixtures/lme4/ (exported by lme4_reference.R,
#   lmertest_reference.R, glmer_profile.R and glmer_families.R).
# Versions used: R 4.2.2, lme4 1.1-31, lmerTest 3.1-3, pbkrtest 0.5.2, car 3.1-1, glmmTMB 1.1.5 (the last row
#   of the CSV records the versions of the run).
# Models (linear ones by REML with bobyqa and a tight end radius, as lmertest_reference.R):
#   ham3   Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer)
#          + (1 | Information:Consumer): ranova, drop1 (Satterthwaite, Kenward-Roger), step
#   hamadd Informed.liking ~ Product*Information + Gender + Age + (1 | Consumer): drop1 (both)
#   ss     Reaction ~ Days + (Days | Subject) (sleepstudy): ranova (REML and ML), step,
#          isSingular at tol 1e-4 and 0.5, allFit
#   ss1    Reaction ~ Days + (1 | Subject): ranova (the reduced model is lm's)
#   hamsing Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Information:Consumer):
#          isSingular (a variance at 0)
#   ticks  TICKS ~ YEAR * cHEIGHT + (1 | LOCATION), poisson (grouseticks): Anova types II, III
#   verbagg cbind(yes, no) ~ Gender * btype + situ + (1 | id), binomial: Anova types II, III
#   cbpp   cbind(incidence, size - incidence) ~ period + (1 | herd), binomial: Anova, allFit
#   The three GLMMs are also fitted by glmmTMB (its exact Hessian at its optimum, which the
#   package's glmer fits match; lme4's optimum and finite-difference vcov are 1e-3 off), and
#   car::Anova run on both; table "vcov" holds lme4's, to test the Wald tables at its (b, V).
#   (allFit refits ss and cbpp fitted with lme4's default control: it re-evaluates the call)
# Rows: model, table, row, column, value (15 significant digits), text (formulas of step's
#   final model; the model's theta rows, table "theta", to refit at R's optimum if needed).
suppressPackageStartupMessages({library(lmerTest); library(car); library(glmmTMB)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
GCTRL <- glmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
rows <- list()
put <- function(model, table, row, column, value, text = "")
  rows[[length(rows) + 1]] <<- data.frame(model = model, table = table, row = row, column = column,
                                          value = value, text = text)
put_frame <- function(model, table, frame) {
  for (col in names(frame)) if (is.numeric(frame[[col]]))
    put(model, table, rownames(frame), col, frame[[col]])
}
ham <- lmerTest::ham
va <- read.csv(gzfile(file.path(fixtures, "lme4", "verbagg_agg.csv.gz")),
               colClasses = c(id = "character", Gender = "character", btype = "character",
                              situ = "character"))
fits <- list(
  ham3 = lmer(Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer) +
                (1 | Information:Consumer), ham, control = CTRL),
  hamadd = lmer(Informed.liking ~ Product*Information + Gender + Age + (1 | Consumer), ham, control = CTRL),
  ss = lmer(Reaction ~ Days + (Days | Subject), sleepstudy, control = CTRL),
  ss1 = lmer(Reaction ~ Days + (1 | Subject), sleepstudy, control = CTRL),
  hamsing = suppressMessages(lmer(Informed.liking ~ Product*Information*Gender + (1 | Consumer) +
                                    (1 | Information:Consumer), ham, control = CTRL)))
fits$ssml <- update(fits$ss, REML = FALSE)
for (name in names(fits)) put(name, "theta", seq_along(getME(fits[[name]], "theta")), "theta",
                              getME(fits[[name]], "theta"))
for (name in c("ham3", "ss", "ssml", "ss1")) put_frame(name, "ranova", as.data.frame(ranova(fits[[name]])))
for (name in c("ham3", "hamadd")) for (ddf in c("Satterthwaite", "Kenward-Roger"))
  put_frame(name, paste0("drop1_", ddf), as.data.frame(drop1(fits[[name]], ddf = ddf)))
for (name in c("ham3", "ss")) {
  s <- suppressMessages(step(fits[[name]]))
  put_frame(name, "step_random", as.data.frame(s$random))
  put_frame(name, "step_fixed", as.data.frame(s$fixed))
  put(name, "step_model", "formula", "logLik", as.numeric(logLik(get_model(s))),
      paste(deparse(formula(get_model(s)), width.cutoff = 500L), collapse = ""))
}
for (name in c("ss", "hamsing")) for (tol in c(1e-4, 0.5))
  put(name, "isSingular", format(tol), "value", as.numeric(isSingular(fits[[name]], tol = tol)))
glmers <- list(
  ticks = glmer(TICKS ~ YEAR * cHEIGHT + (1 | LOCATION), grouseticks, family = poisson, control = GCTRL),
  verbagg = glmer(cbind(yes, no) ~ Gender * btype + situ + (1 | id), va, family = binomial, control = GCTRL),
  cbpp = glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, family = binomial,
               control = GCTRL))
tmbs <- list(
  ticks = glmmTMB(TICKS ~ YEAR * cHEIGHT + (1 | LOCATION), grouseticks, family = poisson),
  verbagg = glmmTMB(cbind(yes, no) ~ Gender * btype + situ + (1 | id), va, family = binomial),
  cbpp = glmmTMB(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, family = binomial))
for (name in names(glmers)) {
  put(name, "logLik", "logLik", "value", as.numeric(logLik(glmers[[name]])))
  put(name, "logLik_tmb", "logLik", "value", as.numeric(logLik(tmbs[[name]])))
  put_frame(name, "fixef", data.frame(value = fixef(glmers[[name]])))
  put_frame(name, "fixef_tmb", data.frame(value = fixef(tmbs[[name]])$cond))
  put(name, "sd_tmb", names(VarCorr(tmbs[[name]])$cond), "value",
      sapply(VarCorr(tmbs[[name]])$cond, function(v) attr(v, "stddev")[[1]]))
  put_frame(name, "vcov", as.data.frame(as.matrix(vcov(glmers[[name]]))))
  for (type in c("II", "III")) {
    put_frame(name, paste0("Anova_", type), as.data.frame(Anova(glmers[[name]], type = type)))
    put_frame(name, paste0("AnovaTMB_", type), as.data.frame(Anova(tmbs[[name]], type = type)))
  }
}
for (name in c("ss", "cbpp")) {
  m <- if (name == "ss") lmer(Reaction ~ Days + (Days | Subject), sleepstudy) else  # allFit re-evaluates
    glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, family = binomial)  # the call
  a <- summary(suppressMessages(suppressWarnings(allFit(m, verbose = FALSE))))
  for (opt in names(a$llik)) {
    put(name, "allFit_llik", opt, "value", a$llik[[opt]])
    put(name, "allFit_ok", opt, "value", as.numeric(a$which.OK[[opt]]))
    for (col in colnames(a$fixef)) put(name, "allFit_fixef", opt, col, a$fixef[opt, col])
    for (col in colnames(a$sdcor)) put(name, "allFit_sdcor", opt, col, a$sdcor[opt, col])
  }
}
out <- do.call(rbind, rows)
out$value <- signif(out$value, 15)
versions <- sprintf("R %s; lme4 %s; lmerTest %s; pbkrtest %s; car %s; glmmTMB %s", getRversion(),
                    packageVersion("lme4"), packageVersion("lmerTest"), packageVersion("pbkrtest"),
                    packageVersion("car"), packageVersion("glmmTMB"))
out <- rbind(out, data.frame(model = "versions", table = "", row = "", column = "", value = NA, text = versions))
write.csv(out, file.path(fixtures, "selection_reference.csv"), row.names = FALSE)
