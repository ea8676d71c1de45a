"""One module per model family: causal log-probability (`backends.causal`), masked-LM
pseudo-log-likelihood (`backends.masked`), masked next-token prediction (`backends.mntp`),
encoder-decoder scores (`backends.seq2seq`), classifier signed confidence (`backends.classifier`)
and n-gram log-probability (`backends.ngram`, of `scoring.baselines`' models).
Each builds the scorer of the methods whose registry entry (``scoring.registry``) names it,
``scorer(method, options)``, and turns batches of encoded sentences into per-token
log-probabilities."""
