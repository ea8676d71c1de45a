# R's abbreviate() of coefficient names, as lme4 labels the "Correlation of Fixed Effects"
# (rows: minlength 11, columns: minlength 6); tests/stats/mixed/test_summary.py holds ours to it.
# Usage: Rscript benchmarks/r_abbreviate.R > tests/fixtures/r_abbreviate.csv
x <- c("(Intercept)", "period2", "Information2", "Product4:Information2", "sens2:Homesize3",
       "poly(Days, 2)1", "poly(Days, 2)2", "scale(Days)", "Age2", "AB_cd", "xY z",
       "aaaaaaaaaa1", "aaaaaaaaaa2", "tempwarm:contactyes", "log(Reaction)", "I(Days^2)",
       "factor(cyl)6", "GenderM", "passiveTRUE", "ProductProduct3")
write.csv(data.frame(name = x, min6 = unname(abbreviate(x, 6)), min11 = unname(abbreviate(x, 11))),
          stdout(), row.names = FALSE)
cat(sprintf("# %s\n", R.version.string))
