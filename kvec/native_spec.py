"""A pipeline described in bytes for kvec's native encoder outside Python (``csrc/core/spec_encoder.h``
states the format): what the TensorFlow op library's kernels encode with, so that a SavedModel holds
the whole tokenizer and serves without Python.

The description is made from the same descriptions the Python encoder runs on: the normalizer's
character rule (:meth:`kvec.contracts.Normalizer.character_rule`), the pre-tokenizer's word table
(:meth:`kvec.contracts.PreTokenizer.word_table`), the model's vocabulary and the post-processor's
affixes (its ids around each text), so the ids are the pipeline's own.

Described today:

* a :class:`kvec.pipeline.Pipeline` with no normalizer or one that works character by character
  (``Lowercase``, ``StripAccents``, ``Replace`` of one character... where no character depends on its
  neighbours; with at most one ``Prepend``), or that writes its own section
  (:meth:`kvec.contracts.Normalizer.native_normalizer`: sentencepiece's, a ``.model`` file's), special
  and added tokens, a pre-tokenizer that cuts words
  by character class (``BertPreTokenizer``, ``Whitespace``, ``WhitespaceSplit``, ``KerasFilters``,
  ``Digits``, ``Punctuation``, their ``Sequence``s, or none) or by GPT-2's or cl100k's expression
  (``ByteLevel``, ``Split`` by ``CL100K_PATTERN``), or ``SentencePiece``, whose words (a ``▁`` merged
  with the text after it) go to a Unigram lattice each, or whose whole text goes to one lattice under
  sentencepiece's rule, or :class:`kvec.chinese.Jieba` (its dictionary travels in the
  description), a WordPiece, BPE (without dropout; byte-level BPE too) or Unigram model
  (without sampling), and a post-processor that only puts ids around a text;
* a word splitter (:func:`describe_splitter`): a pre-tokenizer that cuts words as above, Jieba too;
* a :class:`kvec.Tokenizer` (the legacy Keras one): word level, with ``lower`` as Python's
  ``str.lower`` (its final sigma rule included), ``filters`` with a one-character ``split`` or
  ``char_level``; with a Jieba analyzer (jieba's words, then the Keras rule); or with such a pipeline
  as its analyzer (``subword=``, ``from_model``), its ids mapped to Keras indices; ``word_index`` with
  the ``num_words`` and ``oov_token`` rules either way.

:func:`describe` says what else stops it.

Example:
    >>> from kvec.models import WordPiece
    >>> from kvec.pipeline import Pipeline
    >>> from kvec.pretokenizers import Whitespace
    >>> spec = describe(Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace()))
    >>> spec[:4]
    b'KVEC'
"""

from __future__ import annotations

import functools
import json
import os
import struct
import sys
import unicodedata
import zlib
from array import array
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import cast

from kvec.chinese import Jieba, JiebaState
from kvec.contracts import NATIVE_DESCRIBERS, Decomposition, Model, Normalizer, PreTokenizer, WordTable
from kvec.errors import NotNativeError
from kvec.files import serialization
from kvec.files.stored_tables import stored_table
from kvec.models.spec_bytes import (
    NO_NORMALIZER,
    RUNS,
    SPLIT,
    WORD_LOOKUP,
    checked_id,
    class_runs,
    description,
    ids,
    string,
    tokens,
    u32,
)
from kvec.normalizers import Prepend, Replace
from kvec.normalizers import Sequence as NormalizerSequence
from kvec.pipeline import Pipeline
from kvec.pre_tokenizers import prepends_at_first_only
from kvec.text import Tokenizer, _word_rule
from kvec.unicode import hf_unicode

__all__ = ["NotNativeError", "describe", "describe_normalized", "describe_splitter", "describe_word_lookup"]

