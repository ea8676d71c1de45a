# lme4's, lmerTest's and ordinal's fits of stats.rating_model's frames: every R constant in
# tests/stats/ratings/test_rating_model.py.
# Usage (from the repository root; R 4.2.2, lme4 1.1.31, lmerTest 3.1.3, ordinal 2022.11.16):
#   .venv/bin/python benchmarks/rating_models_frames.py --full /tmp/mega_full.csv.gz
#   Rscript benchmarks/rating_models.R /tmp/mega_full.csv.gz
# Reads tests/fixtures/rating_models/lau2020_none.csv.gz and mega_40verbs.csv.gz (the frames
# the Python script wrote, as the package built them) and the full MegaAcceptability frame
# (249,990 rows, 50,000 items x 729 participants; too large for the repository, so only its
# fingerprint is kept), when given. Writes
#   tests/fixtures/rating_models.csv    model,quantity,name,value rows (17 significant digits);
#                                       the versions in the rows of model "session"
#
# Fits, per frame (MODEL = <frame>_lmer or <frame>_clmm):
#   lmer  response_z ~ lm_z + (1 | participant) + (1 | item), REML, lmerTest's Satterthwaite
#         df; Lau et al. 2020 has no participant ids: response_z ~ lm_z + (1 | item)
#   clmm  factor(response, levels = scale, ordered) ~ lm_z + (1 | participant) + (1 | item),
#         Laplace; not on the full data (ordinal takes too long there)
# Rows: nobs, logLik (REML for lmer), seconds (elapsed, one fit), ngrps GROUP, fixef|se|df NAME
# (lmer), vcov GROUP (variance; Residual too), coef|se NAME (clmm: thresholds, lm_z, and the
# random-effect parameters ST1, ... as ordinal's vcov names them), ST GROUP (clmm SDs),
# max.grad (clmm).
#
# Optimisers. lme4's default (nloptwrap) stops early on both MegaAcceptability designs, where
# the participant variance of within-participant z-scores is on its boundary (0): REML
# criterion 25727.5 on mega_40verbs and 648761.6 on the full data, against 25612.9 and
# 646084.4 at the optimum that optimizer = "bobyqa", "Nelder_Mead" and the package all
# reach. So every lmer fit here uses bobyqa; row "REMLcrit_default" keeps the default's
# criterion. ordinal's default stops early on Lau et al. 2020 (logLik -4271.18063, thresholds
# 2e-4 from the optimum): its inner loop (the modes, to gradTol 1e-4) leaves the likelihood
# noisy by ~2e-4. With gradTol = 1e-12 (the modes' Newton steps then stall now and then,
# with warnings) it reaches -4271.18045, the package's optimum: that fit is the reference
# (SEs: se_ssr below), row "logLik_default" keeps the default's. On mega_40verbs its default
# agrees with the package within 6e-5 (max.grad 0.02) and is kept (a tighter fit takes
# minutes).
# Rows "sum" hold the full frame's fingerprint (its row count and sums), which the test
# checks on its own frame.
suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
  library(ordinal)
})

args <- commandArgs(trailingOnly = TRUE)
script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
root <- dirname(script_dir)
frames <- file.path(root, "tests", "fixtures", "rating_models")

read_frame <- function(path) {
  read.csv(path, colClasses = c(participant = "character", item = "character"))
}

rows <- list()
add <- function(model, quantity, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = sprintf("%.17g", value))
}

describe_lmer <- function(model, m, seconds) {
  add(model, "nobs", "", nobs(m))
  add(model, "logLik", "", as.numeric(logLik(m)))
  add(model, "seconds", "", seconds)
  for (g in names(ngrps(m))) add(model, "ngrps", g, ngrps(m)[[g]])
  co <- coef(summary(m))
  for (nm in rownames(co)) {
    add(model, "fixef", nm, co[nm, "Estimate"])
    add(model, "se", nm, co[nm, "Std. Error"])
    add(model, "df", nm, co[nm, "df"])
  }
  vc <- as.data.frame(VarCorr(m))
  for (k in seq_len(nrow(vc))) add(model, "vcov", vc$grp[k], vc$vcov[k])
}

