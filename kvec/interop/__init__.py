"""Reading and writing other libraries' tokenizer files (see each module)."""

import kvec.interop.hf_repr  # noqa: F401  (gives pipelines and stages Hugging Face's repr and str)
from kvec.interop.detection import detect_format, load
from kvec.interop.huggingface import load_tokenizer_json, save_tokenizer_json
from kvec.interop.pretrained import from_pretrained, save_pretrained
from kvec.interop.sentencepiece_model import load_sentencepiece_model
from kvec.interop.tiktoken_ranks import load_tiktoken
from kvec.interop.vocab_files import load_bert_vocab, load_gpt2_files

__all__ = [
    "detect_format",
    "load",
    "load_bert_vocab",
    "load_gpt2_files",
    "load_sentencepiece_model",
    "load_tiktoken",
    "load_tokenizer_json",
    "from_pretrained",
    "save_pretrained",
    "save_tokenizer_json",
]