PAGES = 0x1100  # pages of 256 code points
SAME = 0xFFFFFFFF  # a character map entry: the code point stays itself
CHARACTER_MAP, PYTHON_LOWER, DECOMPOSITION = 1, 2, 3  # normalizer kinds (0: none, spec_bytes.NO_NORMALIZER)
ALONE = 1  # a character class (csrc/core/class_runs.h): each character a word; 0 separates words
LONGEST_REPLACEMENT = 32  # code points of a character's replacement or a prefix (csrc/core/char_map.h)


def describe(tokenizer: Pipeline | Tokenizer) -> bytes:
    """The description of ``tokenizer`` for the native encoder; :class:`NotNativeError` naming the
    stage it cannot describe."""
    if isinstance(tokenizer, Tokenizer):
        return _describe_keras(tokenizer)
    if not isinstance(tokenizer, Pipeline):
        raise NotNativeError(f"a {type(tokenizer).__name__} is not described; described: Pipeline, Tokenizer")
    return _describe_pipeline(tokenizer)


def describe_normalized(pipeline: Pipeline) -> bytes:
    """The description of ``pipeline``'s stages after its normalizer, for texts normalized already
    that hold no added token (its special and added tokens are left out): what the pipeline encodes
    natively when C cannot describe its normalizer (:meth:`kvec.pipeline.Pipeline.encode_ragged`).
    :class:`NotNativeError` naming the stage it cannot describe."""
    return _describe_pipeline(pipeline, normalized=True)


def _describe_pipeline(pipeline: Pipeline, id_map: bytes | None = None, normalized: bool = False) -> bytes:
    if not isinstance(pipeline.model, Model) or type(pipeline.model).native_model is Model.native_model:
        Model.native_model(cast(Model, pipeline.model))  # raises, naming the model
    model = cast(Model, pipeline.model)
    affixes = pipeline._affixes()
    if affixes is None:
        name = type(pipeline.post_processor).__name__
        raise NotNativeError(f"the post-processor {name} does more than put ids around a text")
    byte_spelling = ""
    normalizer = None if normalized else pipeline.normalizer
    if pipeline._segments_whole_texts():  # the model segments each piece between added tokens whole
        pre_tokenizer = class_runs(b"", RUNS, "whole")
    elif isinstance(pipeline.pre_tokenizer, Jieba):
        pre_tokenizer = class_runs(b"", RUNS, "jieba", jieba=_jieba(pipeline.pre_tokenizer.native_state()))
    else:
        table = _word_table(pipeline.pre_tokenizer, spelled_for=model, replaces=True)
        pre_tokenizer, byte_spelling = _pre_tokenizer(table), table.byte_spelling
        if table.replace:
            normalizer = _replacing(pipeline, normalizer, table.replace)
    described = model.native_model(byte_spelling)
    if normalized:
        return description(_normalizer(normalizer), pre_tokenizer, described, affixes=affixes, id_map=id_map)
    added = pipeline.added_vocabulary
    for token in added.tokens.values():
        if token.single_word or token.lstrip or token.rstrip:
            raise NotNativeError(f"the added token {token.content!r} has single_word, lstrip or rstrip")
    raw_ids, normalized_ids = added.raw_ids, added.normalized_ids
    if added.encode_special_tokens:  # special tokens are not matched: their text is encoded as any other
        special_ids = set(added.special.values())
        raw_ids = {content: i for content, i in raw_ids.items() if i not in special_ids}
        normalized_ids = {form: i for form, i in normalized_ids.items() if i not in special_ids}
    return description(
        _normalizer(normalizer),
        pre_tokenizer,
        described,
        special=raw_ids,
        added=normalized_ids,
        affixes=affixes,
        id_map=id_map,
    )


