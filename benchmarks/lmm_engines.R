# lme4's fits of the models in bench_lmm_engines.py: one line per model with logLik,
# fixed effects and the median time of 5 fits. Usage: Rscript lmm_engines.R DIR
# (DIR holds li_adger_sentence.csv from bench_lmm_engines.py; lme4's own data sets are written there).
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
sentence <- read.csv(file.path(dir, "li_adger_sentence.csv"))
write.csv(sleepstudy, file.path(dir, "sleepstudy.csv"), row.names = FALSE)
write.csv(Penicillin, file.path(dir, "penicillin.csv"), row.names = FALSE)
cb <- cbpp; cb$failures <- cb$size - cb$incidence
write.csv(cb, file.path(dir, "cbpp.csv"), row.names = FALSE)
ie <- InstEval[, c("y", "s", "d", "service")]; ie$service <- as.integer(ie$service == "1")
write.csv(ie, file.path(dir, "insteval.csv"), row.names = FALSE)
ie$s <- factor(ie$s); ie$d <- factor(ie$d)
models <- list(
  sleepstudy = function() lmer(Reaction ~ Days + (Days | Subject), sleepstudy),
  penicillin = function() lmer(diameter ~ 1 + (1 | plate) + (1 | sample), Penicillin),
  li_adger_sentence = function() lmer(human ~ score + (1 + score | phenomenon) +
                                        (1 | phenomenon:type_id), sentence),
  cbpp = function() glmer(cbind(incidence, size - incidence) ~ period + (1 | herd), cbpp,
                          family = binomial),
  insteval = function() lmer(y ~ service + (1 | s) + (1 | d), ie)
)
cat("model,engine,seconds,logLik,fixef\n")
for (name in names(models)) {
  times <- numeric(0)
  reps <- if (name == "insteval") 3 else 5
  for (i in seq_len(reps)) times <- c(times, system.time(m <- models[[name]]())[["elapsed"]])
  cat(sprintf("%s,lme4,%.4f,%.10g,%s\n", name, median(times), as.numeric(logLik(m)),
              paste(sprintf("%.10g", fixef(m)), collapse = ";")))
}
