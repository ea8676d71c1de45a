# emmeans reference numbers for tests/stats/mixed/test_emmeans.py (issue 44, items 4 and 7):
# estimated marginal means and their pairwise contrasts with `by` groups, every p-value
# adjustment, lmer's three df methods, glmer on the link and response scales, clm and clmm
# on the latent scale and as class probabilities, and factor(x) of an integer column.
# Usage: Rscript benchmarks/emmeans_reference.R
#   Writes tests/fixtures/emmeans_reference.csv and tests/fixtures/emmeans_oats.csv (MASS's
#   oats: B, V, N as labels, nitro = N in tenths of a cwt as an integer column, Y).
#   cbpp comes from tests/fixtures/lme4/cbpp.csv.gz, wine from tests/fixtures/ordinal/wine.csv.gz
#   (the same data as lme4's and ordinal's).
# Versions (R 4.2): lme4 1.1-31, lmerTest 3.1-3, pbkrtest 0.5.2, emmeans 1.8.4-1,
#   ordinal 2022.11.16, mvtnorm 1.1-3, MASS 7.3. Takes about 4 minutes (the precise mvt).
# Models (lmer REML with bobyqa and a tight end radius; glmer bobyqa, tight; clm with a tight
#   gradient tolerance; clmm with ordinal's defaults, see below):
#   oats     Y ~ N * V + (1 | B/V)
#   nitro    Y ~ factor(nitro) + V + (1 | B/V)
#   cbpp     cbind(incidence, size - incidence) ~ period + (1 | herd), binomial
#   clm      rating ~ temp * contact                      (ordinal's wine)
#   clmm     rating ~ temp * contact + (1 | judge)
# Rows: case, row (1-based row of emmeans' summary), column (emmeans' column name), value
#   (15 significant digits; labels as printed). Each case is named
#   model|specs|what|option, e.g. "oats|N|V|pairs|kenward-roger|holm". For adjust = "mvt"
#   emmeans' p-values come from mvtnorm::pmvt with its default abseps = 0.001 (and a seed);
#   the column "p.precise" is the same probability from mvtnorm::pmvt with abseps = 1e-6.
suppressPackageStartupMessages({library(lme4); library(emmeans); library(ordinal); library(mvtnorm)})
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
fixtures <- file.path(dirname(dirname(normalizePath(script))), "tests", "fixtures")
emm_options(pbkrtest.limit = 5000, lmerTest.limit = 5000)
CTRL <- lmerControl(optimizer = "bobyqa", optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
# glmer: a tight PIRLS tolerance too, as benchmarks/lme4_reference.R (lme4's default tolPwrss =
# 1e-7 leaves the cbpp logLik 2.8e-4 below its optimum)
GCTRL <- glmerControl(optimizer = "bobyqa", tolPwrss = 1e-10,
                      optCtrl = list(rhoend = 1e-10, maxfun = 1e5))
oats <- MASS::oats
oats <- data.frame(B = as.character(oats$B), V = as.character(oats$V), N = as.character(oats$N),
                   nitro = as.integer(round(10 * as.numeric(sub("cwt", "", oats$N)))), Y = oats$Y)
write.csv(oats, file.path(fixtures, "emmeans_oats.csv"), row.names = FALSE)
cbpp <- read.csv(gzfile(file.path(fixtures, "lme4", "cbpp.csv.gz")),
                 colClasses = c(herd = "character", period = "character"))
wine <- read.csv(gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")),
                 colClasses = c(judge = "character", bottle = "character"))
wine$rating <- factor(wine$rating, levels = 1:5, ordered = TRUE)

m_oats <- lmer(Y ~ N * V + (1 | B/V), oats, control = CTRL)
m_nitro <- lmer(Y ~ factor(nitro) + V + (1 | B/V), oats, control = CTRL)
m_cbpp <- glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp, family = binomial,
                control = GCTRL)
m_clm <- clm(rating ~ temp * contact, data = wine, control = clm.control(gradTol = 1e-10))
# clmm with ordinal's defaults: its standard errors come from a numerical Hessian (numDeriv) of
# a Laplace likelihood whose inner mode search stops at a tolerance, and move in the third
# significant digit with the control (SE(1|2): default 0.70029, gradTol = 1e-8 0.69980,
# method = "ucminf" 0.69144; SE(contactyes) 0.70197, 0.70345, 0.68740); at the defaults they
# agree with the package's to 6e-5.
m_clmm <- clmm(rating ~ temp * contact + (1 | judge), data = wine)

