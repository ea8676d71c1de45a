# ordinal's fits with an offset in the location part: every constant of
# tests/stats/mixed/test_ordinal_offset.py (issue 43, item 6).
# Usage (from the repository root): Rscript benchmarks/ordinal_offset_reference.R
# Reads MegaAcceptability v1 from $ACCEPTABILITY_DATA_DIR (default ../shared/data), the subset of
# benchmarks/ordinal_reference.R (benchmarks/mega_subset.R: the 12 verbs first by name, rows with
# a response: 3000 ratings, 408 participants, 600 items), and adds the columns
#   words   the number of words of the rated sentence (split at runs of spaces)
#   length  -0.3 * words: a length penalty of 0.3 on the latent scale per word, fixed in advance
# Writes tests/fixtures/ordinal_offset_reference.csv: model,quantity,name,value rows (values with
# 15 significant digits): for each model logLik, coef NAME, se NAME, Theta NAME (and ST GROUP for
# clmm), plus "data|sum_words" (the column's sum, so the test checks it builds the same column)
# and the versions in the rows of model "session". Models (ordinal's default controls):
#   clm_offset         rating ~ passive + offset(length)
#   clm_plain          rating ~ passive
#   clmm_offset        rating ~ passive + offset(length) + (1 | participant) + (1 | item)
#   clmm_plain         rating ~ passive + (1 | participant) + (1 | item)
#   clmm_offset_judge  rating ~ passive + offset(length) + (1 | participant), nAGQ = 10
suppressPackageStartupMessages(library(ordinal))

script_dir <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE))))
root <- dirname(script_dir)
data_dir <- Sys.getenv("ACCEPTABILITY_DATA_DIR", file.path(dirname(root), "shared", "data"))

source(file.path(script_dir, "mega_subset.R"))
mega <- mega_subset(data_dir)
mega$words <- lengths(strsplit(trimws(mega$sentence), " +"))
mega$length <- -0.3 * mega$words

fits <- list(
  clm_offset = clm(rating ~ passive + offset(length), data = mega),
  clm_plain = clm(rating ~ passive, data = mega),
  clmm_offset = clmm(rating ~ passive + offset(length) + (1 | participant) + (1 | item), data = mega),
  clmm_plain = clmm(rating ~ passive + (1 | participant) + (1 | item), data = mega),
  clmm_offset_judge = clmm(rating ~ passive + offset(length) + (1 | participant), data = mega, nAGQ = 10)
)

rows <- list()
add <- function(model, quantity, name, value) {
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = sprintf("%.15g", value))
}
add("data", "sum_words", "", sum(mega$words))
add("data", "nobs", "", nrow(mega))
for (nm in names(fits)) {
  m <- fits[[nm]]
  add(nm, "logLik", "", as.numeric(logLik(m)))
  co <- coef(m)
  se <- sqrt(diag(vcov(m)))
  for (k in names(co)) add(nm, "coef", k, co[[k]])
  for (k in names(co)) add(nm, "se", k, se[[k]])
  for (k in colnames(m$Theta)) add(nm, "Theta", k, m$Theta[1, k])
  if (inherits(m, "clmm")) for (g in names(m$ST)) add(nm, "ST", g, m$ST[[g]][1, 1])
}
out <- do.call(rbind, rows)
versions <- data.frame(model = "session", quantity = "version", name = c("R", "ordinal"),
                       value = c(paste(R.version$major, R.version$minor, sep = "."),
                                 as.character(packageVersion("ordinal"))))
write.csv(rbind(out, versions), file.path(root, "tests", "fixtures", "ordinal_offset_reference.csv"),
          row.names = FALSE)
cat("wrote", nrow(out), "rows\n")
