# What every topic script of benchmarks/model_rows/ shares (not a topic: bench_models.py's
# run_topic_r skips files starting with "_"). A topic script finds and sources it with
#   script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
#   source(file.path(dirname(normalizePath(script)), "_timing.R"))
# and gets reps (its first argument, default 5), fixtures (tests/fixtures), time_rows(),
# quietly() and row().
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 5
fixtures <- file.path(dirname(dirname(dirname(normalizePath(script)))), "tests", "fixtures")

# Prints CSV on stdout, model,seconds,logLik, one row per function of models (each returns the
# model it worked on): seconds is the median of reps timings, each the mean elapsed time of k
# runs, k chosen so that one timing lasts about 0.2 s (as benchmarks/lmm_engines.R). wrap
# turns a row's function into the one timed (e.g. quietly).
time_rows <- function(models, wrap = identity) {
  cat("model,seconds,logLik\n")
  for (name in names(models)) {
    run <- wrap(models[[name]])
    first <- system.time(m <- run())[["elapsed"]]
    k <- max(1, ceiling(0.2 / max(first, 1e-3)))
    times <- sapply(seq_len(reps), function(i) system.time(for (j in seq_len(k)) run())[["elapsed"]] / k)
    cat(sprintf("%s,%.6f,%.15g\n", name, median(times), as.numeric(logLik(m))))
  }
}

# A row's function with R's warnings and messages suppressed.
quietly <- function(f) function() suppressWarnings(suppressMessages(f()))

# A row that fits, runs work on the fit and returns the fit.
row <- function(fit, work) function() { m <- fit(); work(m); m }