def _replacing(pipeline: Pipeline, normalizer: Normalizer | None, replace: tuple[str, str]) -> Normalizer:
    """``normalizer`` followed by the pre-tokenizer's replacement of one character by another
    (Metaspace's spaces): the same text wherever no token is matched between the two, so where the
    pipeline has no added token; and where the pre-tokenizer's prefix goes before every piece, so not
    ``prepend_scheme="first"`` behind a normalizer or a token, which may move the text's start."""
    if pipeline.added_vocabulary.normalized_ids:
        raise NotNativeError("the pre-tokenizer replaces characters after the added tokens are matched")
    # (the pipeline's normalizer, even where Python runs it first: normalized text no longer says where it starts)
    if prepends_at_first_only(pipeline.pre_tokenizer) and (
        pipeline.normalizer is not None or pipeline.added_vocabulary
    ):
        raise NotNativeError('the pre-tokenizer puts its prefix before the first piece only ("first")')
    replaced = Replace(*replace)
    return replaced if normalizer is None else NormalizerSequence([normalizer, replaced])


def describe_splitter(splitter: PreTokenizer) -> bytes:
    """The description of a word splitter (a pre-tokenizer that :class:`kvec.layers.TextVectorization`
    takes as ``tokenizer=``): its words, as its ``split_words`` gives them, are the output."""
    if isinstance(splitter, Jieba):
        jieba = _jieba(splitter.native_state())
        return description(_normalizer(None), class_runs(b"", RUNS, "jieba", jieba=jieba), u32(SPLIT))
    return description(_normalizer(None), _pre_tokenizer(_word_table(splitter, spelled_for=None)), u32(SPLIT))


def _word_table(pre_tokenizer: PreTokenizer | None, spelled_for: Model | None, replaces: bool = False) -> WordTable:
    """The pre-tokenizer's word table where the native encoder cuts the same words; ``spelled_for``:
    the model that takes byte-spelled words (None: words are not spelled, as for a splitter);
    ``replaces``: the caller writes the table's replaced character into the normalizer (Metaspace's
    spaces), and its prefix is then the pieces'."""
    table = WordTable(b"") if pre_tokenizer is None else pre_tokenizer.word_table()
    name = type(pre_tokenizer).__name__
    if table is None or (table.replace and not replaces):
        raise NotNativeError(f"the pre-tokenizer {name} cuts words by neither character classes nor an expression")
    if table.prefix and not table.spelled and not table.replace:
        raise NotNativeError(f"the pre-tokenizer {name} puts a prefix before the text")
    if spelled_for is not None and table.spelled and not (table.byte_spelling and spelled_for.spells_bytes):
        raise NotNativeError(f"the pre-tokenizer {name} spells words byte by byte for a model other than BPE")
    return table


def _describe_keras(tokenizer: Tokenizer) -> bytes:
    """A Keras tokenizer: lowercasing, the word rule, and ``word_index`` with the ``num_words`` /
    ``oov_token`` rules (``Tokenizer._ids_functions`` states them); or a pipeline analyzer (a subword
    model, ``Tokenizer.from_model``) whose ids then go through ``word_index``."""
    lookup, oov_index, _ = tokenizer._ids_functions()
    if lookup is None:
        raise NotNativeError(f"the oov_token {tokenizer.oov_token!r} is not in word_index")
    if isinstance(tokenizer.analyzer, Jieba) and not tokenizer.char_level:
        return _describe_jieba_analyzer(tokenizer, lookup, oov_index)
    if tokenizer.analyzer is not None:
        return _describe_analyzer(tokenizer, lookup, oov_index)
    if tokenizer.subword is not None:
        raise NotNativeError("this Tokenizer's subword model is not trained yet: call fit_on_texts first")
    if tokenizer.char_level:
        classes = class_runs(b"", ALONE)  # every character a word
    else:
        classes = _keras_word_classes(tokenizer.filters, tokenizer.split)
    return description(_keras_lowercase(tokenizer), classes, _word_lookup(lookup, oov_index))


def _keras_lowercase(tokenizer: Tokenizer) -> bytes:
    """The normalizer section of a Keras tokenizer: Python's ``str.lower`` when it lowers, else none."""
    return _python_lowercase() + string("") if tokenizer.lower else _normalizer(None)


