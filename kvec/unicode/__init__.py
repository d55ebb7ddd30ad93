"""Unicode as kvec's stages read it: Hugging Face's tables (:mod:`kvec.unicode.hf_unicode`, generated data in
:mod:`kvec.unicode.hf_unicode_data`), the character classes of the native word splitter
(:mod:`kvec.unicode.char_classes`), scripts (:mod:`kvec.unicode.scripts`) and sentencepiece's precompiled
character map (:mod:`kvec.unicode.charsmap`)."""
