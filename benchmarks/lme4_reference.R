# lme4 reference fit of the LI-Adger sentence-level judgment model.
# Usage: Rscript benchmarks/lme4_reference.R frame.csv [out.csv]
#   frame.csv: columns human, score, phenomenon, type_id (written by bench_models.py).
# Prints and writes name,value rows: fixed effects, their SEs, variance components,
# logLik (REML and ML) and the REML fit time in seconds (median of 3 fits).
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
frame <- read.csv(args[1], colClasses = c(phenomenon = "character", type_id = "character"))
form <- human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)
times <- sapply(1:3, function(i) system.time(m <<- lmer(form, frame, REML = TRUE))[["elapsed"]])
# ML with bobyqa: the default nloptwrap stops early on this ML fit (logLik -1940.275).
ml <- lmer(form, frame, REML = FALSE, control = lmerControl(optimizer = "bobyqa"))
vc <- as.data.frame(VarCorr(m))
vc_names <- paste(vc$grp, vc$var1, ifelse(is.na(vc$var2), "", vc$var2), sep = "|")
out <- data.frame(
  name = c(paste0("fixef|", names(fixef(m))), paste0("se|", names(fixef(m))),
           paste0("vcov|", vc_names), "logLik_REML", "logLik_ML", "singular",
           "nobs", "fit_seconds"),
  value = c(fixef(m), sqrt(diag(as.matrix(vcov(m)))), vc$vcov,
            as.numeric(logLik(m)), as.numeric(logLik(ml)), isSingular(m),
            nobs(m), median(times))
)
print(summary(m))
print(format(out, digits = 10), row.names = FALSE)
if (length(args) > 1) write.csv(out, args[2], row.names = FALSE)