def _keras_word_classes(filters: Iterable[str], split: str, jieba: bytes = b"") -> bytes:
    """Keras' word rule: words are the runs between the characters of ``filters`` and ``split``."""
    if _word_rule(filters, split).native is None:
        raise NotNativeError(f"the split {split!r} is longer than one character")
    return _separated_classes({*filters, split}, jieba)


def _separated_classes(separators: Iterable[str], jieba: bytes = b"") -> bytes:
    """Words are the runs between the characters of ``separators`` (then cut by jieba when given)."""
    codes = sorted(map(ord, separators))
    table = bytearray([RUNS]) * (codes[-1] + 1)
    for c in codes:
        table[c] = 0
    return class_runs(bytes(table), RUNS, "jieba" if jieba else "", jieba=jieba)


def describe_word_lookup(
    lookup: dict[str, int],
    unknown: int,
    character_rule: Callable[[str], str] | None,
    separators: str | None,
    rule_ends: int = 0x110000,
) -> bytes:
    """Texts mapped character by character by ``character_rule`` (None: left as they are; code points
    from ``rule_ends`` on stay themselves), cut into words at runs of the characters of ``separators``
    (None: every character is a word), each word's id looked up in ``lookup``, ``unknown`` for any
    other word: the rules of Keras' ``TextVectorization`` without a tokenizer
    (:mod:`kvec.layers.keras_rules` states them)."""
    if character_rule is None:
        normalizer = _normalizer(None)
    else:
        normalizer = u32(CHARACTER_MAP) + _character_map(character_rule, "standardize", rule_ends) + string("")
    classes = class_runs(b"", ALONE) if separators is None else _separated_classes(separators)
    return description(normalizer, classes, _word_lookup(lookup, unknown))


def _word_lookup(lookup: dict[str, int], oov_index: int | None) -> bytes:
    """The words' ids (an empty word, which no text's word is, left out) and the unknown word's."""
    if "" in lookup:
        lookup = {word: i for word, i in lookup.items() if word}
    unknown = -1 if oov_index is None else checked_id("the oov_token", oov_index)
    return u32(WORD_LOOKUP) + struct.pack("<q", unknown) + tokens(lookup)


def _describe_jieba_analyzer(tokenizer: Tokenizer, lookup: dict[str, int], oov_index: int | None) -> bytes:
    """A Keras tokenizer with a Jieba analyzer: jieba's words, each then lowercased and cut by the
    Keras rule (the default filters with Chinese punctuation), as ``Tokenizer`` joins the words with
    ``split`` and applies its rule to the text. Lowercasing word by word is the same as lowercasing the
    joined text unless ``split`` is case-ignorable (Σ's final form then looks across it)."""
    split = tokenizer.split
    if tokenizer.lower and ("AΣ" + split + "a").lower()[1] != "ς":
        raise NotNativeError(f"the split {split!r} is case-ignorable: a final sigma would look across it")
    segmenter = cast(Jieba, tokenizer.analyzer)
    jieba = _jieba(segmenter.native_state(), map_words=True)
    classes = _keras_word_classes(tokenizer._segmented_filters(), split, jieba=jieba)
    return description(_keras_lowercase(tokenizer), classes, _word_lookup(lookup, oov_index))


def _describe_analyzer(tokenizer: Tokenizer, lookup: dict[str, int], oov_index: int | None) -> bytes:
    """A Keras tokenizer whose analyzer is a pipeline: the pipeline, then its ids mapped to Keras
    indices through their tokens (``lookup``, else ``oov_index``, else dropped), as ``texts_to_sequences``
    maps them."""
    pipeline = tokenizer.analyzer
    if not isinstance(pipeline, Pipeline) or pipeline.post_processor is not None or tokenizer.char_level:
        raise NotNativeError("a Tokenizer's analyzer is described only when it is a pipeline without a post-processor")
    missing = -1 if oov_index is None else oov_index
    known = range(max(pipeline.get_vocab().values(), default=-1) + 1)
    table = [lookup.get(token, missing) if (token := pipeline.id_to_token(i)) is not None else missing for i in known]
    checked_id("the map", max(table, default=0))
    return _describe_pipeline(pipeline, id_map=struct.pack("<q", missing) + ids(table))


