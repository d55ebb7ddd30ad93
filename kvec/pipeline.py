"""A subword tokenizer: normalizer -> pre-tokenizer -> model, and a decoder back.

Data flows one way: the normalizer cleans the text (remembering where each character came from), the
pre-tokenizer cuts it into pieces (words, with the original offsets of
each character), the model turns each piece into tokens, and the encoding collects ids, tokens and
offsets into the original text. The decoder turns tokens back into text.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from kvec._encoder import PieceTable, encodings
from kvec._spec import SpecEncoder
from kvec.added_vocabulary import AddedToken, AddedVocabulary
from kvec.common.arguments import MAX_ID, wrong_type
from kvec.common.collector import collector_paused
from kvec.common.ragged import rows_to_ragged
from kvec.contracts import (
    NATIVE_DESCRIBERS,
    PRINTERS,
    Decoder,
    Model,
    Normalized,
    Normalizer,
    Piece,
    PieceDecoder,
    PostProcessor,
    PreTokenizer,
    Trainer,
    settings_key,
)
from kvec.encoding import (
    DIRECTIONS,
    STRATEGIES,
    Encoding,
    non_negative_int,
    one_of,
    pad_encodings,
    truncate_encodings,
)
from kvec.errors import FormatError, NotNativeError, check_json_depth
from kvec.files import serialization
from kvec.pre_tokenizers import prepends_at_first_only
from kvec.trainers.counting import count_words, iterate_files
from kvec.transformers_calls import TransformersCalls

__all__ = ["Encoding", "Pipeline", "Tokenizer", "TrainingWords"]


class TrainingWords:
    """Cut out special tokens, normalize, cut out added tokens, then pre-tokenize: the words a
    trainer counts (tokens the tokenizer already matches whole are not counted). A picklable object
    with a pre-tokenizer's ``split_words`` and ``spell``, so worker processes can count with it."""

    def __init__(
        self, normalizer: Normalizer | None, pre_tokenizer: PreTokenizer | None, added: AddedVocabulary | None = None
    ) -> None:
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.added = added if added else None

    def split_words(self, text: str) -> list[str]:
        if self.added is None:
            segment, original = self._normalized(text)
            return self._words(segment, _first_count(original, 0, len(segment)))
        words = []
        for start, end, special_id in self.added.split_raw(text):
            if special_id is not None:
                continue
            segment, original = self._normalized(text[start:end])
            for part_start, part_end, added_id in self.added.split_normalized(segment):
                if added_id is None:
                    first = _first_count(original, part_start, part_end) if start == 0 else 0
                    words += self._words(segment[part_start:part_end], first)
        return words

    def _normalized(self, text):
        """The normalized text, and where its characters come from: a function of a span, or None where
        nothing reads it (only a pre-tokenizer that prepends to the first word alone does, as
        tokenizers decides which word is first by its offsets)."""
        if self.normalizer is None:
            return text, None
        if not prepends_at_first_only(self.pre_tokenizer):
            return self.normalizer.normalize_str(text), None
        normalized = self.normalizer.normalize(Normalized.of(text))
        return normalized.text, normalized.original

    def _words(self, text, first):
        if self.pre_tokenizer is None:
            return [text] if text else []
        return self.pre_tokenizer.split_words(text, first)

    def spell(self, word: str) -> str:
        return word if self.pre_tokenizer is None else self.pre_tokenizer.spell(word)


def _first_count(original, start, end):
    """How many of the characters [start, end) of a normalized text, from ``start`` on, start at the
    original text's first character, as tokenizers decides which piece is first (a normalizer that
    removes, replaces or prepends characters moves them); ``original``: a normalized span's original
    span, or None where the text is its own original."""
    if original is None:
        return int(start == 0 and start < end)
    count = 0
    while start + count < end and original(start + count, start + count + 1)[0] == 0:
        count += 1
    return count


def _as_str(text):
    return text.decode("utf-8") if isinstance(text, bytes) else text


#: The cores this process may run on, read once (``os.cpu_count`` asks the system each call, about 10 us).
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _threads(n_threads):
    """The thread count ``n_threads`` asks for (None: one per core), checked."""
    if n_threads is None:
        return CORES
    if isinstance(n_threads, bool) or not isinstance(n_threads, int):
        raise TypeError(f"n_threads must be an int or None, got {type(n_threads).__name__}")
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    return n_threads


