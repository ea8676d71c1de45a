"""The report guard (issue 28): the real pipeline run on four data sets, and every number
of every table it writes recomputed from the raw input files by code written here or by
independent libraries (numpy, scipy, pandas, scikit-learn, statsmodels)."""
