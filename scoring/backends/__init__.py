"""One module per model family: causal log-probability (:mod:`.causal`), masked-LM
pseudo-log-likelihood (:mod:`.masked`) and classifier signed confidence (:mod:`.classifier`).
Each turns batches of encoded sentences into per-token log-probabilities; the method
registry (``scoring.registry``) says which backend serves which method."""
