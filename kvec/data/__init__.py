"""Token ids as training data: any tokenizer's ids as ragged rows (:mod:`kvec.data.token_ids`), padded
batches (:mod:`kvec.data.batching`), shards on disk (:mod:`kvec.data.shards`) and the legacy count
matrices (:mod:`kvec.data.count_matrix`)."""