def _jieba(state: JiebaState, map_words: bool = False) -> bytes:
    """jieba's section: mode, HMM flag, dictionary file, HMM tables, user words, whole words, and
    whether the normalizer maps jieba's words (then cut into class runs) rather than the parts."""
    tables = array("d")
    tables.frombytes(state.hmm_tables)
    if sys.byteorder != "little":
        tables.byteswap()
    parts = [u32(state.mode), u32(int(state.hmm)), u32(len(state.dictionary)), state.dictionary, tables.tobytes()]
    parts.append(u32(len(state.user_words)))
    parts += [string(word) + struct.pack("<q", count) for word, count in state.user_words]
    parts.append(u32(len(state.whole_words)))
    parts += [string(word) for word in state.whole_words]
    return b"".join([*parts, u32(int(map_words))])


def _pre_tokenizer(table: WordTable) -> bytes:
    """A word table's section: code points past it are class 2 (EXPR_OTHER for expressions)."""
    expression = f"merged_{table.merge}" if table.merge else table.expression  # (a merged table has no expression)
    return class_runs(bytes(table.classes).rstrip(b"\x02"), RUNS, expression, table.prefix)


def _normalizer(normalizer: Normalizer | None) -> bytes:
    """The normalizer's section: the character map of its stages, then what a ``Prepend`` among them
    puts before a part (as the stages after it write it)."""
    stages = normalizer.normalizers if isinstance(normalizer, NormalizerSequence) else [normalizer]
    stages = [stage for stage in stages if stage is not None]
    places = [i for i, stage in enumerate(stages) if isinstance(stage, Prepend)]
    if len(stages) == 1 and (section := stages[0].native_normalizer()) is not None:
        return section + string("")
    if len(places) > 1:
        raise NotNativeError("the normalizer has more than one Prepend")
    prefix = ""
    if places:
        place = places[0]
        before, after = stages[:place], stages[place + 1 :]
        # a part gets the prefix when the stages before leave it not empty: when it is not empty, if
        # they never remove a character
        if before and _removes_a_character(_config(NormalizerSequence(before))):
            raise NotNativeError("the normalizer may remove every character before its Prepend")
        prefix = NormalizerSequence(after).normalize_str(cast(Prepend, stages[place]).prepend)
        if len(prefix) > LONGEST_REPLACEMENT:
            raise NotNativeError(f"the Prepend is {len(prefix)} code points; the native encoder takes at most 32")
        stages = before + after
    if not stages:
        return u32(NO_NORMALIZER) + string(prefix)
    mapped = stages[0] if len(stages) == 1 else NormalizerSequence(stages)
    try:
        return u32(CHARACTER_MAP) + _normalizer_map(_config(mapped)) + string(prefix)
    except NotNativeError:
        if mapped.decomposition() is None:
            raise
    return u32(DECOMPOSITION) + _decomposition_maps(_config(mapped)) + string(prefix)


def _config(normalizer: Normalizer) -> str:
    """The normalizer's kvec JSON: the key its tables are cached by, from which they are made."""
    try:
        return json.dumps(serialization.component_document("normalizer", normalizer), sort_keys=True)
    except (TypeError, ValueError) as unknown:  # a stage kvec's JSON cannot save is no rule its tables are made of
        raise NotNativeError(str(unknown)) from None


