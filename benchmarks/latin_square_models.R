# lme4's, lmerTest's and ordinal's fits of the Latin-square pair experiment's frame: every R
# constant in tests/stats/ratings/test_latin_square_model.py.
# Usage (from the repository root; R, lme4, lmerTest and ordinal as the "session" rows say):
#   .venv/bin/python benchmarks/latin_square_frame.py
#   Rscript benchmarks/latin_square_models.R
# Reads tests/fixtures/rating_models/latin_square.csv.gz (stats.rating_model_frame of
# TurBLiMP's human study: 6,480 ratings, 30 participants, 216 pairs). Writes
#   tests/fixtures/rating_models_latin_square.csv   model,quantity,name,value rows
#                                                   (17 significant digits)
#
# Fits (MODEL):
#   pair_z     response_z ~ condition + lm_z + (0 + condition | participant) +
#              (1 + condition | pair_id)                (stats.RATING_PAIR_FORMULA, REML)
#   pair_z_intercept  the same with (1 + condition | participant): the participant intercept
#              of within-participant z-scores, singular
#   condition_z  response_z ~ condition + (1 + condition | participant) +
#              (1 + condition | pair_id): no model score, as docs/ratings.md shows it
#   crossed_z  response_z ~ lm_z + (1 | participant) + (1 | item), item = sentence (the
#              package's former default): singular
#   pair_raw   response ~ condition + lm_z + (1 + condition | participant) +
#              (1 + condition | pair_id): raw ratings with participant intercepts
#   pair_clmm  factor(response, 1:7, ordered) ~ condition + lm_z + (1 | participant) +
#              (1 | pair_id)                            (stats.RATING_PAIR_CLMM_FORMULA)
# Rows: nobs, logLik (REML for lmer), singular (isSingular, 1/0), ngrps GROUP, fixef|se|df
# NAME (lmer; df Satterthwaite by lmerTest), vcov GROUP/VAR1/VAR2 (as.data.frame(VarCorr):
# variances and covariances, Residual too), coef|se NAME and ST GROUP (clmm).
# lmer's optimizer: bobyqa (as benchmarks/rating_models.R; the default's REML criterion is
# kept in row REMLcrit_default).
suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
  library(ordinal)
})

script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
root <- dirname(script_dir)
d <- read.csv(file.path(root, "tests", "fixtures", "rating_models", "latin_square.csv.gz"),
              colClasses = c(participant = "character", sentence_id = "character",
                             pair_id = "character"))
d$item <- d$sentence_id

rows <- list()
add <- function(model, quantity, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = sprintf("%.17g", value))
}

fit_lmer <- function(model, formula) {
  add(model, "REMLcrit_default", "", REMLcrit(lme4::lmer(formula, data = d)))
  m <- lmerTest::lmer(formula, data = d, control = lmerControl(optimizer = "bobyqa"))
  add(model, "nobs", "", nobs(m))
  add(model, "logLik", "", as.numeric(logLik(m)))
  add(model, "singular", "", as.numeric(isSingular(m)))
  for (g in names(ngrps(m))) add(model, "ngrps", g, ngrps(m)[[g]])
  co <- coef(summary(m))
  for (nm in rownames(co)) {
    add(model, "fixef", nm, co[nm, "Estimate"])
    add(model, "se", nm, co[nm, "Std. Error"])
    add(model, "df", nm, co[nm, "df"])
  }
  vc <- as.data.frame(VarCorr(m))
  for (k in seq_len(nrow(vc))) {
    name <- paste(vc$grp[k], ifelse(is.na(vc$var1[k]), "", vc$var1[k]),
                  ifelse(is.na(vc$var2[k]), "", vc$var2[k]), sep = "/")
    add(model, "vcov", name, vc$vcov[k])
  }
}

fit_lmer("pair_z", response_z ~ condition + lm_z + (0 + condition | participant) +
           (1 + condition | pair_id))
fit_lmer("pair_z_intercept", response_z ~ condition + lm_z + (1 + condition | participant) +
           (1 + condition | pair_id))
fit_lmer("condition_z", response_z ~ condition + (1 + condition | participant) +
           (1 + condition | pair_id))
fit_lmer("crossed_z", response_z ~ lm_z + (1 | participant) + (1 | item))
fit_lmer("pair_raw", response ~ condition + lm_z + (1 + condition | participant) +
           (1 + condition | pair_id))

d$response <- factor(d$response, levels = 1:7, ordered = TRUE)
m <- clmm(response ~ condition + lm_z + (1 | participant) + (1 | pair_id), data = d,
          control = clmm.control(method = "nlminb"))
add("pair_clmm", "nobs", "", nobs(m))
add("pair_clmm", "logLik", "", as.numeric(logLik(m)))
add("pair_clmm", "max.grad", "", max(abs(m$gradient)))
co <- coef(m)
se <- sqrt(diag(vcov(m)))
for (nm in names(co)) add("pair_clmm", "coef", nm, co[[nm]])
for (nm in names(co)) add("pair_clmm", "se", nm, se[[nm]])
for (g in names(m$ST)) add("pair_clmm", "ST", g, m$ST[[g]][1, 1])

add("session", "R", R.version.string, NA)
for (p in c("lme4", "lmerTest", "ordinal", "Matrix")) {
  add("session", p, as.character(packageVersion(p)), NA)
}
out <- do.call(rbind, rows)
write.csv(out, file.path(root, "tests", "fixtures", "rating_models_latin_square.csv"),
          row.names = FALSE)
cat(sprintf("wrote %d rows to tests/fixtures/rating_models_latin_square.csv\n", nrow(out)))
