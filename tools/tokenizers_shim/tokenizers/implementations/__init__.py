"""``tests/bindings/test_tokenizer.py`` imports this name at its top; the tests run here do not use it."""

BertWordPieceTokenizer = None
