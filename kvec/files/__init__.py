"""kvec's files: atomic writes (:mod:`kvec.files.atomic`), reading the files users give
(:mod:`kvec.files.vocab_reading`), the per-user cache folder (:mod:`kvec.files.user_cache`) and kvec's JSON
of pipelines and stages (:mod:`kvec.files.serialization`, a stage module above the rest)."""
