"""kvec's files: atomic writes (:mod:`kvec.files.atomic`), reading the files users give
(:mod:`kvec.files.vocab_reading`) and the per-user cache folder (:mod:`kvec.files.user_cache`)."""
