# R reference fits for factor coding (issue 44, items 1, 3 and 6): ordered factors with
# contr.poly, a data column named Treatment, and contrasts = list(A = "contr.sum" |
# "contr.helmert" | "contr.poly" | matrix) on lmer, glmer, clm and clmm, with lmerTest's
# type III anova of a sum-coded fit; for tests/stats/mixed/test_contrasts.py.
# Usage: Rscript benchmarks/contrasts_reference.R [DIR]
#   writes into DIR (default: tests/fixtures next to this script's folder):
#   contrasts_reference.csv  quoted columns model, quantity, name, value (write.csv, 15
#     significant digits), then one comment line with the R and package versions;
#   contrasts_oats.csv       MASS::oats (B, V, N, Y), N's labels as R prints them (N is made an
#     ordered factor here, as issue 44 fits it; MASS stores it unordered);
#   contrasts_co2.csv        datasets::CO2 (Plant, Type, Treatment, conc, uptake);
#   contrasts_levels.csv     each factor's levels in R's order (variable, level, ordered), so that the
#     test builds the same factors (CO2's Type and Treatment are not in alphabetical order;
#     oats$N is an ordered factor). cbpp and wine come from tests/fixtures/lme4/cbpp.csv.gz and
#     tests/fixtures/ordinal/wine.csv.gz (the same rows as lme4's and ordinal's).
# Rows, for each model (lme4's / ordinal's names):
#   fixef|<name>, se|<name>     fixed effects (clm/clmm: every coefficient, thresholds first)
#                               and standard errors
#   logLik                      logLik(m) (REML criterion / 2 for REML fits)
#   predict_fixed|<i>           predict(m, newdata, re.form = NA), row i of the model's newdata
#   vcov|<grp>|<var1>|<var2>    as.data.frame(VarCorr(m))$vcov ("" for NA)
#   predict_re|~(1 + V | B), predict_re_new|~(1 + V | B)   predict(m, re.form = ~(1 + V | B))
#                               of the fitted rows and of new rows (oats, V a random slope;
#                               tests/stats/mixed/test_predict_re_form.py)
#   emmean|<level>, emmean_se|<level>   emmeans(m, ~ N) (Kenward-Roger df, emmeans' default)
#   anova3|<term>|<column>      lmerTest's anova(m, type = 3) (Satterthwaite): NumDF, DenDF,
#                               F value, Pr(>F); anova2, anova1 the same with type = 2, 1;
#                               afex3|<term>|<column> afex::mixed(method = "S")
# Versions used for the committed fixtures: R 4.2.2, lme4 1.1-31, lmerTest 3.1-3, ordinal
# 2022.11-16, emmeans 1.8.4-1, afex 1.2-1 (the comment line of contrasts_reference.csv).
# All lmer/glmer fits use bobyqa with a tight end radius, glmer also tolPwrss = 1e-10, as
# benchmarks/lme4_reference.R does; clm/clmm use ordinal's defaults.
suppressPackageStartupMessages({library(lme4); library(ordinal); library(emmeans)})
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
dir <- if (length(args) > 0) args[1] else fixtures
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10,
                      optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
oats <- MASS::oats
oats$N <- factor(oats$N, ordered = TRUE)  # as the issue fits it: contr.poly by default
co2 <- data.frame(CO2)
co2$Plant <- factor(as.character(co2$Plant))  # a plain grouping factor
cbpp <- lme4::cbpp
data(wine, package = "ordinal")

write.csv(data.frame(B = oats$B, V = oats$V, N = oats$N, Y = oats$Y),
          file.path(dir, "contrasts_oats.csv"), row.names = FALSE)
write.csv(co2[, c("Plant", "Type", "Treatment", "conc", "uptake")],
          file.path(dir, "contrasts_co2.csv"), row.names = FALSE)