rows <- list()
add <- function(case, x) {
  s <- as.data.frame(summary(x))
  for (col in names(s)) {
    v <- s[[col]]
    v <- if (is.numeric(v)) formatC(v, digits = 15, format = "g") else as.character(v)
    rows[[length(rows) + 1]] <<- data.frame(case = case, row = seq_along(v), column = col,
                                           value = trimws(v))
  }
}
precise_mvt <- function(case, p) {  # pmvt at abseps 1e-6 on emmeans' correlation of the family
  s <- as.data.frame(summary(p, adjust = "none"))
  t <- s[[grep("ratio", names(s))]]
  df <- emmeans:::.fix.df(s$df)
  corr <- cov2cor(vcov(p))
  by <- if (is.null(p@misc$by.vars)) rep(1, nrow(s)) else interaction(s[p@misc$by.vars])
  out <- sapply(seq_along(t), function(i) {
    idx <- which(by == by[i])
    k <- length(idx)
    set.seed(1)
    1 - pmvt(rep(-abs(t[i]), k), rep(abs(t[i]), k), df = df[i], corr = corr[idx, idx],
             algorithm = GenzBretz(maxpts = 5e6, abseps = 1e-6))
  })
  rows[[length(rows) + 1]] <<- data.frame(case = case, row = seq_along(out), column = "p.precise",
                                         value = formatC(out, digits = 15, format = "g"))
}
ADJUST <- c("tukey", "bonferroni", "holm", "sidak", "none", "mvt")
pairs_all <- function(name, e, adjusts = ADJUST) {
  for (a in adjusts) {
    set.seed(1)
    p <- pairs(e, adjust = a)
    add(paste(name, "pairs", a, sep = "|"), p)
    if (a == "mvt") precise_mvt(paste(name, "pairs", a, sep = "|"), p)
  }
}

# lmer: by groups, three df methods, every adjustment
for (df in c("kenward-roger", "satterthwaite", "asymptotic")) {
  e <- emmeans(m_oats, ~ N | V, lmer.df = df)
  add(paste("oats|N|V|means", df, sep = "|"), e)
  pairs_all(paste("oats|N|V", df, sep = "|"), e, if (df == "kenward-roger") ADJUST else c("tukey", "mvt"))
  add(paste("oats|V||means", df, sep = "|"), emmeans(m_oats, ~ V, lmer.df = df))
}
# factor(x) of an integer column
e <- emmeans(m_nitro, ~ nitro)
add("nitro|nitro||means|kenward-roger", e)
pairs_all("nitro|nitro||kenward-roger", e, "tukey")
# glmer: link and response scales
e <- emmeans(m_cbpp, ~ period)
add("cbpp|period||means|link", e)
pairs_all("cbpp|period||link", e)
e <- emmeans(m_cbpp, ~ period, type = "response")
add("cbpp|period||means|response", e)
pairs_all("cbpp|period||response", e, "tukey")
# clm and clmm: latent scale and class probabilities
for (name in c("clm", "clmm")) {
  m <- if (name == "clm") m_clm else m_clmm
  e <- emmeans(m, ~ temp | contact)
  add(paste(name, "temp|contact|means|latent", sep = "|"), e)
  pairs_all(paste(name, "temp|contact|latent", sep = "|"), e, "tukey")
  e <- emmeans(m, ~ temp * contact)
  add(paste(name, "temp:contact||means|latent", sep = "|"), e)
  pairs_all(paste(name, "temp:contact||latent", sep = "|"), e, c("tukey", "mvt"))
  e <- emmeans(m, ~ rating | temp, mode = "prob")
  add(paste(name, "rating|temp|means|prob", sep = "|"), e)
  e <- emmeans(m, ~ contact | rating, mode = "prob")
  add(paste(name, "contact|rating|means|prob", sep = "|"), e)
}
fits <- data.frame(case = c("oats", "nitro", "cbpp", "clm", "clmm"), row = 1, column = "logLik",
                   value = formatC(c(logLik(m_oats), logLik(m_nitro), logLik(m_cbpp), logLik(m_clm),
                                     logLik(m_clmm)), digits = 15, format = "g"))
out <- rbind(do.call(rbind, rows), fits)
write.csv(out, file.path(fixtures, "emmeans_reference.csv"), row.names = FALSE)
cat("wrote", nrow(out), "rows\n")
