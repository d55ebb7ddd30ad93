"""tiktoken rank files: the same ids as ``tiktoken.Encoding`` built from the same ranks and pattern."""

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kvec.errors import FormatError
from kvec.interop import load_tiktoken
from kvec.interop.tiktoken_ranks import PATTERNS
from kvec.pretokenizers import bytes_to_unicode
from tests.support import TEXT, Oracle, hf_trained

tiktoken = Oracle("tiktoken")
SPECIAL = {"<|endoftext|>": 5000}


def ranks_from_hf():
    """Ranks in the order a byte-level BPE learnt its tokens: the 256 bytes, then each merge."""
    model = hf_trained("bytelevel_bpe").to_str()
    import json

    document = json.loads(model)["model"]
    unspell = {c: b for b, c in bytes_to_unicode().items()}
    ranks = {bytes([b]): b for b in range(256)}
    for merge in document["merges"]:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        token = bytes(unspell[c] for c in left + right)
        ranks.setdefault(token, len(ranks))
    return ranks


@pytest.fixture(scope="module", params=["cl100k_base", "r50k_base"])
def pair(request, tmp_path_factory):
    ranks = ranks_from_hf()
    path = tmp_path_factory.mktemp("tiktoken") / "ranks.tiktoken"
    path.write_text("".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()), encoding="utf-8")
    theirs = tiktoken.Encoding(
        request.param, pat_str=PATTERNS[request.param], mergeable_ranks=ranks, special_tokens=SPECIAL
    )
    return theirs, load_tiktoken(path, request.param, special_tokens=SPECIAL)


@settings(max_examples=80)
@given(texts=st.lists(TEXT | st.text(max_size=20), min_size=1, max_size=4))
def test_ids_equal_tiktoken(pair, texts):
    theirs, ours = pair
    for text in texts:
        ids = ours.encode(text).ids
        assert ids == theirs.encode(text, allowed_special="all")
        assert ours.decode(ids, skip_special_tokens=False) == theirs.decode(ids)
    assert ours.encode("a<|endoftext|>b").ids == theirs.encode("a<|endoftext|>b", allowed_special="all")


def test_bad_rank_files_name_the_file(tmp_path):
    bad = tmp_path / "bad.tiktoken"
    bad.write_text("YQ== 0\nnot-base64! 1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="bad.tiktoken: line 2 is not a base64 token and a rank"):
        load_tiktoken(bad)
    gap = tmp_path / "gap.tiktoken"
    gap.write_text(f"{base64.b64encode(b'a').decode()} 0\n{base64.b64encode(b'abc').decode()} 1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="gap.tiktoken: token of rank 1 cannot be made from two lower-ranked tokens"):
        load_tiktoken(gap)
    empty = tmp_path / "empty.tiktoken"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(FormatError, match="empty.tiktoken: no tokens"):
        load_tiktoken(empty)


def test_exports_to_tokenizer_json_and_refuses_ids_it_cannot_hold(pair, tmp_path):
    from kvec.interop import load_tokenizer_json, save_tokenizer_json
    from kvec.pipeline import Tokenizer

    (tmp_path / "ranks.tiktoken").write_text(
        "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks_from_hf().items()), encoding="utf-8"
    )
    ours = Tokenizer.from_str(pair[1].to_str())  # a copy: kvec JSON holds Split and Sequence too
    with pytest.raises(
        ValueError, match="added token '<\\|endoftext\\|>' has id 5000, but tokenizer.json would give it"
    ):
        save_tokenizer_json(ours, tmp_path / "gapped.json")
    ours = load_tiktoken(
        tmp_path / "ranks.tiktoken",
        pattern=ours.pre_tokenizer.pretokenizers[0].get_config()["pattern"],
        special_tokens={"<|endoftext|>": len(ours.model.vocab)},
    )
    save_tokenizer_json(ours, tmp_path / "t.json")
    theirs = __import__("tokenizers").Tokenizer.from_file(str(tmp_path / "t.json"))
    again = load_tokenizer_json(tmp_path / "t.json")
    for text in ["a<|endoftext|>b 12345 héllo  \n\n x", "Return the object's JSON!"]:
        assert theirs.encode(text).ids == ours.encode(text).ids == again.encode(text).ids