def _rule(config: str):
    """The character rule of the normalizer serialized as ``config``."""
    normalizer = serialization.component("normalizer", json.loads(config), "normalizer")
    rule = normalizer.character_rule()
    if rule is None:
        raise NotNativeError(f"the normalizer {type(normalizer).__name__} does not work character by character")
    return rule, type(normalizer).__name__


@lru_cache(maxsize=1)
def _rules_version() -> str:
    """What the tables depend on beside their arguments: the sources of the rules (this module, the
    normalizers, kvec's JSON of them, the Unicode tables) and Python's Unicode data."""
    folder = os.path.dirname(hf_unicode.__file__)
    sources = [__file__, sys.modules[Prepend.__module__].__file__, serialization.__file__]
    sources += [os.path.join(folder, name) for name in sorted(os.listdir(folder)) if name.endswith(".py")]
    checksums = []
    for source in sources:
        with open(cast(str, source), "rb") as file:
            checksums.append(f"{zlib.crc32(file.read()):08x}")
    return " ".join([sys.version, unicodedata.unidata_version, *checksums])


def _stored(function: Callable[..., bytes]) -> Callable[..., bytes]:
    """``function`` (of strings, giving bytes), its tables made once and then read from the user's
    cache in every process (kvec/files/stored_tables.py), the NotNativeError it raises too."""

    @functools.wraps(function)
    def stored(*args: str) -> bytes:
        def make() -> bytes:
            try:
                return b"T" + function(*args)
            except NotNativeError as refused:
                return b"E" + str(refused).encode("utf-8", "surrogatepass")

        kept = stored_table("\0".join([function.__qualname__, *args, _rules_version()]), make)
        if kept[:1] == b"E":
            raise NotNativeError(kept[1:].decode("utf-8", "surrogatepass"))
        return kept[1:]

    return stored


@lru_cache(maxsize=8)
def _removes_a_character(config: str) -> bool:
    return _removal(config) == b"\x01"


@_stored
def _removal(config: str) -> bytes:
    """``b"\\x01"`` when the character rule of the normalizer serialized as ``config`` removes a code
    point, else ``b"\\x00"``."""
    rule, _ = _rule(config)
    return b"\x01" if any(rule(chr(c)) == "" for c in range(0x110000)) else b"\x00"


@lru_cache(maxsize=8)
@_stored
def _normalizer_map(config: str) -> bytes:
    """The character map of the normalizer serialized as ``config``: what its character rule makes of
    every code point."""
    return _character_map(*_rule(config))


@lru_cache(maxsize=8)
@_stored
def _decomposition_maps(config: str) -> bytes:
    """The normalizer serialized as ``config`` as its decomposition: the table of its first rule with
    each character then decomposed, Python's combining classes, the table of its last rule."""
    normalizer = serialization.component("normalizer", json.loads(config), "normalizer")
    split = cast(Decomposition, normalizer.decomposition())
    name = type(normalizer).__name__

    def decomposed(c):
        text = split.before(c)
        return None if text is None else "".join(hf_unicode.decompose(d, split.form) for d in text)

    compositions = _compositions() if split.compose else u32(0)
    return _character_map(decomposed, name) + _combining_classes() + compositions + _character_map(split.after, name)


@lru_cache(maxsize=1)
@_stored
def _compositions() -> bytes:
    """``[first, second, composite]`` for every primary composite: each character whose canonical
    decomposition is two characters that NFC joins back into it, and the Hangul syllables (LV from L
    and V, LVT from LV and T)."""
    pairs = []
    for c in range(0x110000):
        decomposition = unicodedata.decomposition(chr(c)).split()
        if len(decomposition) == 2 and not decomposition[0].startswith("<"):
            first, second = (int(code, 16) for code in decomposition)
            if hf_unicode.compose(chr(first), chr(second)) == chr(c):
                pairs.append((first, second, c))
    for lead in range(19):
        for vowel in range(21):
            syllable = 0xAC00 + (lead * 21 + vowel) * 28
            pairs.append((0x1100 + lead, 0x1161 + vowel, syllable))
            pairs += [(syllable, 0x11A7 + trail, syllable + trail) for trail in range(1, 28)]
    pairs.sort()
    return u32(len(pairs)) + b"".join(struct.pack("<3I", *pair) for pair in pairs)


