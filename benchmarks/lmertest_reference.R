# lmerTest / pbkrtest / emmeans reference numbers for the F tests, least-squares means and
# estimated marginal means of linear mixed models (tests/stats/mixed/test_ftests.py).
# Usage: Rscript benchmarks/lmertest_reference.R [DIR]
#   Writes tests/fixtures/lmertest_reference.csv (next to this script's folder) and exports
#   lmerTest's data sets ham and carrots as gzip CSV to tests/fixtures/lme4/ (factors as their
#   level labels; the fixed factors' labels sort in Python as R orders their levels).
#   DIR/sentence.csv (human, score, phenomenon, type_id; written by
#   `python benchmarks/lme4_frames.py DIR`) adds the LI-Adger sentence model's anova rows.
# Models (REML, bobyqa with a tight end radius, as benchmarks/lme4_reference.R fits):
#   ham_full  Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer)
#             (lmerTest's documented ham model, with Gender)
#   ham_add   Informed.liking ~ Product + Information + Gender + Age + (1 | Consumer)
#   carrots   Preference ~ sens2 + Homesize + sens2:Homesize + Age + (1 + sens2 | Consumer)
#             (a random slope; 3 rows NA)
#   sentence  human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)   (DIR only)
# Rows: model, table, method, row, column, value (15 significant digits), then the versions.
#   table "theta": getME(m, "theta") (row = its position), to test the tables at R's optimum.
#   table "anova_<I|II|III>", method "Satterthwaite"|"Kenward-Roger": anova(m, type, ddf); row =
#     term, columns lmerTest's (Sum Sq, Mean Sq, NumDF, DenDF, F value, Pr(>F)).
#   table "ls_means": ls_means(m, ddf = ddf) (every factor term); "ls_means_pairwise":
#     ls_means(m, which = the emmeans specs below, pairwise = TRUE, ddf); row = lmerTest's row name.
#   table "emmeans|<spec>" / "pairs|<spec>", method "satterthwaite"|"kenward-roger":
#     summary(emmeans(m, spec, lmer.df)) (row = the levels joined by " ") and
#     summary(pairs(...)) with emmeans' default Tukey adjustment (row = emmeans' contrast label).
suppressPackageStartupMessages({library(lmerTest); library(emmeans); library(pbkrtest)})
args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
emm_options(pbkrtest.limit = 5000, lmerTest.limit = 5000)
rows <- list()
put <- function(model, table, method, row, column, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, table = table, method = method, row = row,
                                          column = column, value = value)
put_frame <- function(model, table, method, frame, rownames) {
  for (col in names(frame)) if (is.numeric(frame[[col]]))
    put(model, table, method, rownames, col, frame[[col]])
}

export <- function(data, name, fixed) {
  for (col in fixed) {  # Python sorts a fixed factor's labels: they must sort as R orders them
    levs <- levels(data[[col]])
    if (!identical(levs, sort(levs, method = "radix"))) stop(name, "$", col, ": levels out of order")
  }
  for (col in names(data)) if (is.factor(data[[col]])) data[[col]] <- as.character(data[[col]])
  con <- gzfile(file.path(fixtures, "lme4", paste0(name, ".csv.gz")), "w")
  write.csv(data, con, row.names = FALSE)
  close(con)
}
export(ham, "ham", c("Product", "Information", "Gender"))
export(carrots, "carrots", c("Homesize", "Age"))

describe <- function(name, m, emm_specs = list(), types = c("III", "II", "I")) {
  put(name, "theta", "", seq_along(getME(m, "theta")), "", unname(getME(m, "theta")))
  for (type in types) for (ddf in c("Satterthwaite", "Kenward-Roger")) {
    a <- anova(m, type = type, ddf = ddf)
    put_frame(name, paste0("anova_", type), ddf, as.data.frame(a), rownames(a))
  }
  if (!length(emm_specs)) return(invisible())
  for (ddf in c("Satterthwaite", "Kenward-Roger")) for (pairwise in c(FALSE, TRUE)) {
    lsm <- ls_means(m, which = if (pairwise) unlist(emm_specs), pairwise = pairwise, ddf = ddf)
    put_frame(name, if (pairwise) "ls_means_pairwise" else "ls_means", ddf, as.data.frame(lsm),
              rownames(lsm))
  }
  for (spec in emm_specs) for (df in c("satterthwaite", "kenward-roger")) {
    e <- emmeans(m, as.formula(paste("~", spec)), lmer.df = df)
    s <- as.data.frame(summary(e))
    vars <- all.vars(as.formula(paste("~", spec)))
    put_frame(name, paste0("emmeans|", spec), df, s[setdiff(names(s), vars)],
              do.call(paste, unname(s[vars])))
    p <- as.data.frame(summary(pairs(e)))
    put_frame(name, paste0("pairs|", spec), df, p, as.character(p$contrast))
  }
}

ham_full <- lmer(Informed.liking ~ Product * Information * Gender + (1 | Consumer) +
                   (1 | Product:Consumer), data = ham, control = CTRL)
describe("ham_full", ham_full, list("Product", "Product:Information"))
ham_add <- lmer(Informed.liking ~ Product + Information + Gender + Age + (1 | Consumer),
                data = ham, control = CTRL)
describe("ham_add", ham_add, list("Product"))
carrots_m <- lmer(Preference ~ sens2 + Homesize + sens2:Homesize + Age + (1 + sens2 | Consumer),
                  data = carrots, control = CTRL)
describe("carrots", carrots_m, list("Homesize", "Age"))

if (length(args) && file.exists(file.path(args[1], "sentence.csv"))) {
  sentence <- read.csv(file.path(args[1], "sentence.csv"))
  sentence$phenomenon <- factor(sentence$phenomenon)
  sentence$type_id <- factor(sentence$type_id)
  m <- lmer(human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id), data = sentence,
            control = CTRL)
  describe("sentence", m, types = "III")
}

out <- do.call(rbind, rows)
versions <- c(R = paste(R.version$major, R.version$minor, sep = "."),
              lme4 = as.character(packageVersion("lme4")),
              lmerTest = as.character(packageVersion("lmerTest")),
              pbkrtest = as.character(packageVersion("pbkrtest")),
              emmeans = as.character(packageVersion("emmeans")))
out$value <- trimws(formatC(out$value, digits = 15, format = "g"))
out <- rbind(out, data.frame(model = "version", table = "", method = "", row = names(versions),
                             column = "", value = versions))
write.csv(out, file.path(fixtures, "lmertest_reference.csv"), row.names = FALSE)
cat("wrote", nrow(out), "rows to", file.path(fixtures, "lmertest_reference.csv"), "\n")