def _parts(n_threads, count):
    """How many threads a batch of ``count`` texts is shared between: at most ``n_threads``, and at least
    64 texts each."""
    return max(1, min(n_threads, count // 64))


def native_ids(encoder: SpecEncoder, texts: list[Any], n_threads: int | None) -> tuple[bytes, bytes] | None:
    """``encoder``'s ``(values, row_lengths)`` of ``texts`` from one call, its threads sharing the batch
    without the GIL (up to ``n_threads``, None: one per core; at least 64 texts each), or None when it
    refuses a text (a lone surrogate, which UTF-8 cannot carry, or a word with no piece)."""
    try:
        return encoder.encode(texts, _parts(_threads(n_threads), len(texts)))
    except ValueError:
        return None


#: Parts per thread when a batch is encoded on threads: the calling thread makes the Python objects of
#: the parts done while the threads encode the next ones.
_PARTS_PER_THREAD = 8

#: Parts per thread when the native encoder's own threads take them (``SpecEncoder.encode_parts``): they
#: never wait for the GIL between parts, so smaller parts cost nothing and leave less to the last one.
_STREAMED_PARTS_PER_THREAD = 32


def _check_strs(texts):
    """TypeError naming the first of ``texts`` that is not a str."""
    if set(map(type, texts)) - {str}:
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{position}] must be a str, got {type(text).__name__}")


def _part_bounds(threads, count, per_thread=_PARTS_PER_THREAD):
    """Where the parts of a batch of ``count`` texts shared between ``threads`` threads start, then
    ``count``: about ``per_thread`` parts per thread, of at least 64 texts."""
    parts = max(1, min(threads * per_thread, count // 64))
    return [count * k // parts for k in range(parts + 1)]


def _refused_part(count):
    """A part of ``count`` texts that the native encoder refused, as ``_native_parts`` gives it: no ids,
    and every text for the reference encoder to encode again."""
    return b"", bytes(8 * count), list(range(count))


def _encoded_parts(encode, texts, n_threads):
    """``encode`` over ``texts``, in order, as ``(start, result)`` for each part: the whole batch in the
    calling thread for one thread, else parts of at least 64 texts, about ``_PARTS_PER_THREAD`` per
    thread, encoded ``n_threads`` at a time (the native encoders run without the GIL) while the caller
    takes the results of those done."""
    threads = _parts(n_threads, len(texts))
    if threads == 1:
        yield 0, encode(texts)
        return
    bounds = _part_bounds(threads, len(texts))
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(encode, texts[a:b]) for a, b in zip(bounds, bounds[1:])]
        try:
            for start, future in zip(bounds, futures):
                yield start, future.result()
        finally:
            for future in futures:
                future.cancel()


#: The longest encoding padding may make (``length``, ``pad_to_multiple_of``): a longer one could only
#: exhaust memory, so a file asking for it is refused when it loads rather than failing on first use.
LONGEST_PADDING = 1 << 24


def _at_most(value, name, limit):
    """``value``, checked to be at most ``limit``; the ``ValueError`` names the argument."""
    if value > limit:
        raise ValueError(f"{name} must be at most {limit}, got {value}")
    return value


def _batch(values: Any, method: str, name: str) -> list[Any]:
    """``values`` (a list, a tuple or another iterable of the batch's items) as a list; ``TypeError``
    naming ``method`` and the argument for one str or bytes (a text, not a batch) or a non-iterable."""
    if isinstance(values, list):
        return values
    if not isinstance(values, (str, bytes, bytearray)):
        try:
            return list(values)
        except TypeError:
            pass
    one = " (one text: use encode)" if isinstance(values, (str, bytes, bytearray)) and name == "texts" else ""
    raise TypeError(f"{method}: {name} must be a list or tuple, got {type(values).__name__}{one}")


def _ids(ids: Any, name: str) -> Sequence[Any]:
    """One row of ids for decoding: a sequence as it is, another iterable as a list; ``TypeError``
    naming the row when it is neither, or a str."""
    if isinstance(ids, Sequence) and not isinstance(ids, str):
        return ids
    if not isinstance(ids, str):
        try:
            return list(ids)
        except TypeError:
            pass
    raise TypeError(f"{name} must be a sequence of int ids, got {type(ids).__name__}")


def _is_pair(item):
    """Whether a pre-tokenized input is a pair: two lists (or tuples) of words."""
    return len(item) == 2 and all(isinstance(part, (list, tuple)) for part in item)


def _splice(values, row_lengths, replaced):
    """The ragged ids with the rows of ``replaced`` (``{row: ids}``) put in place of the old ones."""
    starts = np.concatenate([[0], np.cumsum(row_lengths)])
    pieces, row_lengths, previous = [], row_lengths.copy(), 0
    for i, ids in sorted(replaced.items()):
        pieces += [values[starts[previous] : starts[i]], np.asarray(ids, dtype=np.int64)]
        row_lengths[i], previous = len(ids), i + 1
    pieces.append(values[starts[previous] :])
    return np.concatenate(pieces), row_lengths


class Pipeline(TransformersCalls):
    """A subword tokenizer: normalizer, pre-tokenizer, model, post-processor, and a decoder back.

    Each stage implements its contract in :mod:`kvec.contracts`; the pipeline calls nothing else.
    (``kvec.pipeline.Tokenizer`` is the same class, under the name Hugging Face users know.)

    Args:
        model: a subword model such as :class:`kvec.models.BPE`.
        pre_tokenizer: splits text into words (for example :class:`kvec.pretokenizers.ByteLevel`);
            None treats the whole text as one word.
        decoder: turns tokens back into text; None joins tokens with spaces.
        normalizer: cleans the text first (offsets still point into the original text).
        post_processor: adds special tokens and type ids (for example
            :class:`kvec.processors.TemplateProcessing`).

    Example:
        >>> from kvec.pretokenizers import ByteLevel
        >>> from kvec.trainers import BpeTrainer
        >>> from kvec import decoders
        >>> tok = Pipeline(None, pre_tokenizer=ByteLevel(add_prefix_space=False), decoder=decoders.ByteLevel())
        >>> trainer = BpeTrainer(vocab_size=270, initial_alphabet=ByteLevel.alphabet())
        >>> tok.train_from_iterator(["low lower lowest"] * 3, trainer)
        >>> tok.encode("lower lowest").tokens
        ['low', 'e', 'r', 'Ġlowest']
        >>> tok.decode(tok.encode("slow lowly").ids)
        'slow lowly'
    """

    def __init__(
        self,
        model: Model | None,
        pre_tokenizer: PreTokenizer | None = None,
        decoder: Decoder | None = None,
        normalizer: Normalizer | None = None,
        post_processor: PostProcessor | None = None,
    ) -> None:
        self.model = model
        self.pre_tokenizer = pre_tokenizer
        self.decoder = decoder
        self.normalizer = normalizer
        self.post_processor = post_processor
        self.added_vocabulary = AddedVocabulary()

    def __repr__(self) -> str:
        printer = PRINTERS.get("pipeline_repr")  # kvec.interop.hf_repr: as tokenizers prints a Tokenizer
        return printer(self) if printer else object.__repr__(self)

    def __str__(self) -> str:
        printer = PRINTERS.get("pipeline_str")
        return printer(self) if printer else object.__repr__(self)

    def __setattr__(self, name, value):
        if name in ("model", "pre_tokenizer", "normalizer", "post_processor"):
            self._forget_native_encoder()  # it holds only while these stages stay the same
        self.__dict__["_decode_table"] = None  # the ids' bytes, made again on first use
        object.__setattr__(self, name, value)
        if name == "normalizer" and "added_vocabulary" in self.__dict__:
            self.added_vocabulary.refresh(value)  # added tokens match in their normalized form

    def _check_settings(self):
        """Drop the native encoder when a stage was given a new setting since it was made
        (``tok.pre_tokenizer.replacement = "_"``): tokenizers reads its stages' settings at every call."""
        stages = (self.normalizer, self.pre_tokenizer, self.model, self.post_processor)
        key = (*map(settings_key, stages), self.added_vocabulary.encode_special_tokens)
        if self.__dict__.get("_settings") != key:
            self.__dict__["_settings"] = key
            self._forget_native_encoder()

    def _forget_native_encoder(self):
        """Drop the native encoder: a stage or the added tokens changed, so its description is made again
        on first use."""
        self.__dict__["_native"] = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_native"] = state["_decode_table"] = None  # C objects: rebuilt on first use
        return state

    # ---- vocabulary ----

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        vocab = cast(Model, self.model).get_vocab()
        if with_added_tokens:
            vocab.update(self.added_vocabulary.ids)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        return len(self.get_vocab(with_added_tokens))

    def token_to_id(self, token: str) -> int | None:
        found = self.added_vocabulary.ids.get(token)
        return cast(Model, self.model).token_to_id(token) if found is None else found

    def id_to_token(self, token_id: int) -> str | None:
        found = self.added_vocabulary.id_to_token(token_id)
        return cast(Model, self.model).id_to_token.get(token_id) if found is None else found

    def add_special_tokens(self, tokens: Iterable[str | AddedToken] | Mapping[str, Any]) -> int:
        """Register special tokens (str or :class:`AddedToken`, made special): never split, left out by
        ``decode(skip_special_tokens=True)``, and unless a token says ``normalized=True`` matched
        case-sensitively in the raw text (the longest first). A token missing from the model's
        vocabulary gets the next free id. Returns how many tokens were not registered before with the
        same options.

        Example:
            >>> from kvec.models import WordPiece
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "a": 1}))
            >>> tok.add_special_tokens(["<mask>"]), tok.token_to_id("<mask>")
            (1, 2)
        """
        if isinstance(tokens, Mapping):  # transformers' {"pad_token": "[PAD]", ...}
            return self._add_named_special_tokens(tokens)
        return self._register(tokens, special=True)

    def add_tokens(self, tokens: Iterable[str | AddedToken]) -> int:
        """Register tokens (str or :class:`AddedToken`) the model must never split. Unless a token says
        ``normalized=False``, it is matched in the normalized text against its normalized form (so with
        a lowercasing normalizer ``"Hello"`` also matches ``"HELLO"``). A token missing from the
        model's vocabulary gets the next free id. Returns how many tokens were not registered before
        with the same options.

        Where several added tokens normalize to the same text, that text takes the id of the first one
        registered (Hugging Face's choice there depends on hash order).

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.normalizers import Lowercase
            >>> from kvec.pretokenizers import Whitespace
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "a": 1}), pre_tokenizer=Whitespace(), normalizer=Lowercase())
            >>> tok.add_tokens(["Keras3", AddedToken("<x>", single_word=True)])
            2
            >>> tok.encode("a KERAS3 a<x> <x>").tokens, tok.token_to_id("Keras3")
            (['a', 'keras3', 'a', '[UNK]', '[UNK]', '[UNK]', '<x>'], 2)
        """
        return self._register(tokens, special=False)

    def get_added_tokens_decoder(self) -> dict[int, AddedToken]:
        """``{id: AddedToken}`` of every added and special token, by id (Hugging Face's method)."""
        return dict(sorted(self.added_vocabulary.tokens.items()))

    def _register(self, tokens, special):
        registered = self.added_vocabulary.add(tokens, special, self.model, self.normalizer)
        self._forget_native_encoder()
        self._decode_table = None
        return registered

    # ---- encoding ----

    def _pieces(self, text, first=True):
        if self.pre_tokenizer is None or self._segments_whole_texts():
            return [Piece(text, 0)] if text else []
        return self.pre_tokenizer.pre_tokenize(text, first)

    def training_words(self) -> TrainingWords:
        """What training counts: the normalized, pre-tokenized words of a text (a picklable
        :class:`TrainingWords`, for :func:`kvec.trainers.counting.count_words`)."""
        return TrainingWords(self.normalizer, self.pre_tokenizer, self.added_vocabulary)

    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        """Encode one text (or a pair) into an :class:`Encoding`.

        Special tokens registered with :meth:`add_special_tokens` are cut out of the raw text first,
        and tokens registered with :meth:`add_tokens` out of the normalized text; the rest goes through
        pre-tokenizer and model. Then, as in Hugging Face ``tokenizers``: truncation (see
        :meth:`enable_truncation`, leaving room for the special tokens), the post-processor (if any),
        which adds its special tokens and type ids (without one, a pair's second text gets type id 1),
        and padding (see :meth:`enable_padding`).

        Args:
            sequence: the text, or with ``is_pretokenized`` its words (a list of str).
            pair: the second text of a pair (or its words), or None.
            is_pretokenized: the texts are already cut into words: each word is encoded on its own (the
                pre-tokenizer may cut it further), its tokens get its index as word id and offsets
                within the word.
            add_special_tokens: let the post-processor add its special tokens.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pretokenizers import Whitespace
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2, "!": 3}), pre_tokenizer=Whitespace())
            >>> e = tok.encode("unable !")
            >>> e.tokens, e.word_ids, e.offsets
            (['un', '##able', '!'], [0, 0, 1], [(0, 2), (2, 6), (7, 8)])
        """
        if not isinstance(is_pretokenized, bool):
            raise TypeError(f"is_pretokenized must be a bool, got {type(is_pretokenized).__name__}")
        first = self._sequence_encoding(sequence, "sequence", 0, is_pretokenized)
        second = None if pair is None else self._sequence_encoding(pair, "pair", 1, is_pretokenized)
        return self._post_process(first, second, add_special_tokens, self.truncation, self.padding)

    def _batch_encoding(self, text: str | tuple[str, Any, Any]) -> Encoding:
        """The whole encoding of one text of encode_batch's native path (made on first access to more
        than its ids): as :meth:`encode` gives it, or with the truncation and padding its batch had,
        given as ``(text, truncation, padding)`` (see :meth:`_shaped_batch`)."""
        truncation = padding = None
        if isinstance(text, tuple):
            text, truncation, padding = text
        return self._post_process(self._sequence_encoding(text, "text", 0, False), None, True, truncation, padding)

    def _post_process(self, first, second, add_special_tokens, truncation, padding):
        """Truncation, the post-processor, then padding: what follows the model for one input."""
        added = self.num_special_tokens_to_add(second is not None) if add_special_tokens else 0
        # a max_length below the special tokens' count truncates nothing, as in Hugging Face (whose
        # unsigned difference wraps around)
        if truncation is not None and truncation["max_length"] >= added:
            max_length = truncation["max_length"] - added
            stride, strategy, direction = truncation["stride"], truncation["strategy"], truncation["direction"]
            truncate_encodings(first, second, max_length, stride, strategy, direction)
        if self.post_processor is not None:
            encodings = [first] if second is None else [first, second]
            for index, encoding in enumerate(encodings):  # the overflowing ones too, as Hugging Face marks them
                for marked in (encoding, *encoding.overflowing):
                    marked.set_sequence_id(index)
                encoding.set_type_ids([index] * len(encoding))
            encoding = Encoding.merge(self.post_processor.process(encodings, add_special_tokens), False)
        elif second is not None:
            first.set_sequence_id(0)
            second.set_sequence_id(1)
            encoding = Encoding.merge([first, second], False)
        else:
            encoding = first
        if padding is not None:
            pad_encodings([encoding], **padding)
        return encoding

    def _sequence_encoding(self, sequence, name, type_id, is_pretokenized):
        """The :class:`Encoding` of one input before post-processing: its tokens, offsets and words."""
        self._check_model()
        if not is_pretokenized:
            if not isinstance(sequence, str):
                raise TypeError(f"{name} must be a str, got {type(sequence).__name__}")
            encoded = self._encode_text(sequence)
        else:
            if isinstance(sequence, str) or not isinstance(sequence, Sequence):
                raise TypeError(
                    f"{name} must be a list of str with is_pretokenized=True, got {type(sequence).__name__}"
                )
            encoded = []
            for index, word in enumerate(sequence):
                if not isinstance(word, str):
                    raise TypeError(f"{name}[{index}] must be a str, got {type(word).__name__}")
                encoded += [(t, i, o, index) for t, i, o, _ in self._encode_text(word)]
        n = len(encoded)
        return Encoding(
            [e[1] for e in encoded],
            tokens=[e[0] for e in encoded],
            offsets=[e[2] for e in encoded],
            words=[e[3] for e in encoded],
            type_ids=[type_id] * n,
        )

    def _encode_text(self, text):
        """``[(token, id, offsets, word), ...]`` for one raw text; each special or added token is a word
        of its own, and so is each piece of the pre-tokenizer's. An empty text has no tokens, even where
        a normalizer (a custom one) would write some, as in tokenizers."""
        if not text:
            return []
        encoded = []
        words = [0]  # the next word's index
        for start, end, special_id in self.added_vocabulary.split_raw(text):
            if special_id is None:
                encoded += self._encode_segment(text[start:end], start, words)
            else:
                encoded.append((text[start:end], special_id, (start, end), words[0]))
                words[0] += 1
        return encoded

    def _encode_segment(self, text, shift, words):
        normalized = None
        if self.normalizer is not None:
            normalized = self.normalizer.normalize(Normalized.of(text))
            text = normalized.text
        id_to_token, text_id = self.model.id_to_token, self.model.text_token_id
        encoded = []

        def original(start, end):
            span = (start, end) if normalized is None else normalized.original(start, end)
            return span[0] + shift, span[1] + shift

        for part_start, part_end, added_id in self.added_vocabulary.split_normalized(text):
            if added_id is not None:
                encoded.append((text[part_start:part_end], added_id, original(part_start, part_end), words[0]))
                words[0] += 1
                continue
            first = _first_count(original, part_start, part_end)
            for piece in self._pieces(text[part_start:part_end], first):
                word = words[0]
                words[0] += 1
                for token_id, start, end in self.model.tokenize_spans(piece.text):
                    # Unigram's unknown token is the text it covers (text_token_id), as tokenizers gives it
                    token = piece.text[start:end] if token_id == text_id else id_to_token[token_id]
                    start, end = piece.offsets(start, end)
                    encoded.append((token, token_id, original(start + part_start, end + part_start), word))
        return encoded

    # ---- truncation and padding (Hugging Face's) ----

    @property
    def truncation(self) -> dict[str, Any] | None:
        """The truncation :meth:`encode` applies (``max_length``, ``stride``, ``strategy``,
        ``direction``), or None."""
        truncation = self.__dict__.get("_truncation")
        return None if truncation is None else dict(truncation)

    @property
    def padding(self) -> dict[str, Any] | None:
        """The padding :meth:`encode` and :meth:`encode_batch` apply (``length``, ``pad_to_multiple_of``,
        ``pad_id``, ``pad_token``, ``pad_type_id``, ``direction``), or None."""
        padding = self.__dict__.get("_padding")
        return None if padding is None else dict(padding)

    def enable_truncation(
        self, max_length: int, stride: int = 0, strategy: str = "longest_first", direction: str = "right"
    ) -> None:
        """Truncate every encoding to ``max_length`` tokens, special tokens included, as Hugging Face
        does; what is cut off goes to ``Encoding.overflowing``.

        Args:
            max_length: the most tokens an encoding keeps.
            stride: how many tokens each overflowing encoding repeats from the one before it.
            strategy: for pairs, ``"longest_first"`` (take from the longer), ``"only_first"`` or
                ``"only_second"``.
            direction: ``"right"`` cuts the end off, ``"left"`` the start.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pretokenizers import Whitespace
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "a": 1, "b": 2, "c": 3}), pre_tokenizer=Whitespace())
            >>> tok.enable_truncation(2, stride=1)
            >>> e = tok.encode("a b c")
            >>> e.tokens, [o.tokens for o in e.overflowing]
            (['a', 'b'], [['b', 'c']])
        """
        max_length, stride = non_negative_int(max_length, "max_length"), non_negative_int(stride, "stride")
        _at_most(max_length, "max_length", MAX_ID)
        _at_most(stride, "stride", MAX_ID)
        strategy, direction = one_of(strategy, "strategy", STRATEGIES), one_of(direction, "direction", DIRECTIONS)
        effective = max_length - self.num_special_tokens_to_add(False)
        if 0 <= effective < stride:  # below 0: no truncation at all (see _post_process)
            raise ValueError(
                f"stride ({stride}) must be smaller than the effective max length {effective} (max_length "
                f"{max_length} less {max_length - effective} special tokens)"
            )
        self.__dict__["_truncation"] = {
            "max_length": max_length,
            "stride": stride,
            "strategy": strategy,
            "direction": direction,
        }

    def no_truncation(self) -> None:
        """Encode without truncation (the default)."""
        self.__dict__["_truncation"] = None

    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """Pad encodings with ``pad_token`` (id ``pad_id``), as Hugging Face does: :meth:`encode_batch`
        pads a batch to its longest encoding (or to ``length`` when given), rounded up to a multiple of
        ``pad_to_multiple_of``; padding has attention mask 0 and no word.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pretokenizers import Whitespace
            >>> tok = Pipeline(WordPiece({"[PAD]": 0, "[UNK]": 1, "a": 2}), pre_tokenizer=Whitespace())
            >>> tok.enable_padding()
            >>> [(e.ids, e.attention_mask) for e in tok.encode_batch(["a", "a a a"])]
            [([2, 0, 0], [1, 0, 0]), ([2, 2, 2], [1, 1, 1])]
        """
        direction = one_of(direction, "direction", DIRECTIONS)
        pad_id, pad_type_id = non_negative_int(pad_id, "pad_id"), non_negative_int(pad_type_id, "pad_type_id")
        _at_most(pad_id, "pad_id", MAX_ID)
        _at_most(pad_type_id, "pad_type_id", MAX_ID)
        length = None if length is None else _at_most(non_negative_int(length, "length"), "length", LONGEST_PADDING)
        if pad_to_multiple_of is not None:
            pad_to_multiple_of = non_negative_int(pad_to_multiple_of, "pad_to_multiple_of")
            _at_most(pad_to_multiple_of, "pad_to_multiple_of", LONGEST_PADDING)
        if not isinstance(pad_token, str):
            raise TypeError(f"pad_token must be a str, got {type(pad_token).__name__}")
        self.__dict__["_padding"] = {
            "length": length,
            "pad_to_multiple_of": pad_to_multiple_of,
            "pad_id": pad_id,
            "pad_token": pad_token,
            "pad_type_id": pad_type_id,
            "direction": direction,
        }

    def no_padding(self) -> None:
        """Encode without padding (the default)."""
        self.__dict__["_padding"] = None

    def num_special_tokens_to_add(self, is_pair: bool) -> int:
        """How many special tokens the post-processor adds to one sequence, or to a pair."""
        return 0 if self.post_processor is None else self.post_processor.added_tokens(bool(is_pair))

    def _encode_input(self, item, position, is_pretokenized, add_special_tokens):
        """:meth:`encode` of ``texts[position]`` of a batch: one input, or a pair of them."""
        one = (list, tuple) if is_pretokenized else str
        if isinstance(item, one) and not (is_pretokenized and _is_pair(item)):
            return self.encode(item, None, is_pretokenized, add_special_tokens)
        if isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(part, one) for part in item):
            return self.encode(item[0], item[1], is_pretokenized, add_special_tokens)
        wanted = "a list of words or a pair of them" if is_pretokenized else "a str or a pair of str"
        raise TypeError(f"texts[{position}] must be {wanted}, got {type(item).__name__}")

    def _check_model(self) -> Model:
        if self.model is None:
            raise ValueError("this tokenizer has no model yet: pass one, or train it with train_from_iterator")
        return self.model

    def encode_batch(
        self,
        texts: Iterable[Any],
        n_threads: int | None = None,
        *,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> list[Encoding]:
        """Encode a list of texts, or of pairs ``(text, pair)``, as :meth:`encode` does each; ids come
        from the native encoder where the pipeline has one (see :meth:`encode_ragged`), tokens and
        offsets on demand. With padding enabled (see
        :meth:`enable_padding`) the batch is padded to its longest encoding.

        Args:
            texts: the texts (``str``), or pairs of texts (a tuple or list of two); with
                ``is_pretokenized``, lists of words or pairs of them.
            n_threads: how many threads encode parts of the batch at once where the pipeline has a
                native path (see :meth:`encode_ragged`); None (the default): one per core, as Hugging
                Face's ``encode_batch``. The ids are the same for every count.
            is_pretokenized: see :meth:`encode`.
            add_special_tokens: let the post-processor add its special tokens.
        """
        self._check_model()
        texts = _batch(texts, "encode_batch", "texts")
        n_threads = _threads(n_threads)
        # pairs, or items that are wrong (encode names them), take the full path
        plain = not is_pretokenized and add_special_tokens is True and not set(map(type, texts)) - {str}
        parts = self._native_parts(texts, n_threads) if plain else None
        if parts is not None and (self.truncation is not None or self.padding is not None):
            return self._shaped_batch(texts, parts)
        if parts is None:  # the reference encoder, text by text (stages C cannot describe, pairs...)
            batch = [self._encode_input(item, i, is_pretokenized, add_special_tokens) for i, item in enumerate(texts)]
            if self.padding is not None:
                pad_encodings(batch, **self.padding)
            return batch
        encoded: list[Encoding] = []
        with collector_paused():  # many new objects, no cycle among them
            for start, values, row_lengths, again in parts:
                # as Encoding(row, source=(self, text)) for each row
                part = encodings(Encoding, values, row_lengths, self, texts[start : start + len(row_lengths) // 8])
                for position in again:
                    part[position] = self.encode(texts[start + position])
                encoded += part
        return encoded

    def _tokens_of_ids(self, ids):
        """The tokens of ``ids`` read from the vocabulary, or None where one may be the text it covers
        instead: the model's text token (:attr:`Model.text_token_id`), or an added token, matched by
        another form than its content."""
        added = self.added_vocabulary.tokens
        if cast(Model, self.model).text_token_id in ids or (added and not added.keys().isdisjoint(ids)):
            return None
        return [self.id_to_token(i) for i in ids]

    def _shaped_batch(self, texts, parts):
        """encode_batch's native path with truncation or padding: the ids rows are cut and padded here
        as :meth:`encode` would (the row is the post-processor's prefix, the text's ids, its suffix), and
        the other fields are worked out on first access with the same truncation and padding. Rows the
        shortcut does not cover (added tokens, strategies other than longest_first, no room left) take
        the full path."""
        truncation, padding = self.truncation, self.padding
        prefix, suffix = cast(tuple[list[int], list[int]], self._affixes())
        room = 0 if truncation is None else truncation["max_length"] - len(prefix) - len(suffix)
        shortcut = truncation is None or (truncation["strategy"] == "longest_first" and room > truncation["stride"])
        rows: list[Any] = []  # [ids, text] to make lazily, or a whole Encoding
        for start, values, row_lengths, again in parts:
            flat = np.frombuffer(values, dtype=np.int64).tolist()
            ends = np.cumsum(np.frombuffer(row_lengths, dtype=np.int64)).tolist()
            redo = set(again)
            for position, end in enumerate(ends):
                text = texts[start + position]
                ids = flat[ends[position - 1] if position else 0 : end]
                if truncation is not None and len(ids) > truncation["max_length"]:
                    if position in redo or not shortcut:
                        redo.add(position)
                    else:
                        inner = ids[len(prefix) : len(ids) - len(suffix)]
                        kept = inner[:room] if truncation["direction"] == "right" else inner[len(inner) - room :]
                        ids = prefix + kept + suffix
                if position in redo:
                    first = self._sequence_encoding(text, "text", 0, False)
                    rows.append(self._post_process(first, None, True, truncation, None))
                else:
                    rows.append([ids, text])
        target = 0
        if padding is not None:
            target = padding["length"]
            if target is None:
                target = max((len(row[0]) if isinstance(row, list) else len(row) for row in rows), default=0)
            multiple = padding["pad_to_multiple_of"]
            if multiple and target % multiple:
                target += multiple - target % multiple
            padding = {**padding, "length": target, "pad_to_multiple_of": None}
        encoded = []
        for row in rows:
            if isinstance(row, Encoding):
                if padding is not None:
                    pad_encodings([row], **padding)
                encoded.append(row)
                continue
            ids, text = row
            mask = [1] * len(ids)  # known now: the attention mask of a padded batch is its usual read
            if padding is not None and len(ids) < target:
                fill = [padding["pad_id"]] * (target - len(ids))
                unseen = [0] * len(fill)
                ids, mask = (
                    (ids + fill, mask + unseen) if padding["direction"] == "right" else (fill + ids, unseen + mask)
                )
            encoded.append(Encoding(ids, source=(self, (text, truncation, padding)), attention_mask=mask))
        return encoded

    def encode_ragged(
        self, texts: Iterable[str | bytes], n_threads: int | None = None
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The ids of many texts as two int64 arrays, ``(values, row_lengths)``: text ``i``'s ids are
        the next ``row_lengths[i]`` values (``tf.RaggedTensor.from_row_lengths`` takes them as they
        are). The ids equal ``[e.ids for e in encode_batch(texts)]``, truncated and padded as there; texts
        may also be UTF-8 ``bytes``.

        A pipeline that :mod:`kvec.native_spec` describes is encoded by kvec's one native encoder
        (``csrc/core/spec_encoder.h``, the one the TensorFlow op runs), through a cache of word ids,
        without holding the GIL, on ``n_threads`` threads: its normalizer, special and added tokens,
        pre-tokenizer, model and a post-processor that only puts ids around the text
        (``TemplateProcessing`` such as ``"[CLS] $A [SEP]"``). A normalizer C cannot describe (such as
        sentencepiece's precompiled character map) runs in Python first, and texts holding an added
        token then take :meth:`encode`. What C cannot describe at all (a ``Split`` by a user's regular
        expression, a custom stage, sampling) is encoded by :meth:`encode`, text by text.
        ``n_threads``: as in :meth:`encode_batch`.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pretokenizers import BertPreTokenizer
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2, "!": 3}), pre_tokenizer=BertPreTokenizer())
            >>> values, row_lengths = tok.encode_ragged(["unable!", "", "un x"])
            >>> values.tolist(), row_lengths.tolist()
            ([1, 2, 3, 1, 0], [3, 0, 2])
        """
        self._check_model()
        n_threads = _threads(n_threads)
        texts = _batch(texts, "encode_ragged", "texts")
        if set(map(type, texts)) - {str, bytes}:
            for position, text in enumerate(texts):
                if not isinstance(text, (str, bytes)):
                    raise TypeError(f"texts[{position}] must be a str, got {type(text).__name__}")
        # truncation and padding shape the rows as encode_batch does (natively there too)
        shaped = self.truncation or self.padding
        whole = None if shaped else self._native_ragged(texts, n_threads)
        if whole is not None:
            return whole
        parts = None if shaped else self._native_parts(texts, n_threads)
        if parts is None:
            strs = [_as_str(t) for t in texts]
            return rows_to_ragged([e.ids for e in self.encode_batch(cast(list[str], strs), n_threads=n_threads)])
        pieces, lengths = [], []
        for start, values, row_lengths, again in parts:
            values, row_lengths = np.frombuffer(values, dtype=np.int64), np.frombuffer(row_lengths, dtype=np.int64)
            if again:  # the encoder put the post-processor's ids around each text; so does the full path
                replaced = {i: self.encode(_as_str(texts[start + i])).ids for i in again}
                values, row_lengths = _splice(values, row_lengths, replaced)
            pieces.append(values)
            lengths.append(row_lengths)
        if len(pieces) == 1:
            return pieces[0], lengths[0]
        return np.concatenate(pieces), np.concatenate(lengths)

    def _native_ragged(self, texts, n_threads):
        """:meth:`encode_ragged`'s ``(values, row_lengths)`` from one call of the native encoder (its
        threads share the batch, without the GIL), where it takes the texts as they are (no Python
        stage before it) and encodes every one; else None, for :meth:`_native_parts` to find the texts
        it refuses."""
        native = self._fast_encoder()
        encoded = None if native is None or native[1] else native_ids(native[0], texts, n_threads)
        if encoded is None:
            return None
        return np.frombuffer(encoded[0], dtype=np.int64), np.frombuffer(encoded[1], dtype=np.int64)

    def _native_parts(self, texts, n_threads):
        """The native encoder over ``texts`` (str or UTF-8 bytes), part by part, in order: ``(start,
        values, row_lengths, again)``, the int64 bytes of the ids of texts ``start, start + 1, ...`` and
        their counts, and the positions in the part of the texts the reference encoder (:meth:`encode`)
        must encode instead: where the description leaves the normalizer and the added tokens to
        Python, those holding an added token; and the texts of a part the native encoder refuses (a
        word without a piece, a lone surrogate), whose error, if any, is then the reference encoder's.
        None when the pipeline has no native description."""
        native = self._fast_encoder()
        if native is None:
            return None
        encoder, python_first = native
        threads = _parts(n_threads, len(texts))
        if not python_first and threads > 1:  # the encoder's own threads, which never take the GIL
            bounds = _part_bounds(threads, len(texts), _STREAMED_PARTS_PER_THREAD)
            streamed = zip(bounds, bounds[1:], encoder.encode_parts(texts, threads, len(bounds) - 1))
            return (
                (start, *found, []) if found else (start, *_refused_part(end - start)) for start, end, found in streamed
            )
        normalizer, added = self.normalizer, self.added_vocabulary
        if python_first:
            texts = [_as_str(t) for t in texts]

        def encode(part):
            again = []
            if python_first:  # the description takes normalized texts without added tokens
                normalized = part if normalizer is None else normalizer.normalize_batch(part)
                if added:
                    again = added.matching_texts(part, normalized if added.normalized_forms else part)
                    left = set(again)
                    normalized = ["" if i in left else text for i, text in enumerate(normalized)]
                part = normalized
            try:
                values, row_lengths = encoder.encode(part)
            except ValueError:
                return _refused_part(len(part))
            return values, row_lengths, again

        return ((start, *encoded) for start, encoded in _encoded_parts(encode, texts, n_threads))

    def _segments_whole_texts(self):
        """True when the model segments each normalized text whole: its meaning is sentencepiece's (a
        lattice per text; Hugging Face's meaning is a lattice per word) and it does not sample, and
        there is no pre-tokenizer (the text is one word) or one that only shapes training."""
        model, pre_tokenizer = self.model, self.pre_tokenizer
        if model is None or not model.segments_across_words or model.sampling:
            return False
        return pre_tokenizer is None or pre_tokenizer.whole_text_models

    def _fast_encoder(self):
        """``(encoder, python_first)``: the native encoder (:class:`kvec._spec.SpecEncoder`) of this
        pipeline's description, made once (again when a stage's settings or the added tokens change),
        and whether Python runs the normalizer and matches the added tokens before it: where the
        description leaves them out, C describing neither a normalizer such as Hugging Face's
        ``Precompiled`` nor an added token's ``single_word``, ``lstrip`` or ``rstrip``. None
        when C cannot describe the rest either (a ``Split`` by a user's regular expression, a custom
        stage, sampling): then the reference encoder, :meth:`encode`, serves every text."""
        self._check_settings()
        native = self.__dict__.get("_native")
        if native is None:
            native = self.__dict__["_native"] = self._described() or False
        return native or None

    def _described(self):
        """:meth:`_fast_encoder`'s pair, or None (see there)."""
        for kind, python_first in (("pipeline", False), ("normalized_pipeline", True)):
            describe = NATIVE_DESCRIBERS.get(kind)
            try:
                return None if describe is None else (SpecEncoder(describe(self)), python_first)
            except NotNativeError:
                continue
        return None

    def _affixes(self):
        """``(prefix, suffix)``: the ids the post-processor puts around one text (none without one), or
        None when it does more than that (then only :meth:`encode` applies it)."""
        return ([], []) if self.post_processor is None else self.post_processor.single_affixes()

    def decode(
        self, ids: Iterable[int], skip_special_tokens: bool = True, clean_up_tokenization_spaces: bool | None = None
    ) -> str:
        """Turn ids back into text with the decoder (special tokens left out unless asked).

        With a :class:`kvec.contracts.PieceDecoder` (or none), in C through a table of the bytes each
        token stands for (see :meth:`decode_batch`). ``ids`` may also be one int, an array or a tensor;
        ``clean_up_tokenization_spaces``: as transformers' ``decode`` (see
        :meth:`kvec.transformers_calls.TransformersCalls.batch_decode`)."""
        text = self._decode_row(self._id_row(ids), skip_special_tokens)
        return self._cleaned([text], clean_up_tokenization_spaces)[0]

    def _decode_row(self, ids: Iterable[int], skip_special_tokens: bool) -> str:
        table = self._piece_table()
        if table is not None:
            return self._table_texts(table, [_ids(ids, "ids")], skip_special_tokens)[0]
        return self._decoded_row(ids, skip_special_tokens)

    def _decoded_row(self, ids: Iterable[int], skip_special_tokens: bool) -> str:
        """The text of ``ids`` by the decoder, token by token (without the C table)."""
        # as in Hugging Face, a token is left out when it spells a special token, whatever its id
        special = self.added_vocabulary.special if skip_special_tokens else {}
        tokens = []
        for position, token_id in enumerate(_ids(ids, "ids")):
            if not isinstance(token_id, (int, np.integer)):  # (a bool is an int, as in the C table)
                raise TypeError(f"ids[{position}] must be an int, got {type(token_id).__name__}")
            token = self.id_to_token(int(token_id))
            if token is None:
                raise ValueError(f"ids[{position}] = {token_id!r} is not in the vocabulary")
            if token not in special:
                tokens.append(token)
        if self.decoder is None:
            return " ".join(tokens)
        return self.decoder.decode(tokens)

    def decode_batch(self, sequences: Iterable[Iterable[int]], skip_special_tokens: bool = True) -> list[str]:
        """:meth:`decode` of each sequence of ids. With a :class:`kvec.contracts.PieceDecoder` (every
        decoder kvec has) or none, the whole batch is decoded in one C call: each id stands for the
        bytes its token adds to the text, first or later, from a table made once per vocabulary.

        Example:
            >>> from kvec.decoders import WordPiece as WordPieceDecoder
            >>> from kvec.models import WordPiece
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "un": 1, "##able": 2, "!": 3}), decoder=WordPieceDecoder())
            >>> tok.decode_batch([[1, 2, 3], [1, 1]])
            ['unable!', 'un un']
        """
        sequences = _batch(sequences, "decode_batch", "sequences")
        rows = [_ids(ids, f"sequences[{position}]") for position, ids in enumerate(sequences)]
        table = self._piece_table()
        if table is not None:
            return self._table_texts(table, rows, skip_special_tokens)
        return [self._decode_row(ids, skip_special_tokens) for ids in rows]

    def _table_texts(self, table: PieceTable, rows: list[Sequence[Any]], skip_special_tokens: bool) -> list[str]:
        """The texts of ``rows`` by the C table, finished by the decoder; a row whose bytes are not
        UTF-8 where the decoder reads bad bytes its own way (the table gives None) by the decoder."""
        pieces = self.__dict__["_decode_table"][2]  # set with the table
        found = table.decode(rows, skip_special_tokens)
        finish = None if pieces is None or type(pieces).finish is PieceDecoder.finish else pieces.finish
        if pieces is not None and pieces.invalid_utf8 != "lossy" and None in found:  # "lossy": never None
            return [
                self._decoded_row(row, skip_special_tokens) if t is None else t if finish is None else finish(t)
                for row, t in zip(rows, found)
            ]
        texts = cast(list[str], found)
        return texts if finish is None else list(map(finish, texts))

    def _piece_table(self) -> PieceTable | None:
        """The C table decoding this pipeline's ids (a ``PieceTable``), or None where the decoder has no
        :class:`kvec.contracts.PieceDecoder` form (:meth:`kvec.contracts.Decoder.pieces`) or the ids are
        too sparse for a table. Made again when the vocabulary, the added tokens or the decoder's settings
        change."""
        decoder, model = self.decoder, self.model
        pieces = None if decoder is None else decoder.pieces()
        if model is None or (decoder is not None and pieces is None):
            return None
        added = self.added_vocabulary
        # _register and __setattr__ drop the table when the added tokens or the stages change
        key = (id(model), len(model.id_to_token), id(decoder), repr(decoder))
        cached = self.__dict__.get("_decode_table")
        if cached is not None and cached[0] == key:
            return cached[1]
        tokens: dict[int, str] = dict(model.id_to_token)
        tokens.update(added.decoded_tokens())
        size = max(tokens, default=-1) + 1
        table = None
        if all(isinstance(i, int) and i >= 0 for i in tokens) and size <= 4 * len(tokens) + 1024:
            by_id: list[str | None] = [None] * size
            for i, token in tokens.items():
                by_id[i] = token
            invalid = 0
            if pieces is None:  # tokens joined with spaces
                first = [None if t is None else t.encode("utf-8", "surrogatepass") for t in by_id]
                later = [None if t is None else (" " + t).encode("utf-8", "surrogatepass") for t in by_id]
            else:
                first = [None if t is None else pieces.token_bytes(t, True) for t in by_id]
                later = [None if t is None else pieces.token_bytes(t, False) for t in by_id]
                # where bad bytes are not the lossy run of U+FFFD, the decoder reads a row that has them
                invalid = {"lossy": 0, "bytes": 1}.get(pieces.invalid_utf8, 2)
            special = added.special
            skipped = bytes(t is not None and t in special for t in by_id)
            keep_first = b""
            if pieces is not None and type(pieces).keeps_first is not PieceDecoder.keeps_first:
                keep_first = bytes(t is not None and pieces.keeps_first(t) for t in by_id)
            table = PieceTable(first, later, skipped, invalid, keep_first)
        self.__dict__["_decode_table"] = (key, table, pieces)
        return table

    # ---- saving and loading ----

    def to_str(self) -> str:
        """The tokenizer as kvec's versioned JSON."""
        return json.dumps(self.to_document(), ensure_ascii=False)

    def to_document(self) -> dict[str, Any]:
        """The tokenizer as the JSON-ready dict of kvec's format (what :meth:`to_str` writes)."""
        return serialization.to_document(self)

    @classmethod
    def from_str(cls, text: str) -> Pipeline:
        """Rebuild a tokenizer from :meth:`to_str` output (``kvec.errors.FormatError`` if it is corrupt)."""
        if not isinstance(text, (str, bytes, bytearray)):
            hint = ": from_str takes the JSON string, not a path; use Pipeline.from_file(path)"
            raise TypeError(f"text must be a str, got {type(text).__name__}{hint * isinstance(text, os.PathLike)}")
        return cls._from_stages(serialization.loads(text), "kvec tokenizer string")

    @classmethod
    def from_document(cls, document: Any, source: str = "kvec tokenizer document") -> Pipeline:
        """Rebuild a tokenizer from :meth:`to_document` output, parsed; a ``FormatError`` names
        ``source`` when it is not a valid document."""
        check_json_depth(document, source)  # the readers of nested stages recurse
        return cls._from_stages(serialization.from_document(document, source), source)

    @classmethod
    def _from_stages(cls, stages, source):
        added = stages.pop("added_tokens", [])
        truncation, padding = stages.pop("truncation", None), stages.pop("padding", None)
        tokenizer = cls(**stages)
        tokenizer.added_vocabulary.restore(added, tokenizer.normalizer)
        for setting, arguments in (("truncation", truncation), ("padding", padding)):
            if arguments is not None:
                try:
                    getattr(tokenizer, f"enable_{setting}")(**arguments)
                except (TypeError, ValueError) as error:
                    raise FormatError(source, f"invalid {setting} ({error})") from None
        return tokenizer

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the tokenizer to ``path`` atomically: the old file or the new one, never a partial one."""
        serialization.save(self.to_document(), path)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Pipeline:
        """Load a tokenizer written by :meth:`save`; a corrupt file raises ``FormatError`` naming it."""
        return cls._from_stages(serialization.load(path), path)

    # ---- training ----

    def train_from_iterator(
        self, iterator: Iterable[str], trainer: Trainer, n_jobs: int = 1, show_progress: bool = False
    ) -> None:
        """Count the pre-tokenized words of the texts and train ``trainer``; the model is replaced.

        Words are counted in first-occurrence order, streaming, in ``n_jobs`` processes; the result is
        the same for every ``n_jobs``. Tokens registered before (special and added) are cut out of the
        texts and get their ids from the new model; then the trainer's special tokens are registered
        with :meth:`add_special_tokens`.
        """
        self._check_trainer(trainer)  # before counting: a mismatch fails fast
        # the counts go straight to the trainer, held by no name here: a trainer that copies them into
        # structures of its own (Unigram's lattice) can let them go before its peak
        counting = self.training_words()
        model = trainer.train_from_counts(
            count_words(iterator, counting, n_jobs=n_jobs, show_progress=show_progress), n_jobs=n_jobs
        )
        self._adopt(model, trainer)

    def train_from_counts(self, counts: Mapping[str, int], trainer: Trainer, n_jobs: int = 1) -> None:
        """Train ``trainer`` on ``{word: count}`` counted elsewhere (by :func:`kvec.spark.count_words`,
        say) with this pipeline's words, in first-occurrence order; as :meth:`train_from_iterator`
        after its counting."""
        self._check_trainer(trainer)
        self._adopt(trainer.train_from_counts(counts, n_jobs=n_jobs), trainer)

    def _adopt(self, model: Model, trainer: Trainer) -> None:
        """Take the model ``trainer`` trained, and the trainer's special tokens."""
        self.model = model
        # tokens registered before training get their ids from the new model (HF keeps stale ones)
        self.added_vocabulary.reassign(self.model, self.normalizer)
        # as in Hugging Face tokenizers, the trainer's special tokens become the tokenizer's
        self.add_special_tokens(trainer.special_tokens)

    def _check_trainer(self, trainer: Trainer) -> None:
        """A trainer trains its own kind of model only, as in Hugging Face (a pipeline without a model
        takes any trainer)."""
        kind = getattr(trainer, "trains", None)
        if kind is not None and self.model is not None and not isinstance(self.model, kind):
            raise TypeError(f"{type(trainer).__name__} can only train a {kind.__name__}")

    def train(
        self, files: Iterable[str | os.PathLike[str]], trainer: Trainer, n_jobs: int = 1, show_progress: bool = False
    ) -> None:
        """Train on text files, one text per line (see :meth:`train_from_iterator`)."""
        self.train_from_iterator(iterate_files(files), trainer, n_jobs=n_jobs, show_progress=show_progress)

    # ---- conveniences Hugging Face users call beyond encode and decode, built on them ---------------

    def post_process(
        self, encoding: Encoding, pair: Encoding | None = None, add_special_tokens: bool = True
    ) -> Encoding:
        """Truncation, the post-processor and padding, as :meth:`encode` applies them, on encodings made
        without special tokens (``encode(text, add_special_tokens=False)``); the inputs stay as they were.

        Example:
            >>> from kvec.models import WordPiece
            >>> from kvec.pipeline import Pipeline
            >>> from kvec.processors import TemplateProcessing
            >>> tok = Pipeline(WordPiece({"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "a": 3}))
            >>> tok.post_processor = TemplateProcessing("[CLS] $A [SEP]", special_tokens=[("[CLS]", 1), ("[SEP]", 2)])
            >>> tok.post_process(tok.encode("a", add_special_tokens=False)).tokens
            ['[CLS]', 'a', '[SEP]']
        """
        for name, value in (("encoding", encoding), ("pair", pair)):
            if value is not None and not isinstance(value, Encoding):
                raise wrong_type(name, "an Encoding", value)
        second = None if pair is None else pair._copy()
        return self._post_process(encoding._copy(), second, add_special_tokens, self.truncation, self.padding)

    def encode_batch_fast(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch` (Hugging Face's faster form skips offsets; kvec's batch path works out
        offsets only when they are read)."""
        return self.encode_batch(input, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)

    async def async_encode(
        self, sequence: Any, pair: Any = None, is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> Encoding:
        """:meth:`encode` in a worker thread, awaitable."""
        return await _in_thread(self.encode, sequence, pair, is_pretokenized, add_special_tokens)

    async def async_encode_batch(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch` in a worker thread, awaitable."""
        return await _in_thread(
            lambda: self.encode_batch(input, is_pretokenized=is_pretokenized, add_special_tokens=add_special_tokens)
        )

    async def async_encode_batch_fast(
        self, input: list[Any], is_pretokenized: bool = False, add_special_tokens: bool = True
    ) -> list[Encoding]:
        """:meth:`encode_batch_fast` in a worker thread, awaitable."""
        return await self.async_encode_batch(input, is_pretokenized, add_special_tokens)

    async def async_decode_batch(self, sequences: list[list[int]], skip_special_tokens: bool = True) -> list[str]:
        """:meth:`decode_batch` in a worker thread, awaitable."""
        return await _in_thread(self.decode_batch, sequences, skip_special_tokens)

    @property
    def encode_special_tokens(self) -> bool:
        """When True, special tokens are not matched: their text is encoded as any other text."""
        return self.added_vocabulary.encode_special_tokens

    @encode_special_tokens.setter
    def encode_special_tokens(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise wrong_type("encode_special_tokens", "a bool", value)
        self.added_vocabulary.encode_special_tokens = value


Tokenizer = Pipeline  # the name Hugging Face users know; kvec.Tokenizer is the Keras one


async def _in_thread(function: Any, *args: Any) -> Any:
    """``function(*args)`` in a worker thread, awaited. asyncio is imported here, not with the module:
    the event loop awaiting this has imported it already, and a process that only trains or encodes
    need not take its memory (ssl and all)."""
    import asyncio

    return await asyncio.to_thread(function, *args)