fit_lmer <- function(model, d, formula) {
  add(model, "REMLcrit_default", "", REMLcrit(lme4::lmer(formula, data = d)))
  bobyqa <- lmerControl(optimizer = "bobyqa")
  seconds <- system.time(m <- lmerTest::lmer(formula, data = d, control = bobyqa))[["elapsed"]]
  describe_lmer(model, m, seconds)
}

fit_clmm <- function(model, d, formula, control = clmm.control(), se_of = function(m) sqrt(diag(vcov(m)))) {
  seconds <- system.time(m <- suppressWarnings(clmm(formula, data = d, control = control)))[["elapsed"]]
  add(model, "nobs", "", nobs(m))
  add(model, "logLik", "", as.numeric(logLik(m)))
  add(model, "seconds", "", seconds)
  add(model, "max.grad", "", max(abs(m$gradient)))
  for (g in names(m$dims$nlev.re)) add(model, "ngrps", g, m$dims$nlev.re[[g]])
  co <- coef(m)
  se <- se_of(m)
  for (nm in names(co)) add(model, "coef", nm, co[[nm]])
  for (nm in names(se)) add(model, "se", nm, se[[nm]])
  for (g in names(m$ST)) add(model, "ST", g, m$ST[[g]][1, 1])
  invisible(m)
}

# The SEs of a one-term fit from ordinal's own Laplace likelihood (getNLA.ssr, its inner loop
# run to gradTol 1e-12) by ordinal's deriv12 with step 1e-3, at the fitted parameters:
# vcov(m) differentiates with step 1e-4 a likelihood whose modes stall (warnings) near
# 1e-8, and its SEs move by 3% between gradTol 1e-4, 1e-8 and 1e-12 (1e-2 to 1e-3 steps
# agree within 1e-5).
se_ssr <- function(formula, d, control) {
  function(m) {
    rho <- clmm(formula, data = d, doFit = FALSE, control = control)
    nla <- function(par) ordinal:::getNLA.ssr(rho, par)
    par <- c(coef(m), log(m$ST[[1]][1, 1]))
    hess <- suppressWarnings(ordinal:::deriv12(nla, par, delta = 1e-3))$Hessian
    setNames(sqrt(diag(solve(hess))), c(names(coef(m)), "ST1"))
  }
}

lau <- read_frame(file.path(frames, "lau2020_none.csv.gz"))
fit_lmer("lau2020_none_lmer", lau, response_z ~ lm_z + (1 | item))
lau$response <- factor(lau$response, levels = 1:4, ordered = TRUE)
lau_ordinal <- response ~ lm_z + (1 | item)
tight <- clmm.control(gradTol = 1e-12)
fit_clmm("lau2020_none_clmm", lau, lau_ordinal, tight, se_ssr(lau_ordinal, lau, tight))
add("lau2020_none_clmm", "logLik_default", "", as.numeric(logLik(clmm(lau_ordinal, data = lau))))

mega <- read_frame(file.path(frames, "mega_40verbs.csv.gz"))
crossed_z <- response_z ~ lm_z + (1 | participant) + (1 | item)
fit_lmer("mega_40verbs_lmer", mega, crossed_z)
mega$response <- factor(mega$response, levels = 1:7, ordered = TRUE)
fit_clmm("mega_40verbs_clmm", mega, response ~ lm_z + (1 | participant) + (1 | item))

if (length(args) >= 1) {
  full <- read_frame(args[1])
  add("mega_full_lmer", "sum", "rows", nrow(full))
  add("mega_full_lmer", "sum", "response", sum(full$response))
  add("mega_full_lmer", "sum", "response_z", sum(full$response_z))
  add("mega_full_lmer", "sum", "lm_z", sum(full$lm_z))
  add("mega_full_lmer", "sum", "response_z*lm_z", sum(full$response_z * full$lm_z))
  fit_lmer("mega_full_lmer", full, crossed_z)
}

add("session", "R", R.version.string, NA)
for (p in c("lme4", "lmerTest", "ordinal", "Matrix")) {
  add("session", p, as.character(packageVersion(p)), NA)
}
out <- do.call(rbind, rows)
write.csv(out, file.path(root, "tests", "fixtures", "rating_models.csv"), row.names = FALSE)
cat(sprintf("wrote %d rows to tests/fixtures/rating_models.csv\n", nrow(out)))
