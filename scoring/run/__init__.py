"""How a scoring run executes: batches, the device pipeline, weight packing, the score cache and its claims, scorer versions, Dask workers, progress and the float32 recheck."""
