# ordinal's clm in full: the reference numbers of tests/stats/mixed/test_clm_full.py (issue 44,
# item 8: nominal and scale effects, case weights, symmetric2 thresholds, profile-likelihood
# intervals, predict's four types).
# Usage (from the repository root): Rscript benchmarks/clm_reference.R
# R 4.x with ordinal 2022.11.16 (the versions are written into the rows of model "session").
# Reads tests/fixtures/ordinal/wine.csv.gz (ordinal's wine, Randall 1989, written by
# benchmarks/ordinal_reference.R); writes
#   tests/fixtures/clm_soup.csv.gz     ordinal's soup (Christensen 2019), the columns used
#   tests/fixtures/clm_reference.csv   model,quantity,name,value (values to 15 significant digits)
#   tests/fixtures/clm_summaries.txt   print(summary(m)) of each model, after a line "=== MODEL"
# Models (every fit with ordinal's default controls):
#   wine_nominal     rating ~ temp + contact, nominal = ~contact (contactyes aliased: NA)
#   wine_scale       rating ~ temp + contact, scale = ~temp
#   wine_nom_scale   rating ~ temp, nominal = ~contact, scale = ~temp
#   wine_weights     rating ~ temp + contact, weights = rep(1:3, length.out = 72)
#   wine_symmetric2  rating ~ temp + contact, threshold = "symmetric2" (4 thresholds)
#   wine_plain       rating ~ temp + contact (profile intervals and predictions)
#   soup_nominal     SURENESS ~ PROD, nominal = ~DAY
#   soup_scale       SURENESS ~ PRODID, scale = ~PROD, link = "probit"
#   soup_symmetric2  SURENESS ~ PROD + DAY, threshold = "symmetric2", link = "cloglog" (5 thresholds)
#   soup_weights     SURENESS ~ PROD + DAY on the counts of each (SURENESS, PROD, DAY) as weights
# Rows, by quantity:
#   logLik|AIC|BIC|nobs|edf (name empty); coef|se NAME (NA for an aliased coefficient);
#   Theta NAME (nominal: "ROW/1|2", ROW the row of m$Theta);
#   profile NAME/lower|upper  confint(m) (ordinal's default: profile, spline-interpolated; none
#                             for wine_nominal: ordinal refuses to profile with an aliased coefficient);
#   wald NAME/lower|upper     confint(m, type = "Wald");
#   prob|cprob1|cprob2|eta1|eta2|class ROW/LEVEL  predict(m, newdata = grid, type = ...) for the
#     grid temp x contact (wine: cold/no, warm/no, cold/yes, warm/yes) or PROD x DAY (soup);
#     class ROW (its level);
#   fitprob|fitcprob1|fitcprob2|fiteta1|fiteta2 ROW  predict(m, type = ...) on the first 20
#     fitted rows.
suppressPackageStartupMessages(library(ordinal))
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
root <- dirname(dirname(normalizePath(script)))
fixtures <- file.path(root, "tests", "fixtures")

wine <- read.csv(gzfile(file.path(fixtures, "ordinal", "wine.csv.gz")), colClasses = c(judge = "character", bottle = "character"))
wine$rating <- factor(wine$rating, levels = 1:5, ordered = TRUE)
wine$temp <- factor(wine$temp); wine$contact <- factor(wine$contact)
wine$w <- rep(1:3, length.out = nrow(wine))
data(soup, package = "ordinal")
soup_out <- soup[, c("SURENESS", "PROD", "PRODID", "DAY")]
gz <- gzfile(file.path(fixtures, "clm_soup.csv.gz"), "w")
write.csv(soup_out, gz, row.names = FALSE)
close(gz)
soup_counts <- aggregate(n ~ SURENESS + PROD + DAY, data = transform(soup, n = 1), FUN = sum)

fits <- list(
  wine_nominal = clm(rating ~ temp + contact, nominal = ~contact, data = wine),
  wine_scale = clm(rating ~ temp + contact, scale = ~temp, data = wine),
  wine_nom_scale = clm(rating ~ temp, nominal = ~contact, scale = ~temp, data = wine),
  wine_weights = clm(rating ~ temp + contact, weights = w, data = wine),
  wine_symmetric2 = clm(rating ~ temp + contact, threshold = "symmetric2", data = wine),
  wine_plain = clm(rating ~ temp + contact, data = wine),
  soup_nominal = clm(SURENESS ~ PROD, nominal = ~DAY, data = soup),
  soup_scale = clm(SURENESS ~ PRODID, scale = ~PROD, link = "probit", data = soup),
  soup_symmetric2 = clm(SURENESS ~ PROD + DAY, threshold = "symmetric2", link = "cloglog", data = soup),
  soup_weights = clm(SURENESS ~ PROD + DAY, weights = n, data = soup_counts))
