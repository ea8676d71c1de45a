# The MegaAcceptability v1 subset of the ordinal reference fits, sourced by
# benchmarks/ordinal_reference.R and benchmarks/ordinal_offset_reference.R (the Python side:
# tests/stats/mixed/test_ordinal.py's mega_frame()): the first n_verbs verbs by name (C-locale
# order, as Python's sorted), all their frames and participants, the rows with a response;
# rating = the response as an ordered factor 1..7, passive = the frame starts with "NP was ",
# item = "verb | frame".
mega_subset <- function(data_dir, n_verbs = 12) {
  zip <- file.path(data_dir, "megaacceptability", "mega-acceptability-v1.zip")
  d <- read.delim(unz(zip, "mega-acceptability-v1/mega-acceptability-v1.tsv"),
                  stringsAsFactors = FALSE)
  verbs <- sort(unique(d$verb), method = "radix")[1:n_verbs]
  s <- d[d$verb %in% verbs & !is.na(d$response), ]
  s$rating <- factor(s$response, levels = 1:7, ordered = TRUE)
  s$passive <- factor(ifelse(startsWith(s$frame, "NP was "), "yes", "no"), levels = c("no", "yes"))
  s$participant <- factor(s$participant)
  s$item <- factor(paste(s$verb, s$frame, sep = " | "))
  s
}
