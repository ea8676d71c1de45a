# Timing rows of emmeans beside benchmarks/model_rows/emmeans.py (issue 44, item 7).
# Usage (from anywhere): Rscript benchmarks/model_rows/emmeans.R REPS
# Prints CSV on stdout: model,seconds,logLik; seconds is the median of REPS timings, each the
# mean elapsed time of k runs, k chosen so that one timing lasts about 0.2 s (as
# benchmarks/lmm_engines.R). The fits are made once; each row times emmeans' tables
# (summary(), where emmeans computes df and tests). Data: tests/fixtures/emmeans_oats.csv
# (benchmarks/emmeans_reference.R), tests/fixtures/lme4/cbpp.csv.gz, tests/fixtures/ordinal/wine.csv.gz.
# R 4.x, lme4 1.1-31, pbkrtest 0.5.2, lmerTest 3.1-3, emmeans 1.8.4-1, ordinal 2022.11.16.
suppressPackageStartupMessages({library(lme4); library(emmeans); library(ordinal)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
source(file.path(dirname(normalizePath(script)), "_timing.R"))  # reps, fixtures, time_rows, quietly, row
emm_options(pbkrtest.limit = 5000, lmerTest.limit = 5000)
oats <- read.csv(file.path(fixtures, "emmeans_oats.csv"), colClasses = c(B = "character", V = "character", N = "character"))
cbpp <- read.csv(gzfile(file.path(fixtures, "lme4", "cbpp.csv.gz")),
                 colClasses = c(herd = "character", period = "character"))
wine <- read.csv(gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")))
wine$rating <- factor(wine$rating, levels = 1:5, ordered = TRUE)
m_oats <- lmer(Y ~ N * V + (1 | B/V), oats)
m_cbpp <- glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, family = binomial)
m_clm <- clm(rating ~ temp * contact, data = wine)
m_clmm <- clmm(rating ~ temp * contact + (1 | judge), data = wine)
tab <- function(x) as.data.frame(summary(x))
models <- list(
  emmeans_oats_kr_by = function() { e <- emmeans(m_oats, ~ N | V); tab(e); tab(pairs(e)); m_oats },
  emmeans_oats_satterthwaite_by = function() {
    e <- emmeans(m_oats, ~ N | V, lmer.df = "satterthwaite"); tab(e); tab(pairs(e)); m_oats },
  emmeans_oats_asymptotic_mvt = function() {
    tab(pairs(emmeans(m_oats, ~ N | V, lmer.df = "asymptotic"), adjust = "mvt")); m_oats },
  emmeans_cbpp_response = function() {
    e <- emmeans(m_cbpp, ~ period, type = "response"); tab(e); tab(pairs(e)); m_cbpp },
  emmeans_clm_latent_prob = function() {
    tab(pairs(emmeans(m_clm, ~ temp | contact))); tab(emmeans(m_clm, ~ rating | temp, mode = "prob")); m_clm },
  emmeans_clmm_latent_prob = function() {
    tab(pairs(emmeans(m_clmm, ~ temp | contact))); tab(emmeans(m_clmm, ~ rating | temp, mode = "prob")); m_clmm })
time_rows(models, function(f) function() suppressMessages(f()))
