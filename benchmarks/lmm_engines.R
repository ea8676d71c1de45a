# The R reference fits of the models of bench_models.py and bench_lmm_engines.py, each with its
# package's default settings: one line per model with the median time, logLik and fixed effects.
# Usage: Rscript lmm_engines.R DIR [REPS]
#   DIR holds sentence.csv, pair.csv and fc.csv (written by benchmarks/lme4_frames.py) and, for
#   bench_models.py, mega.csv (the MegaAcceptability subset of tests/stats/mixed/test_ordinal.py's
#   mega_frame(), written by bench_models.py); without mega.csv the ordinal rows are skipped.
#   lme4's own data sets come from lme4, ham from lmerTest, wine from ordinal, the aggregated
#   VerbAgg from tests/fixtures/lme4/verbagg_agg.csv.gz (exported by glmer_families.R).
# Prints CSV on stdout: model,seconds,logLik,fixef. seconds is the median of REPS (default 5;
# InstEval 3) timings, each the mean elapsed time of k runs, k chosen so that one timing lasts
# about 0.2 s (system.time's clock ticks in ms). A fit's time is the fit's; the rows *_anova_*
# time lmerTest::lmer plus anova(m, ddf = ...) (lmerTest; pbkrtest for Kenward-Roger) and the
# row cbpp_profile confint(m, method = "profile") on a fitted model (lme4's profile).
suppressPackageStartupMessages({library(lme4); library(ordinal)})
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
reps <- if (length(args) > 1) as.integer(args[2]) else 5
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
chr <- function(...) sapply(c(...), function(x) "character")
sentence <- read.csv(file.path(dir, "sentence.csv"), colClasses = chr("phenomenon", "type_id"))
pair <- read.csv(file.path(dir, "pair.csv"), colClasses = chr("phenomenon"))
fc <- read.csv(file.path(dir, "fc.csv"), colClasses = chr("participant", "pair_id", "paradigm"))
ie <- InstEval
ham <- lmerTest::ham
for (k in 1:4) ham[[paste0("P", k)]] <- as.numeric(ham$Product == as.character(k))
cbpp$obs <- seq_len(nrow(cbpp))                            # as tests/stats/mixed/test_glmer_families.py
ss <- sleepstudy
ss$w <- rep(c(0.5, 1, 2), length.out = nrow(ss))           # np.tile([0.5, 1, 2], 60)
va <- read.csv(gzfile(file.path(fixtures, "lme4", "verbagg_agg.csv.gz")),
               colClasses = chr("id", "Gender", "btype", "situ"))
data(wine, package = "ordinal")
cf <- cbind(incidence, size - incidence) ~ period + (1 | herd)
tf <- TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)
rf <- Reaction ~ Days + (1 | Subject)
ham3 <- Informed.liking ~ Product * Information * Gender + (1 | Consumer) + (1 | Product:Consumer)
wf <- rating ~ temp + contact + (1 | judge)
cbpp_fit <- glmer(cf, cbpp, family = binomial)
models <- list(
  sleepstudy = function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy),
  sleepstudy_uncorr = function() lmer(Reaction ~ Days + (Days || Subject), sleepstudy),
  penicillin = function() lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin),
  pastes = function() lmer(strength ~ 1 + (1 | batch/cask), Pastes),
  cbpp = function() glmer(cf, cbpp, family = binomial),
  cbpp_agq9 = function() glmer(cf, cbpp, family = binomial, nAGQ = 9),
  li_adger_sentence = function() lmer(human ~ score + (1 + score | phenomenon) +
                                        (1 | phenomenon:type_id), sentence),
  li_adger_pair = function() lmer(dh ~ dlm + (1 | phenomenon), pair),
  blimp_fc = function() glmer(chose_good ~ dlm + (1 | participant) + (1 | pair_id) +
                                (1 | paradigm), fc, family = binomial),
  insteval = function() lmer(y ~ service + (1 | s) + (1 | d), ie),
  ham_factor = function() lmer(Informed.liking ~ Product + (0 + Product | Consumer), ham),
  ham_factor_int = function() lmer(Informed.liking ~ Product + (Product | Consumer), ham),
  ham_dummies = function() lmer(Informed.liking ~ Product + (0 + P1 + P2 + P3 + P4 | Consumer), ham),
  cbpp_probit = function() glmer(cf, cbpp, family = binomial(link = "probit")),
  cbpp_cloglog = function() glmer(cf, cbpp, family = binomial(link = "cloglog")),
  cbpp_poisson_offset = function() glmer(incidence ~ period + (1 | herd), cbpp, family = poisson,
                                         offset = log(size)),
  sleepstudy_gamma_log = function() glmer(rf, ss, family = Gamma(link = "log")),
  sleepstudy_inverse_gaussian_log = function() glmer(rf, ss, family = inverse.gaussian(link = "log")),
  sleepstudy_gaussian_log = function() glmer(rf, ss, family = gaussian(link = "log")),
  grouseticks_nb = function() glmer.nb(tf, grouseticks),
  verbagg_obs = function() glmer(cbind(yes, no) ~ Anger + Gender + btype + situ + (1 | id) + (1 | obs),
                                 va, family = binomial),
  grouseticks_obs = function() glmer(TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION),
                                     grouseticks, family = poisson),
  sleepstudy_weights = function() lmer(Reaction ~ Days + (Days | Subject), ss, weights = w),
  wine_clmm = function() clmm(wf, data = wine),
  wine_clmm_agq10 = function() clmm(wf, data = wine, nAGQ = 10),
  ham_anova_satterthwaite = function() {
    m <- lmerTest::lmer(ham3, ham)
    anova(m, ddf = "Satterthwaite")
    m
  },
  ham_anova_kenward_roger = function() {
    m <- lmerTest::lmer(ham3, ham)
    anova(m, ddf = "Kenward-Roger")
    m
  },
  cbpp_profile = function() {
    confint(cbpp_fit, method = "profile")
    cbpp_fit
  }
)
if (file.exists(file.path(dir, "mega.csv"))) {
  mega <- read.csv(file.path(dir, "mega.csv"), colClasses = chr("participant", "item", "passive"))
  mega$rating <- factor(mega$rating, levels = 1:7, ordered = TRUE)
  models$mega_clmm <- function() clmm(rating ~ passive + (1 | participant) + (1 | item), data = mega)
} else {
  models <- models[!startsWith(names(models), "wine_") & !startsWith(names(models), "mega_")]
}
fixed <- function(m) if (inherits(m, "clmm")) coef(m) else fixef(m)
cat("model,seconds,logLik,fixef\n")
for (name in names(models)) {
  run <- function() suppressWarnings(suppressMessages(models[[name]]()))
  first <- system.time(m <- run())[["elapsed"]]
  k <- max(1, ceiling(0.2 / max(first, 1e-3)))
  n <- if (name == "insteval") min(reps, 3) else reps
  times <- sapply(seq_len(n), function(i) system.time(for (j in seq_len(k)) run())[["elapsed"]] / k)
  cat(sprintf("%s,%.6f,%.15g,%s\n", name, median(times), as.numeric(logLik(m)),
              paste(sprintf("%.10g", fixed(m)), collapse = ";")))
}