grids <- list(
  wine = data.frame(temp = factor(c("cold", "warm", "cold", "warm"), levels = c("cold", "warm")),
                    contact = factor(c("no", "no", "yes", "yes"), levels = c("no", "yes"))),
  soup = data.frame(PROD = factor(c("Ref", "Test", "Ref", "Test"), levels = c("Ref", "Test")),
                    DAY = factor(c("1", "1", "2", "2"), levels = c("1", "2")),
                    PRODID = factor(c("1", "2", "1", "3"), levels = as.character(1:6))))

rows <- list()
add <- function(model, quantity, name, value)
  rows[[length(rows) + 1]] <<- data.frame(model = model, quantity = quantity, name = name,
                                          value = trimws(formatC(as.numeric(value), digits = 15, format = "g")))
matrix_rows <- function(model, quantity, m) {
  for (i in seq_len(nrow(m))) add(model, quantity, paste0(i, "/", colnames(m)), m[i, ])
}
interval_rows <- function(model, quantity, ci) {
  add(model, quantity, paste0(rownames(ci), "/lower"), ci[, 1])
  add(model, quantity, paste0(rownames(ci), "/upper"), ci[, 2])
}
for (name in names(fits)) {
  m <- fits[[name]]
  add(name, "logLik", "", logLik(m)); add(name, "AIC", "", AIC(m)); add(name, "BIC", "", BIC(m))
  add(name, "nobs", "", m$nobs); add(name, "edf", "", m$edf)
  co <- coef(m)
  se <- rep(NA, length(co)); names(se) <- names(co)  # names repeat (scale effects): by position
  se[!is.na(co)] <- sqrt(diag(vcov(m)))
  add(name, "coef", names(co), co); add(name, "se", names(se), se)
  if (is.data.frame(m$Theta)) {
    th <- as.matrix(m$Theta[, -seq_len(ncol(m$Theta) - length(m$y.levels) + 1), drop = FALSE])
    matrix_rows(name, "Theta", th)
  } else {
    th <- m$Theta  # a named vector, or a one-row matrix with scale effects
    add(name, "Theta", if (is.null(names(th))) colnames(th) else names(th), th)
  }
  prof <- tryCatch(confint(m), error = function(e) NULL)  # NULL: "standard errors are NA" (aliased)
  if (!is.null(prof)) interval_rows(name, "profile", prof)
  interval_rows(name, "wald", confint(m, type = "Wald"))
  grid <- grids[[sub("_.*", "", name)]]
  matrix_rows(name, "prob", predict(m, newdata = grid, type = "prob")$fit)
  cp <- predict(m, newdata = grid, type = "cum.prob")
  matrix_rows(name, "cprob1", cp$cprob1); matrix_rows(name, "cprob2", cp$cprob2)
  lp <- predict(m, newdata = grid, type = "linear.predictor")
  matrix_rows(name, "eta1", lp$eta1); matrix_rows(name, "eta2", lp$eta2)
  add(name, "class", seq_len(nrow(grid)), as.character(predict(m, newdata = grid, type = "class")$fit))
  n <- 20  # the first 20 fitted rows
  add(name, "fitprob", seq_len(n), predict(m)$fit[1:n])
  cp <- predict(m, type = "cum.prob"); lp <- predict(m, type = "linear.predictor")
  add(name, "fitcprob1", seq_len(n), cp$cprob1[1:n]); add(name, "fitcprob2", seq_len(n), cp$cprob2[1:n])
  add(name, "fiteta1", seq_len(n), lp$eta1[1:n]); add(name, "fiteta2", seq_len(n), lp$eta2[1:n])
}
out <- do.call(rbind, rows)
# class rows hold level labels: formatC turned them into NA above; write them as text
for (name in names(fits)) {
  grid <- grids[[sub("_.*", "", name)]]
  out$value[out$model == name & out$quantity == "class"] <-
    as.character(predict(fits[[name]], newdata = grid, type = "class")$fit)
}
out <- rbind(out, data.frame(model = "session", quantity = "version",
                             name = c("R", "ordinal"),
                             value = c(paste(R.version$major, R.version$minor, sep = "."),
                                       as.character(packageVersion("ordinal")))))
write.csv(out, file.path(fixtures, "clm_reference.csv"), row.names = FALSE)
sink(file.path(fixtures, "clm_summaries.txt"))
for (name in names(fits)) {
  cat(paste0("=== ", name, "\n"))
  print(summary(fits[[name]]))
}
sink()
