# Reference numbers for prediction with a subset of the random terms, simulate, bootMer and
# profile (issue 44, item 10): tests/stats/mixed/test_predict_re_form.py, test_simulate.py,
# test_bootmer.py and test_profile_object.py read the CSV files this writes.
# Usage: Rscript benchmarks/simulation_reference.R [FIXTURES]   (default: tests/fixtures)
# Written with R 4.2.2, lme4 1.1-31, boot 1.3-28.1 (Debian). Reads the data sets that
# benchmarks/lme4_reference.R exported to tests/fixtures/lme4/. Takes about a minute.
#
# simulation_predict.csv   model,re_form,type,newdata,row,value: predict(m, newdata, re.form, type)
# simulation_moments.csv   model,what,row,value: what R's simulate() targets, from the fit:
#   cond_mean / cond_var (use.u = TRUE: the response's mean and variance given the modes),
#   marg_var (lmer, re.form = NA: sigma^2 (Z Lambda Lambda' Z' + I)), and sim_mean / sim_var
#   (glmer, re.form = NA: moments of R's own 20000 draws, no closed form) with sim_n draws.
# simulation_bootmer.csv   what,stat,value: t0, mean and sd of bootMer's t (nsim NSIM) for
#   fun = c(fixef, sigma, sd of the intercept), use.u FALSE and TRUE.
# simulation_bootci.csv    the t vector of a 200-draw bootMer (column 2, the Days slope) and
#   boot.ci(type = c("perc", "norm", "basic")) of it at 0.95 and 0.90.
# simulation_profile.csv   as.data.frame(profile(m)) of sleepstudy's Reaction ~ Days +
#   (Days | Subject) (REML fit; profile refits by ML), and confint(profile) at 0.95.

suppressPackageStartupMessages({library(lme4); library(boot)})
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else "tests/fixtures"
dat <- function(name, factors) {
  d <- read.csv(gzfile(file.path(out, "lme4", paste0(name, ".csv.gz"))))
  for (f in factors) d[[f]] <- factor(as.character(d[[f]]))
  d
}
sleep <- dat("sleepstudy", "Subject")
pen <- dat("penicillin", c("plate", "sample"))
cbpp <- dat("cbpp", c("herd", "period"))
grouse <- dat("grouseticks", c("BROOD", "YEAR", "LOCATION"))
ctrl <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e5))
gctrl <- glmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-12, maxfun = 1e5), tolPwrss = 1e-10)

models <- list(
  penicillin = lmer(diameter ~ 1 + (1 | plate) + (1 | sample), pen, control = ctrl),
  sleepstudy = lmer(Reaction ~ Days + (Days | Subject), sleep, control = ctrl),
  grouseticks = glmer(TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION), grouse,
                      family = poisson, control = gctrl),
  cbpp = glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp,
               family = binomial, control = gctrl))
forms <- list(penicillin = c("~(1 | plate)", "~(1 | sample)", "NA", "NULL"),
              sleepstudy = c("~(1 | Subject)", "~(0 + Days | Subject)", "NA", "NULL"),
              grouseticks = c("~(1 | LOCATION)", "~(1 | BROOD)", "NA", "NULL"))
newdata <- list(
  penicillin = data.frame(plate = c("a", "b", "zz", "c"), sample = c("A", "zz", "B", "F")),
  sleepstudy = data.frame(Days = c(0, 4.5, 9, 2), Subject = c("308", "309", "new", "372")),
  grouseticks = data.frame(YEAR = c("95", "96", "97", "96"), cHEIGHT = c(-20, 0, 35, 10),
                           BROOD = c("501", "new", "606", "520"), LOCATION = c("32", "6", "new", "15")))
rows <- list()
for (name in names(forms)) {
  m <- models[[name]]
  for (f in forms[[name]]) {
    rf <- if (f == "NA") NA else if (f == "NULL") NULL else as.formula(f)
    for (type in if (isLMM(m)) "link" else c("link", "response")) {
      p <- predict(m, re.form = rf, type = type)
      rows[[length(rows) + 1]] <- data.frame(model = name, re_form = f, type = type, newdata = 0,
                                             row = seq_along(p), value = unname(p))
      p <- predict(m, newdata = newdata[[name]], re.form = rf, type = type, allow.new.levels = TRUE)
      rows[[length(rows) + 1]] <- data.frame(model = name, re_form = f, type = type, newdata = 1,
                                             row = seq_along(p), value = unname(p))
    }
  }
}
write.csv(do.call(rbind, rows), file.path(out, "simulation_predict.csv"), row.names = FALSE)

