"""Benchmark encoding with an imported Hugging Face model: kvec vs ``tokenizers`` on the same file.

Usage::

    .venv/bin/python bench/interop.py CORPUS [--runs 3] [--vocab-size 8000]

Hugging Face ``tokenizers`` trains a byte-level BPE model (GPT-2's pre-tokenizer and decoder,
``--vocab-size`` tokens) on CORPUS and saves it as ``tokenizer.json``; ``kvec.interop.load_tokenizer_json``
reads that file. Then every line of CORPUS is encoded to ids by both, ``encode_batch`` on each side,
``--runs`` times interleaved (kvec run i, then HF run i). The ids must be identical (a mismatch stops
the script). Printed: the medians and kvec / HF (below 1.00x kvec is faster; see bench/harness.py). Training and
loading are not timed.
"""

import argparse
import os
import tempfile

from harness import interleave, mismatch, positive_int, print_convention, read_lines, report
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

from kvec.interop import load_tokenizer_json


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", help="UTF-8 text file, one document per line")
    parser.add_argument("--runs", type=positive_int, default=3, help="runs per side (default 3)")
    parser.add_argument("--vocab-size", type=positive_int, default=8000, help="BPE vocabulary (default 8000)")
    args = parser.parse_args(argv)
    print_convention()

    lines = read_lines(args.corpus)
    hf = Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    hf.train_from_iterator(
        lines, trainers.BpeTrainer(vocab_size=args.vocab_size, initial_alphabet=alphabet, show_progress=False)
    )
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "tokenizer.json")
        hf.save(path)
        ours = load_tokenizer_json(path)
    print(f"{len(lines)} lines; HF byte-level BPE of {hf.get_vocab_size()} tokens, loaded into kvec")

    def check(kvec_ids, hf_ids):
        if kvec_ids != hf_ids:
            first = next(i for i, (a, b) in enumerate(zip(kvec_ids, hf_ids)) if a != b)
            mismatch("encode", f"line {first}: kvec {kvec_ids[first][:20]} vs HF {hf_ids[first][:20]}")

    kvec_times, hf_times, _ = interleave(
        lambda: [e.ids for e in ours.encode_batch(lines)],
        lambda: [e.ids for e in hf.encode_batch(lines)],
        args.runs,
        check,
        keep=False,
    )
    print("ids identical")
    report("encode_batch", "HF", kvec_times, hf_times)
    print(
        f"  kvec runs: {', '.join(f'{t:.3f}' for t in kvec_times)}   HF runs: {', '.join(f'{t:.3f}' for t in hf_times)}"
    )


if __name__ == "__main__":
    main()