@lru_cache(maxsize=1)
@_stored
def _combining_classes() -> bytes:
    """``[first, last, class]`` for the runs of code points of one nonzero canonical combining class."""
    triples: list[int] = []
    for c in range(0x110000):
        value = hf_unicode.combining(chr(c))
        if not value:
            continue
        if triples and triples[-2] == c - 1 and triples[-1] == value:
            triples[-2] = c
        else:
            triples += [c, c, value]
    return u32(len(triples) // 3) + struct.pack(f"<{len(triples)}I", *triples)


@lru_cache(maxsize=1)
@_stored
def _python_lowercase() -> bytes:
    """Python's ``str.lower``: each character alone, then its one contextual rule, the final sigma, by
    the two properties it reads, probed from ``str.lower`` itself (csrc/core/char_map.h):
    ``c + "\u03a3"`` ends in a final sigma exactly when ``c`` is cased and not case-ignorable, and
    ``"A" + c + "\u03a3"`` exactly when ``c`` is cased or case-ignorable."""
    cased, either = [], []
    for c in map(chr, range(0x110000)):
        cased.append((c + "\u03a3").lower()[-1] == "\u03c2")
        either.append(("A" + c + "\u03a3").lower()[-1] == "\u03c2")
    ignorable = [e and not k for k, e in zip(cased, either)]
    table = _character_map(str.lower, "str.lower")
    return u32(PYTHON_LOWER) + table + _ranges(cased) + _ranges(ignorable)


def _ranges(flags: list[bool]) -> bytes:
    """``[first, last]`` pairs of the code points whose flag is set."""
    pairs: list[int] = []
    for c, flag in enumerate(flags):
        if not flag:
            continue
        if pairs and pairs[-1] == c - 1:
            pairs[-1] = c
        else:
            pairs += [c, c]
    return u32(len(pairs) // 2) + struct.pack(f"<{len(pairs)}I", *pairs)


def _character_map(rule, name: str, rule_ends: int = 0x110000) -> bytes:
    """What ``rule`` makes of every code point below ``rule_ends`` (the others stay themselves), one
    character at a time (pages of 256 that are equal are stored once)."""
    page_index: dict[bytes, int] = {}
    page_of: list[int] = []
    pool: list[int] = []  # each replacement: its length, then its code points
    replacements: dict[str, int] = {}  # a replacement -> its place in the pool
    for page in range(PAGES):
        entries = []
        for c in range(page * 256, min(page * 256 + 256, rule_ends)):
            form = rule(chr(c))
            if form is None:
                raise NotNativeError(f"the normalizer {name} changes U+{c:04X} by its neighbours")
            if form == chr(c):
                entries.append(SAME)
                continue
            if len(form) > LONGEST_REPLACEMENT:
                raise NotNativeError(
                    f"the normalizer {name} turns U+{c:04X} into {len(form)} code points; the native encoder "
                    f"takes at most {LONGEST_REPLACEMENT}"
                )
            if form not in replacements:
                replacements[form] = len(pool)
                pool += [len(form), *map(ord, form)]
            entries.append(replacements[form])
        entries += [SAME] * (256 - len(entries))
        packed = struct.pack("<256I", *entries)
        page_of.append(page_index.setdefault(packed, len(page_index)))
    return b"".join(
        [u32(len(page_index)), struct.pack(f"<{PAGES}I", *page_of), *page_index, u32(len(pool))]
        + [struct.pack(f"<{len(pool)}I", *pool)]
    )


NATIVE_DESCRIBERS.update(
    pipeline=_describe_pipeline, normalized_pipeline=describe_normalized, keras_tokenizer=_describe_keras
)