lv <- function(v, f) data.frame(variable = v, level = levels(f), ordered = is.ordered(f))
write.csv(rbind(lv("oats.N", oats$N), lv("oats.V", oats$V), lv("co2.Type", co2$Type),
                lv("co2.Treatment", co2$Treatment)),
          file.path(dir, "contrasts_levels.csv"), row.names = FALSE)

rows <- list()
put <- function(model, quantity, name, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = value)
describe <- function(model, m, newdata = NULL) {
  fe <- if (inherits(m, "merMod")) fixef(m) else coef(m)
  put(model, "fixef", names(fe), unname(fe))
  put(model, "se", names(fe), sqrt(diag(as.matrix(vcov(m))))[names(fe)])
  put(model, "logLik", "", as.numeric(logLik(m)))
  if (!is.null(newdata))
    put(model, "predict_fixed", seq_len(nrow(newdata)), unname(predict(m, newdata, re.form = NA)))
}
anova3 <- function(model, m, prefix = "anova3", type = 3) {
  a <- as.data.frame(anova(m, type = type))
  for (col in c("NumDF", "DenDF", "F value", "Pr(>F)"))
    put(model, prefix, paste(rownames(a), col, sep = "|"), a[[col]])
}

# item 1: N is an ordered factor, contr.poly by R's default
oats_new <- data.frame(N = levels(oats$N), V = c("Victory", "Marvellous", "Golden.rain", "Victory"))
m <- lmer(Y ~ N + V + (1 | B/V), oats, control = CTRL)
describe("oats_poly", m, oats_new)
em <- summary(emmeans(m, ~ N))
put("oats_poly", "emmean", as.character(em$N), em$emmean)
put("oats_poly", "emmean_se", as.character(em$N), em$SE)
# an ordered factor in a random term: contr.poly there too (lme4's mkReTrms: model.matrix)
m <- lmer(Y ~ N + V + (1 + V | B), transform(oats, V = factor(V, ordered = TRUE)), control = CTRL)
describe("oats_ordered_slope", m)
vc <- as.data.frame(VarCorr(m))
put("oats_ordered_slope", "vcov", paste(vc$grp, ifelse(is.na(vc$var1), "", vc$var1),
                                        ifelse(is.na(vc$var2), "", vc$var2), sep = "|"), vc$vcov)
# predict(re.form = ...) of a factor slope: lme4 keeps the columns the formula's own term
# names ((Intercept), V.L, V.Q here); a sum-coded V (contrasts= codes the fixed part only, so
# the random term keeps R's default treatment columns VMarvellous, VVictory)
reform_new <- data.frame(B = c("I", "III", "VI"), N = levels(oats$N)[c(1, 3, 4)],
                         V = c("Victory", "Golden.rain", "Marvellous"))
reform <- function(model, m, ordered) {
  # only the whole term: ~(1 | B) stops in lme4 1.1-31, fitted rows or new ("contrasts can be
  # applied only to factors with 2 or more levels": mkNewReTrms sets the contrasts of a V it
  # does not build); the test checks it against ranef by hand
  put(model, "predict_re|~(1 + V | B)", seq_len(nobs(m)), unname(predict(m, re.form = ~(1 + V | B))))
  nd <- transform(reform_new, V = factor(V, levels(oats$V), ordered = ordered))
  put(model, "predict_re_new|~(1 + V | B)", seq_len(nrow(nd)), unname(predict(m, nd, re.form = ~(1 + V | B))))
}
reform("oats_ordered_slope", m, TRUE)
m <- lmer(Y ~ N + V + (1 + V | B), oats, control = CTRL, contrasts = list(V = "contr.sum"))
describe("oats_sum_slope", m)
reform("oats_sum_slope", m, FALSE)
# item 3: columns named Treatment and Type
describe("co2_treatment", lmer(uptake ~ Type + Treatment + (1 | Plant), co2, control = CTRL))
# item 6: contrasts= on lmer
co2_new <- data.frame(Type = c("Quebec", "Mississippi", "Mississippi"),
                      Treatment = c("chilled", "nonchilled", "chilled"), conc = c(95, 500, 1000))
