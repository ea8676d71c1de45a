# lme4's fits of the models of bench_models.py and bench_lmm_engines.py, with lme4's
# default settings: one line per model with the median fit time, logLik and fixed effects.
# Usage: Rscript lmm_engines.R DIR   (DIR holds sentence.csv, pair.csv and fc.csv written by
# benchmarks/lme4_frames.py; lme4's own data sets come from the lme4 package, ham from lmerTest)
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) > 1) as.integer(args[2]) else 5
chr <- function(...) sapply(c(...), function(x) "character")
sentence <- read.csv(file.path(dir, "sentence.csv"), colClasses = chr("phenomenon", "type_id"))
pair <- read.csv(file.path(dir, "pair.csv"), colClasses = chr("phenomenon"))
fc <- read.csv(file.path(dir, "fc.csv"), colClasses = chr("participant", "pair_id", "paradigm"))
ie <- InstEval
ham <- lmerTest::ham
for (k in 1:4) ham[[paste0("P", k)]] <- as.numeric(ham$Product == as.character(k))
models <- list(
  sleepstudy = function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy),
  sleepstudy_uncorr = function() lmer(Reaction ~ Days + (Days || Subject), sleepstudy),
  penicillin = function() lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin),
  pastes = function() lmer(strength ~ 1 + (1 | batch/cask), Pastes),
  cbpp = function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp,
                          family = binomial),
  cbpp_agq9 = function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp,
                               family = binomial, nAGQ = 9),
  li_adger_sentence = function() lmer(human ~ score + (1 + score | phenomenon) +
                                        (1 | phenomenon:type_id), sentence),
  li_adger_pair = function() lmer(dh ~ dlm + (1 | phenomenon), pair),
  blimp_fc = function() glmer(chose_good ~ dlm + (1 | participant) + (1 | pair_id) +
                                (1 | paradigm), fc, family = binomial),
  insteval = function() lmer(y ~ service + (1 | s) + (1 | d), ie),
  ham_factor = function() lmer(Informed.liking ~ Product + (0 + Product | Consumer), ham),
  ham_factor_int = function() lmer(Informed.liking ~ Product + (Product | Consumer), ham),
  ham_dummies = function() lmer(Informed.liking ~ Product + (0 + P1 + P2 + P3 + P4 | Consumer), ham)
)
cat("model,seconds,logLik,fixef\n")
for (name in names(models)) {
  times <- numeric(0)
  n <- if (name == "insteval") min(reps, 3) else reps
  for (i in seq_len(n)) times <- c(times, system.time(m <- suppressMessages(models[[name]]()))[["elapsed"]])
  cat(sprintf("%s,%.4f,%.15g,%s\n", name, median(times), as.numeric(logLik(m)),
              paste(sprintf("%.10g", fixef(m)), collapse = ";")))
}
