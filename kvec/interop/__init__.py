"""Reading and writing other libraries' tokenizer files (see each module)."""

from kvec.interop.huggingface import load_tokenizer_json, save_tokenizer_json

__all__ = ["load_tokenizer_json", "save_tokenizer_json"]