m <- lmerTest::lmer(uptake ~ Type * Treatment + conc + (1 | Plant), co2, control = CTRL,
                    contrasts = list(Type = "contr.sum", Treatment = "contr.sum"))
describe("co2_sum", m, co2_new)
anova3("co2_sum", m)
cmat <- matrix(c(-3, -1, 1, 3, 1, -1, -1, 1, -1, 3, -3, 1), 4)
describe("oats_helmert_matrix",
         lmer(Y ~ V + N + (1 | B/V), oats, control = CTRL,
              contrasts = list(V = "contr.helmert", N = cmat)), oats_new)
named <- cmat[, 1:2]
colnames(named) <- c("lin", "quad")
describe("oats_named_matrix",
         lmer(Y ~ V + N + (1 | B/V), oats, control = CTRL, contrasts = list(N = named)), oats_new)
# type III on unbalanced data (rows 1, 7 and 30 left out): sum coding, and R's default coding
unbal <- oats[-c(1, 7, 30), ]
m <- lmerTest::lmer(Y ~ V * N + (1 | B/V), unbal, control = CTRL,
                    contrasts = list(V = "contr.sum", N = "contr.sum"))
describe("oats_unbalanced_sum", m)
anova3("oats_unbalanced_sum", m)
anova3("oats_unbalanced_sum", m, "anova2", type = 2)
anova3("oats_unbalanced_sum", m, "anova1", type = 1)
m <- lmerTest::lmer(Y ~ V * N + (1 | B/V), unbal, control = CTRL)
describe("oats_unbalanced_default", m)
anova3("oats_unbalanced_default", m)
anova3("oats_unbalanced_default", m, "anova2", type = 2)
a <- afex::mixed(Y ~ V * N + (1 | B/V), unbal, method = "S", progress = FALSE,
                 control = CTRL)$anova_table
for (col in c("num Df", "den Df", "F", "Pr(>F)"))
  put("oats_unbalanced_sum", "afex3", paste(rownames(a), col, sep = "|"), a[[col]])
# glmer
cbpp_new <- data.frame(period = c("1", "2", "3", "4"), size = c(10, 25, 14, 40))
cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
describe("cbpp_sum", glmer(cf, cbpp, binomial, control = GCTRL,
                           contrasts = list(period = "contr.sum")), cbpp_new)
describe("cbpp_helmert", glmer(cf, cbpp, binomial, control = GCTRL,
                               contrasts = list(period = "contr.helmert")), cbpp_new)
describe("cbpp_matrix", glmer(cf, cbpp, binomial, control = GCTRL,
                              contrasts = list(period = cmat)), cbpp_new)
describe("cbpp_poly", glmer(cf, cbpp, binomial, control = GCTRL,
                            contrasts = list(period = "contr.poly")), cbpp_new)
# clm and clmm
describe("wine_clm_sum", clm(rating ~ temp * contact, data = wine,
                             contrasts = list(temp = "contr.sum", contact = "contr.sum")))
describe("wine_clm_poly", clm(rating ~ bottle, data = wine, contrasts = list(bottle = "contr.poly")))
describe("wine_clmm_sum", clmm(rating ~ temp + contact + (1 | judge), data = wine,
                               contrasts = list(temp = "contr.sum", contact = "contr.helmert")))

out <- do.call(rbind, rows)
out_file <- file.path(dir, "contrasts_reference.csv")
write.csv(out, out_file, row.names = FALSE)
cat(sprintf("# %s, lme4 %s, lmerTest %s, ordinal %s, emmeans %s, afex %s\n", R.version.string,
            packageVersion("lme4"), packageVersion("lmerTest"), packageVersion("ordinal"),
            packageVersion("emmeans"), packageVersion("afex")), file = out_file, append = TRUE)
