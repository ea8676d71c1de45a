"""One module per model family: causal log-probability (`backends.causal`), masked-LM
pseudo-log-likelihood (`backends.masked`) and classifier signed confidence (`backends.classifier`).
Each turns batches of encoded sentences into per-token log-probabilities; the method
registry (``scoring.registry``) says which backend serves which method."""
