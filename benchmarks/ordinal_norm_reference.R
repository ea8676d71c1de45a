# ordinal's reference for the ordinal norm of stats.normalize_ratings(method = "ordinal"):
# the item modes of a cumulative link mixed model on a MegaAcceptability subset.
# Usage (from the repository root):
#   Rscript benchmarks/ordinal_norm_reference.R
# Reads MegaAcceptability v1 from $ACCEPTABILITY_DATA_DIR (default ../shared/data):
# megaacceptability/mega-acceptability-v1.zip. Subset: the 40 verbs first by name (C-locale
# order, as Python's sorted), all their 50 frames and participants, rows with a response;
# item = "verb | frame" (the sentence_id of data.load_megaacceptability).
# Model: clmm(rating ~ 1 + (1 | participant) + (1 | item)), logit link, flexible thresholds,
# Laplace, ordinal's default controls. Writes
#   tests/fixtures/ordinal_norm/mega_40verbs.csv.gz   quantity,name,value rows (values with 15
#                                                     significant digits): nobs, logLik,
#                                                     Theta NAME (m$alpha), ST GROUP, seconds (elapsed
#                                                     time of the fit), version NAME, and per
#                                                     item: mode ITEM (ranef) and condVar ITEM
suppressPackageStartupMessages(library(ordinal))

script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
root <- dirname(script_dir)
data_dir <- Sys.getenv("ACCEPTABILITY_DATA_DIR", file.path(dirname(root), "shared", "data"))
zip <- file.path(data_dir, "megaacceptability", "mega-acceptability-v1.zip")
d <- read.delim(unz(zip, "mega-acceptability-v1/mega-acceptability-v1.tsv"), stringsAsFactors = FALSE)
verbs <- sort(unique(d$verb), method = "radix")[1:40]
s <- d[d$verb %in% verbs & !is.na(d$response), ]
s$rating <- factor(s$response, levels = 1:7, ordered = TRUE)
s$item <- factor(paste(s$verb, "|", s$frame))
s$participant <- factor(s$participant)

elapsed <- system.time(m <- clmm(rating ~ 1 + (1 | participant) + (1 | item), data = s))[["elapsed"]]
re <- ranef(m, condVar = TRUE)$item
cv <- attr(re, "condVar")
rows <- rbind(
  data.frame(quantity = c("nobs", "logLik", "seconds", "max.grad"), name = "",
             value = c(nobs(m), as.numeric(logLik(m)), elapsed, max(abs(m$gradient)))),
  data.frame(quantity = "Theta", name = names(m$alpha), value = unname(m$alpha)),
  data.frame(quantity = "ST", name = names(m$ST), value = unlist(m$ST)),
  data.frame(quantity = "version", name = c("R", "ordinal", "Matrix"),
             value = c(paste(R.version$major, R.version$minor, sep = "."),
                       as.character(packageVersion("ordinal")), as.character(packageVersion("Matrix")))),
  data.frame(quantity = "mode", name = rownames(re), value = re[, 1]),
  data.frame(quantity = "condVar", name = rownames(re), value = cv[, 1]))
num <- rows$quantity != "version"
rows$value[num] <- sprintf("%.15g", as.numeric(rows$value[num]))
out <- file.path(root, "tests", "fixtures", "ordinal_norm", "mega_40verbs.csv.gz")
con <- gzfile(out, "w")
write.csv(rows, con, row.names = FALSE)
close(con)
cat(sprintf("wrote %s: %d ratings, %d items, %d participants, logLik %.6f, %.1f s\n", out, nobs(m),
            nlevels(s$item), nlevels(s$participant), as.numeric(logLik(m)), elapsed))
