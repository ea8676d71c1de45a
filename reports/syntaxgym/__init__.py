"""SyntaxGym suites in the report: accuracy per prediction, suite and circuit and the SG
score from region surprisals (``analysis``), and their tables and section (``tables``)."""
