# The fixtures' writer of the ordinal reference scripts, sourced by benchmarks/ordinal_reference.R
# and benchmarks/clmm_reference.R: writes FIXTURES/STEM_reference.csv (the rows out, then the
# R, ordinal and Matrix versions as rows of model "session") and FIXTURES/STEM_summaries.txt
# (the lines summaries: R's printed summaries).
write_ordinal_fixtures <- function(out, summaries, fixtures, stem) {
  versions <- data.frame(model = "session", quantity = "version", name = c("R", "ordinal", "Matrix"),
                         value = c(paste(R.version$major, R.version$minor, sep = "."),
                                   as.character(packageVersion("ordinal")),
                                   as.character(packageVersion("Matrix"))))
  write.csv(rbind(out, versions), file.path(fixtures, paste0(stem, "_reference.csv")), row.names = FALSE)
  writeLines(summaries, file.path(fixtures, paste0(stem, "_summaries.txt")))
}