mom <- list()
add <- function(model, what, v) mom[[length(mom) + 1]] <<- data.frame(model = model, what = what,
                                                                       row = seq_along(v), value = unname(v))
for (name in c("sleepstudy", "penicillin")) {
  m <- models[[name]]
  Z <- getME(m, "Z"); L <- getME(m, "Lambda")
  add(name, "cond_mean", fitted(m))
  add(name, "cond_var", rep(sigma(m)^2, nobs(m)))
  add(name, "marg_mean", predict(m, re.form = NA))
  add(name, "marg_var", sigma(m)^2 * (rowSums((Z %*% L)^2) + 1))
}
set.seed(44)
for (name in c("cbpp", "grouseticks")) {
  m <- models[[name]]
  mu <- fitted(m)
  n <- if (name == "cbpp") cbpp$size else rep(1, nobs(m))
  add(name, "cond_mean", n * mu)
  add(name, "cond_var", if (name == "cbpp") n * mu * (1 - mu) else mu)
  s <- simulate(m, nsim = 20000, re.form = NA)
  s <- sapply(s, function(x) if (is.matrix(x)) x[, 1] else x)
  add(name, "sim_mean", rowMeans(s))
  add(name, "sim_var", apply(s, 1, var))
  add(name, "sim_n", ncol(s))
}
write.csv(do.call(rbind, mom), file.path(out, "simulation_moments.csv"), row.names = FALSE)

fun <- function(m) c(fixef(m), sigma = sigma(m), sd_int = attr(VarCorr(m)$Subject, "stddev")[[1]])
NSIM <- 1000
boot_rows <- list()
for (use.u in c(FALSE, TRUE)) {
  set.seed(1)
  b <- bootMer(models$sleepstudy, fun, nsim = NSIM, use.u = use.u)
  what <- if (use.u) "use_u" else "new_u"
  boot_rows[[length(boot_rows) + 1]] <- data.frame(
    what = what, stat = c(paste0("t0|", names(b$t0)), paste0("mean|", names(b$t0)),
                          paste0("sd|", names(b$t0)), "nsim"),
    value = c(b$t0, colMeans(b$t), apply(b$t, 2, sd), nrow(b$t)))
}
write.csv(do.call(rbind, boot_rows), file.path(out, "simulation_bootmer.csv"), row.names = FALSE)

set.seed(2)
b <- bootMer(models$sleepstudy, fun, nsim = 200)
ci_rows <- list(data.frame(what = "t0", level = NA, lower = b$t0[2], upper = NA),
                data.frame(what = "t", level = NA, lower = b$t[, 2], upper = NA))
for (level in c(0.95, 0.9)) {
  ci <- boot.ci(b, conf = level, index = 2, type = c("perc", "norm", "basic"))
  ci_rows[[length(ci_rows) + 1]] <- data.frame(
    what = c("perc", "normal", "basic"), level = level,
    lower = c(ci$percent[4], ci$normal[2], ci$basic[4]),
    upper = c(ci$percent[5], ci$normal[3], ci$basic[5]))
}
write.csv(do.call(rbind, ci_rows), file.path(out, "simulation_bootci.csv"), row.names = FALSE)

pr <- profile(models$sleepstudy)
prof <- as.data.frame(pr)
ci <- confint(pr)
names(prof)[names(prof) == "(Intercept)"] <- "Intercept"
write.csv(prof, file.path(out, "simulation_profile.csv"), row.names = FALSE)
write.csv(data.frame(par = rownames(ci), lower = ci[, 1], upper = ci[, 2]),
          file.path(out, "simulation_profile_confint.csv"), row.names = FALSE)
cat("lme4", as.character(packageVersion("lme4")), "boot", as.character(packageVersion("boot")), "\n")
