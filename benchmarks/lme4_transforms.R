# lme4 reference fits of formulas with transformed variables and offsets in the fixed part
# (scale(), poly(), log(), sqrt(), I() with arithmetic and comparisons, factor(), offset()), for
# tests/stats/mixed/test_transforms.py.
# Usage: Rscript benchmarks/lme4_transforms.R [out.csv]
#   writes out.csv (default: tests/fixtures/lme4_transforms.csv next to this script's folder):
#   quoted columns model, quantity, name, value (write.csv, 15 significant digits), then one
#   comment line with the R and lme4 versions.
# Data: lme4's sleepstudy and cbpp (the same rows as tests/fixtures/lme4/*.csv.gz), with two
# derived columns that the test builds the same way:
#   parity = "even" / "odd" by the Subject number (308 -> "even");
#   sleep_na: sleepstudy with Reaction missing in every 7th row (1-based row 7, 14, ...), so
#     that scale() and poly() are computed on all rows of Days while the fit drops those rows
#     (R's model.frame evaluates the variables before na.omit).
# Rows, for each model:
#   fixef|<name>, se|<name>           fixed effects and standard errors, lme4's names
#   vcov|<grp>|<var1>|<var2>          as.data.frame(VarCorr(m))$vcov ("" for NA)
#   logLik, npar, nobs                logLik(m) (REML criterion / 2 for REML fits), its df, nobs
#   predict|<i>, predict_fixed|<i>    predict(m, newdata, allow.new.levels = TRUE) and with
#                                     re.form = NA, row i (1-based) of the model's newdata:
#   sleepstudy models: expand.grid(Days = c(0, 2.5, 7, 12), Subject = c("308", "335", "999"))
#     with parity as above (Days varies fastest; "999" is a new subject); the factor model's
#     Days = c(0, 3, 7, 9) instead (its levels);
#   cbpp models: data.frame(herd = c("1", "3", "99", "1"), period = c("1", "2", "3", "4"),
#     size = c(10, 25, 14, 40)) ("99" is a new herd).
# All fits use bobyqa with a tight end radius (as benchmarks/lme4_reference.R does), glmer fits
# also tolPwrss = 1e-10.
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
out_file <- if (length(args) > 0) args[1] else
  file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures", "lme4_transforms.csv")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10,
                      optCtrl = list(rhoend = 1e-10, maxfun = 1e5))

sleep <- sleepstudy
sleep$Subject <- as.character(sleep$Subject)
sleep$parity <- ifelse(as.integer(sleep$Subject) %% 2 == 0, "even", "odd")
sleep_na <- sleep
sleep_na$Reaction[seq_len(nrow(sleep_na)) %% 7 == 0] <- NA
sleep_new <- expand.grid(Days = c(0, 2.5, 7, 12), Subject = c("308", "335", "999"),
                         stringsAsFactors = FALSE)
sleep_new$parity <- ifelse(as.integer(sleep_new$Subject) %% 2 == 0, "even", "odd")
sleep_levels <- transform(sleep_new, Days = rep(c(0, 3, 7, 9), 3))
herds <- cbpp
herds$herd <- as.character(herds$herd)
herds$period <- as.character(herds$period)
herd_new <- data.frame(herd = c("1", "3", "99", "1"), period = c("1", "2", "3", "4"),
                       size = c(10, 25, 14, 40))

rows <- list()
put <- function(model, quantity, name, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = value)

describe <- function(model, m, newdata) {
  fe <- fixef(m)
  put(model, "fixef", names(fe), unname(fe))
  put(model, "se", names(fe), sqrt(diag(as.matrix(vcov(m)))))
  vc <- as.data.frame(VarCorr(m))
  put(model, "vcov", paste(vc$grp, ifelse(is.na(vc$var1), "", vc$var1),
                           ifelse(is.na(vc$var2), "", vc$var2), sep = "|"), vc$vcov)
  put(model, c("logLik", "npar", "nobs"), "",
      c(as.numeric(logLik(m)), attr(logLik(m), "df"), nobs(m)))
  i <- seq_len(nrow(newdata))
  put(model, "predict", i, unname(predict(m, newdata, allow.new.levels = TRUE)))
  put(model, "predict_fixed", i, unname(predict(m, newdata, re.form = NA)))
}

lmers <- list(
  poly = Reaction ~ poly(Days, 2) + (1 | Subject),
  scale = Reaction ~ scale(Days) + (Days | Subject),
  log_response = log(Reaction) ~ Days + (1 | Subject),
  factor = Reaction ~ factor(Days) + (1 | Subject),
  poly_parity = Reaction ~ poly(Days, 2) * parity + (1 | Subject),
  parity_poly_raw = Reaction ~ parity * poly(Days, 2, raw = TRUE) + (1 | Subject),
  mixed_terms = Reaction ~ scale(Days):parity + log(Days + 1) * parity + (1 | Subject),
  center_I = Reaction ~ scale(Days, scale = FALSE) + I(Days^2/10) + sqrt(Days) + (1 | Subject),
  logical = Reaction ~ I(Days > 4) * Days + (1 | Subject)
)
for (name in names(lmers))
  describe(name, lmer(lmers[[name]], sleep, control = CTRL),
           if (name == "factor") sleep_levels else sleep_new)
describe("na_poly", lmer(Reaction ~ poly(Days, 2) + (1 | Subject), sleep_na, control = CTRL),
         sleep_new)
describe("na_scale", lmer(Reaction ~ scale(Days) * parity + (1 | Subject), sleep_na,
                          control = CTRL), sleep_new)
describe("cbpp_offset", glmer(incidence ~ period + offset(log(size)) + (1 | herd), herds,
                              poisson, control = GCTRL), herd_new)
describe("cbpp_scale", glmer(cbind(incidence, size - incidence) ~ period + scale(size) + (1 | herd),
                             herds, binomial, control = GCTRL), herd_new)

out <- do.call(rbind, rows)
write.csv(out, out_file, row.names = FALSE)
cat(sprintf("# %s, lme4 %s, Matrix %s\n", R.version.string, packageVersion("lme4"),
            packageVersion("Matrix")), file = out_file, append = TRUE)
