"""One module per model family: causal log-probability (`backends.causal`), masked-LM
pseudo-log-likelihood (`backends.masked`), masked next-token prediction (`backends.mntp`),
encoder-decoder scores (`backends.seq2seq`) and classifier signed confidence (`backends.classifier`).
Each turns batches of encoded sentences into per-token log-probabilities; the method
registry (``scoring.registry``) says which backend serves which method."""
