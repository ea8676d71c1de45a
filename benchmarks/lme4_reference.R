# lme4 reference fits: every lme4 constant in tests/test_lmer.py and tests/test_judgment_models.py.
# Usage: python benchmarks/lme4_frames.py DIR && Rscript benchmarks/lme4_reference.R DIR [out.csv]
#   DIR/sentence.csv (human, score, phenomenon, type_id): LI-Adger sentence-level model, required;
#   DIR/pair.csv (dh, dlm, phenomenon): LI-Adger pair-level model, optional;
#   DIR/nested.csv (y, x, g, h): the synthetic nested design of tests/test_lmer.py, optional.
# Prints (and writes) name,value rows with 12 significant digits, then the R and lme4 versions.
#
# All fits use bobyqa with a tight end radius, so the numbers are the optimum rather than
# where an optimizer happened to stop: lme4's default nloptwrap stops early on the ML fit
# of the sentence model (logLik -1940.275 instead of -1940.102). "default_vs_bobyqa_max"
# is how far lme4's default REML fit of the sentence model lands from the bobyqa one.
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
fit <- function(form, data, REML = TRUE) lmer(form, data, REML = REML, control = CTRL)
rows <- list()
put <- function(name, value) rows[[length(rows) + 1]] <<- data.frame(name = name, value = value)

# fixed effects, SEs, variance components, group counts, logLik, AIC, BIC, under prefix
describe <- function(prefix, m) {
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
  describe("pair|REML|", fit(dh ~ dlm + (1 | phenomenon), pair))
}

if (file.exists(file.path(dir, "nested.csv"))) {
  nested <- read.csv(file.path(dir, "nested.csv"), colClasses = c(g = "character", h = "character"))
  describe("nested_gh|REML|", fit(y ~ x + (1 | g/h), nested))
  describe("nested_uncorr|REML|", fit(y ~ x + (1 + x || g) + (1 | g:h), nested))
  n1 <- fit(y ~ x + (1 | g), nested)
  describe("nested_g|REML|", n1)
  describe_anova("nested|anova|", n1, fit(y ~ x + (1 | g) + (1 | g:h), nested))
}

out <- do.call(rbind, rows)
cat(sprintf("%s,%.12g", out$name, out$value), sep = "\n")
cat(sprintf("# %s, lme4 %s, Matrix %s\n", R.version.string, packageVersion("lme4"),
            packageVersion("Matrix")))
if (length(args) > 1) write.csv(out, args[2], row.names = FALSE)
