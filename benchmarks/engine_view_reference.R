# lme4 reference numbers for the glmm engine's view of the fixed part
# (tests/stats/mixed/test_engine_view.py): a random slope that is a fixed term of an
# interaction (glmm fits it) and a transformed fixed part with a plain slope.
# Usage: Rscript benchmarks/engine_view_reference.R
#   Writes tests/fixtures/engine_view_reference.csv (next to this script's folder).
# Models (REML, bobyqa with a tight end radius, as benchmarks/lme4_reference.R fits):
#   carrots    Preference ~ sens2*Homesize + Age + (1 + sens2 | Consumer)   (lmerTest's carrots,
#              exported by benchmarks/lmertest_reference.R)
#   sleep_quad Reaction ~ Days + I(Days^2) + (1 + Days | Subject)          (lme4's sleepstudy)
# Rows: model, quantity, name, value (15 significant digits), then the versions:
#   REML (the REML criterion, REMLcrit(m); not deviance(m, REML = TRUE), which lme4 1.1-31
#   gives as 3733.13 for carrots), theta (getME, name = position),
#   fixef (name = R's column name).
suppressPackageStartupMessages({library(lmerTest)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
rows <- list()
describe <- function(name, m) {
  put <- function(quantity, names, values)
    rows[[length(rows) + 1]] <<- data.frame(model = name, quantity = quantity, name = names,
                                            value = formatC(values, digits = 15, format = "g"))
  put("REML", "", REMLcrit(m))
  put("theta", seq_along(getME(m, "theta")), getME(m, "theta"))
  put("fixef", names(fixef(m)), unname(fixef(m)))
}
describe("carrots", lme4::lmer(Preference ~ sens2 * Homesize + Age + (1 + sens2 | Consumer),
                               data = carrots, control = CTRL))
describe("sleep_quad", lme4::lmer(Reaction ~ Days + I(Days^2) + (1 + Days | Subject),
                                  data = lme4::sleepstudy, control = CTRL))
out <- do.call(rbind, rows)
versions <- data.frame(model = "version", quantity = c("R", "lme4", "lmerTest"), name = "",
                       value = c(as.character(getRversion()), as.character(packageVersion("lme4")),
                                 as.character(packageVersion("lmerTest"))))
write.csv(rbind(out, versions), file.path(fixtures, "engine_view_reference.csv"), row.names = FALSE)
