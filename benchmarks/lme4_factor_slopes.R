# lme4 reference fits of factor-valued random slopes (tests/stats/mixed/test_factor_slopes.py).
# Usage: Rscript benchmarks/lme4_factor_slopes.R
#   Reads lmerTest's ham and carrots from lmerTest (the same data benchmarks/lmertest_reference.R
#   exports to tests/fixtures/lme4/ham.csv.gz and carrots.csv.gz, which the tests read) and writes
#   tests/fixtures/lme4_factor_slopes.csv (next to this script's folder).
# Models (the better of bobyqa and Nelder_Mead, both with tight tolerances; see fit() below):
#   ham_f0|REML, ham_f0|ML  Informed.liking ~ Product + (0 + Product | Consumer)
#                           (one indicator column per level: Product1..Product4)
#   ham_f1|REML             Informed.liking ~ Product + (Product | Consumer)
#                           (intercept and treatment contrasts Product2..Product4)
#   ham_dummy|REML          Informed.liking ~ Product + (0 + P1 + P2 + P3 + P4 | Consumer), with
#                           P1..P4 the numeric indicators of Product (the same model as ham_f0)
#   ham_uncorr|REML         Informed.liking ~ Product + (Product || Consumer): lme4 expands it to
#                           (1 | Consumer) + (0 + Product | Consumer), a factor term staying whole
#   carrots_f0|REML         Preference ~ Homesize + (0 + Homesize | Product) + (1 | Consumer)
#   carrots_mix|REML        Preference ~ sens2 + Homesize + (1 + sens2 + Homesize | Product) +
#                           (1 | Consumer)   (a numeric and a factor slope in one term)
#   Fits lme4 reports singular: carrots_f0 (correlation 1) and carrots_mix (Homesize3 SD 0).
#   ham_uncorr is over-parametrised (the intercept is in the span of Product1..Product4): its
#   likelihood, fixed effects and predictions are unique, its variance components and modes not.
# Rows: model, name, value (15 significant digits), then the R and package versions; names:
#   fixef|<coef>, se|<coef>, vcov|<grp>|<var1>|<var2>, sdcor|<grp>|<var1>|<var2> (as.data.frame
#   of VarCorr; var2 empty for a variance, grp "Residual" for sigma), logLik, REMLcrit (REML fits)
#   or deviance (ML), ranef|<grp>|<level>|<term> for a few levels and condsd|<grp>|<level>|<term>
#   (their conditional SDs, as.data.frame(ranef(m, condVar = TRUE))), and predict|<i> for the rows of
#   NEWDATA below (predict(m, newdata), every random effect included).
suppressPackageStartupMessages({library(lme4); library(lmerTest)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
ham <- lmerTest::ham
for (k in 1:4) ham[[paste0("P", k)]] <- as.numeric(ham$Product == as.character(k))
carrots <- lmerTest::carrots
NM <- lmerControl(optimizer = "Nelder_Mead",
                  optCtrl = list(FtolAbs = 1e-12, FtolRel = 1e-15, XtolRel = 1e-10, maxfun = 1e5))
fit <- function(formula, data, REML = TRUE) {
  # the better of bobyqa's and Nelder-Mead's optimum (both tight): on carrots_mix bobyqa stops at
  # a boundary point whose REML criterion is 1.9 above the optimum (3739.579 against 3737.671)
  # that Nelder_Mead, lme4's default optimizer and ours reach; on the ham models Nelder_Mead
  # stops early (2651.230 against 2651.215). Their warnings are those of the two attempts.
  fits <- suppressWarnings(suppressMessages(lapply(list(CTRL, NM), function(ctrl)
    lme4::lmer(formula, data, REML = REML, control = ctrl))))
  fits[[which.min(sapply(fits, function(m) if (REML) REMLcrit(m) else deviance(m)))]]
}
# newdata of the predictions: consumers 1 and 5 (and products 1-4); test_factor_slopes.py
# builds the same rows
ham_new <- data.frame(Consumer = factor(c("1", "1", "5", "5"), levels = levels(ham$Consumer)),
                      Product = factor(c("1", "4", "2", "3"), levels = levels(ham$Product)))
for (k in 1:4) ham_new[[paste0("P", k)]] <- as.numeric(ham_new$Product == as.character(k))
carrots_new <- data.frame(Consumer = factor(c("168", "169"), levels = levels(carrots$Consumer)),
                          Product = factor(c("Bolero_E", "Yukon_L"), levels = levels(carrots$Product)),
                          Homesize = factor(c("3", "1"), levels = levels(carrots$Homesize)),
                          sens2 = c(-1.5, 2))
models <- list(
  "ham_f0|REML" = list(fit(Informed.liking ~ Product + (0 + Product | Consumer), ham), ham_new,
                       "Consumer", c("1", "2", "3", "81")),
  "ham_f0|ML" = list(fit(Informed.liking ~ Product + (0 + Product | Consumer), ham, FALSE), ham_new,
                     "Consumer", c("1", "2", "3", "81")),
  "ham_f1|REML" = list(fit(Informed.liking ~ Product + (Product | Consumer), ham), ham_new,
                       "Consumer", c("1", "2", "3", "81")),
  "ham_dummy|REML" = list(fit(Informed.liking ~ Product + (0 + P1 + P2 + P3 + P4 | Consumer), ham),
                          ham_new, "Consumer", c("1", "2", "3", "81")),
  "ham_uncorr|REML" = list(fit(Informed.liking ~ Product + (Product || Consumer), ham), ham_new,
                           "Consumer", c("1", "2", "3", "81")),
  "carrots_f0|REML" = list(fit(Preference ~ Homesize + (0 + Homesize | Product) + (1 | Consumer),
                               carrots), carrots_new, "Product", c("Bolero_E", "Yukon_L")),
  "carrots_mix|REML" = list(fit(Preference ~ sens2 + Homesize + (1 + sens2 + Homesize | Product) +
                                  (1 | Consumer), carrots), carrots_new, "Product",
                            c("Bolero_E", "Yukon_L"))
)
rows <- list()
put <- function(model, name, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, name = name, value = value)
for (key in names(models)) {
  m <- models[[key]][[1]]
  put(key, paste0("fixef|", names(fixef(m))), unname(fixef(m)))
  put(key, paste0("se|", names(fixef(m))), unname(sqrt(diag(as.matrix(vcov(m))))))
  vc <- as.data.frame(VarCorr(m))
  v1 <- ifelse(is.na(vc$var1), "", vc$var1)
  v2 <- ifelse(is.na(vc$var2), "", vc$var2)
  put(key, paste("vcov", vc$grp, v1, v2, sep = "|"), vc$vcov)
  put(key, paste("sdcor", vc$grp, v1, v2, sep = "|"), vc$sdcor)
  put(key, "logLik", as.numeric(logLik(m)))
  if (isREML(m)) put(key, "REMLcrit", REMLcrit(m)) else put(key, "deviance", deviance(m))
  grp <- models[[key]][[3]]
  re <- ranef(m)[[grp]]
  for (level in models[[key]][[4]]) for (term in names(re))
    put(key, paste("ranef", grp, level, term, sep = "|"), re[level, term])
  cv <- as.data.frame(ranef(m, condVar = TRUE))
  cv <- cv[cv$grpvar == grp & cv$grp %in% models[[key]][[4]], ]
  put(key, paste("condsd", grp, cv$grp, cv$term, sep = "|"), cv$condsd)
  pred <- predict(m, newdata = models[[key]][[2]])
  put(key, paste0("predict|", seq_along(pred) - 1), unname(pred))
}
out <- do.call(rbind, rows)
out$value <- trimws(formatC(out$value, digits = 15, format = "g"))
versions <- data.frame(model = "version", name = c("R", "lme4", "lmerTest", "Matrix"),
                       value = c(paste(R.version$major, R.version$minor, sep = "."),
                                 as.character(packageVersion("lme4")),
                                 as.character(packageVersion("lmerTest")),
                                 as.character(packageVersion("Matrix"))))
write.csv(rbind(out, versions), file.path(fixtures, "lme4_factor_slopes.csv"), row.names = FALSE)
