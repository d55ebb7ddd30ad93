"""The contract of every pipeline stage, stated once.

Data flows one way through a :class:`kvec.pipeline.Pipeline`::

    text -> Normalizer -> PreTokenizer -> Model -> PostProcessor -> ids      (and Decoder: tokens -> text)

A :class:`Trainer` makes a :class:`Model` from word counts. Each stage kind is one base class below, and
the pipeline talks to a stage only through it: a new stage is added by subclassing its contract. What
passes between the stages is defined here too: :class:`Normalized` (text, and the original span of each
of its characters), :class:`Piece` (a pre-tokenized word and its offsets) and :class:`WordTable` (how the
C encoder may cut a pre-tokenizer's words without calling it).

Every stage states, beside itself, how each writer takes it (:class:`Stage`): kvec's JSON stores it as
its type name and ``get_config()`` and rebuilds it with ``type(**config)`` once the class is
:func:`registered` (see :mod:`kvec.files.serialization`); Hugging Face's ``tokenizer.json`` takes
:meth:`Stage.to_tokenizer_json`; the native description a model's :meth:`Model.native_model`, a
normalizer's :meth:`Normalizer.character_rule` and a pre-tokenizer's :meth:`PreTokenizer.word_table`.
"""

from __future__ import annotations

import json
import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, cast

from kvec.encoding import Encoding
from kvec.errors import NotNativeError

if TYPE_CHECKING:
    from kvec.added_vocabulary import AddedToken

__all__ = [
    "Decoder",
    "Decomposition",
    "JsonState",
    "Model",
    "Normalized",
    "Normalizer",
    "Piece",
    "PieceDecoder",
    "PostProcessor",
    "PreTokenizer",
    "STAGE_TYPES",
    "Stage",
    "StageList",
    "Trainer",
    "WordTable",
    "byte_run_text",
    "changed",
    "registered",
    "settings_key",
    "utf8_text",
]

Span = tuple[int, int]


# --------------------------------------------------------------------------------------------------
# What passes between stages


class Normalized:
    """Normalized text and the original ``(start, end)`` span of each of its characters."""

    __slots__ = ("text", "spans")

    def __init__(self, text: str, spans: list[Span]) -> None:
        self.text = text
        self.spans = spans

    @classmethod
    def of(cls, text: str) -> Normalized:
        """``text`` as it is: character ``i`` comes from ``(i, i + 1)``."""
        return cls(text, [(i, i + 1) for i in range(len(text))])

    def map(self, function: Callable[[str], str]) -> Normalized:
        """Replace each character ``c`` by the string ``function(c)`` (possibly empty)."""
        chars, spans = [], []
        for c, span in zip(self.text, self.spans):
            replacement = function(c)
            chars.append(replacement)
            spans.extend([span] * len(replacement))
        return Normalized("".join(chars), spans)

    def transform(self, stream: Iterable[tuple[str, int]]) -> Normalized:
        """Apply a stream of ``(char, change)`` pairs, with Hugging Face ``tokenizers``' alignment rules.

        Walking the current characters in order: ``change <= 0`` means the char replaces the next
        current character (taking its span) and removes ``-change`` more after it; ``change > 0`` means
        the char is inserted and shares the span of the character before it.
        """
        chars, spans = [], []
        position = 0
        for c, change in stream:
            if change > 0:
                spans.append(self.spans[position - 1] if position else (0, 0))
            else:
                spans.append(self.spans[position])
                position += 1 - change
            chars.append(c)
        return Normalized("".join(chars), spans)

    def original(self, start: int, end: int) -> Span:
        """Original offsets of the normalized characters ``start:end``."""
        return self.spans[start][0], self.spans[end - 1][1]


class Piece:
    """A pre-tokenized word and where each of its characters came from in the original text.

    Character ``i`` of ``text`` comes from original character ``base + i`` (clipped at 0, which aligns
    a prepended space with the first character), unless ``spans`` lists a ``(start, end)`` per character.
    """

    __slots__ = ("text", "base", "spans")

    def __init__(self, text: str, base: int, spans: list[Span] | None = None) -> None:
        self.text = text
        self.base = base
        self.spans = spans

    def offsets(self, start: int, end: int) -> Span:
        """Original offsets of the piece's characters ``start:end``."""
        if self.spans is not None:
            return self.spans[start][0], self.spans[end - 1][1]
        return max(self.base + start, 0), max(self.base + end - 1, 0) + 1

    def __repr__(self) -> str:
        return f"Piece({self.text!r}, {self.offsets(0, len(self.text)) if self.text else ()})"


@dataclass(frozen=True)
class WordTable:
    """How the native encoder (``csrc/core/spec_encoder.h``, described by :mod:`kvec.native_spec`) cuts a
    pre-tokenizer's words by itself.

    Attributes:
        classes: one class per code point (see :mod:`kvec.unicode.char_classes`); ``b""`` makes the whole
            text one word.
        expression: ``"gpt2"`` or ``"cl100k"``: words follow that regular expression (contractions,
            letter and number runs, spaces) over the classes (``csrc/core/expressions.h``).
        merge: ``"previous"`` or ``"next"``: words follow Hugging Face's delimiter behaviour
            ``merged_with_previous`` or ``merged_with_next`` instead, with class ``ALONE`` the
            delimiters, ``MERGED_APART`` words of one character that end a run (sentencepiece's
            split digits), and any other class the text between them.
        replace: ``(old, new)``: every ``old`` character is written ``new`` first (Metaspace's spaces).
        prefix: put before a text that does not start with it (after ``replace``; GPT-2's space).
        spelled: words reach the model spelled byte by byte: each UTF-8 byte as its character in
            ``byte_spelling`` (byte-level spelling, as :meth:`PreTokenizer.spell` does).
        byte_spelling: with ``spelled``, the 256 characters bytes 0..255 are spelled with (a model's
            native description, :meth:`Model.native_model`, spells words itself with them).
    """

    classes: bytes
    expression: str = ""
    merge: str = ""
    replace: tuple[str, str] | None = None
    prefix: str = ""
    spelled: bool = False
    byte_spelling: str = ""


@dataclass(frozen=True)
class Decomposition:
    """A normalizer as three steps over a whole text (see :meth:`Normalizer.decomposition`).

    Attributes:
        before: what each character becomes first (its neighbours never matter).
        form: ``"NFD"`` or ``"NFKD"``: each character then decomposed so, and each run of combining
            marks put in canonical order (by combining class, stably).
        after: what each character of the ordered (and composed) text becomes.
        compose: the ordered text is composed again (canonical composition: NFC and NFKC).
    """

    before: Callable[[str], str]
    form: Literal["NFD", "NFKD"]
    after: Callable[[str], str]
    compose: bool = False


# --------------------------------------------------------------------------------------------------
# The stages


# How stages and pipelines print themselves (``repr`` and ``str`` as ``tokenizers`` does): filled in by
# kvec.interop.hf_repr, a higher layer, when it is imported; until then a stage prints its config.
PRINTERS: dict[str, Callable[[Any], str]] = {}

# How a pipeline is described for kvec's native encoder (csrc/core/spec_encoder.h): filled in by
# kvec.native_spec, a higher layer, which kvec's package imports: "pipeline" describes the whole of a
# pipeline, "normalized_pipeline" its stages after the normalizer, for normalized texts without added
# tokens, "keras_tokenizer" a kvec.text.Tokenizer's word rule and word_index. Each raises NotNativeError
# naming what it cannot describe.
NATIVE_DESCRIBERS: dict[str, Callable[[Any], bytes]] = {}


class _Shown:
    """``repr()`` and ``str()`` as ``tokenizers`` prints its stages (:mod:`kvec.interop.hf_repr`)."""

    def __repr__(self) -> str:
        printer = PRINTERS.get("stage_repr")
        return printer(self) if printer else _config_text(self)

    def __str__(self) -> str:
        printer = PRINTERS.get("stage_str")
        return printer(self) if printer else _config_text(self)


def _config_text(stage: Any) -> str:
    arguments = ", ".join(f"{name}={value!r}" for name, value in stage.get_config().items())
    return f"{type(stage).__name__}({arguments})"


#: Every stage type kvec's JSON saves and loads, by stage kind, then by name: filled by :func:`registered`.
STAGE_TYPES: dict[str, dict[str, type[Stage]]] = {
    "model": {},
    "normalizer": {},
    "pre_tokenizer": {},
    "decoder": {},
    "post_processor": {},
}

_StageType = TypeVar("_StageType", bound="type[Stage]")


def registered(cls: _StageType) -> _StageType:
    """Class decorator: ``cls`` is saved in kvec's JSON as its name and ``get_config()``, and rebuilt
    from them (:data:`STAGE_TYPES`). Only registered stages load, so nothing in a file names code to run.

    Example:
        >>> from kvec.normalizers import Lowercase
        >>> STAGE_TYPES["normalizer"]["Lowercase"] is Lowercase
        True
    """
    kind = cls.stage_kind
    if kind not in STAGE_TYPES:
        raise TypeError(f"{cls.__name__} is no stage: it subclasses none of the stage contracts")
    known = STAGE_TYPES[kind].get(cls.__name__)
    if known is not None and known is not cls:
        raise TypeError(f"a {kind} named {cls.__name__} is registered already ({known.__module__})")
    STAGE_TYPES[kind][cls.__name__] = cls
    return cls


class Stage(_Shown):
    """What every stage states beside itself for the writers: its kind, how kvec's JSON nests it, and
    its ``tokenizer.json`` form. A new stage subclasses its contract, gives ``get_config()``, is
    :func:`registered`, and overrides :meth:`to_tokenizer_json` where Hugging Face has the same stage."""

    #: the pipeline attribute this kind of stage fills ("normalizer", "pre_tokenizer", ...)
    stage_kind: ClassVar[str] = ""
    #: the attribute, and constructor argument, holding the stages this one runs in order (a
    #: ``Sequence``'s), saved as documents of their own; None: it holds no stages
    nested_stages: ClassVar[str | None] = None
    #: True where the config's ``pattern`` is a literal str or a :class:`kvec.common.patterns.Regex`, which the
    #: files tell apart as ``{"String": ...}`` and ``{"Regex": ...}``
    takes_pattern: ClassVar[bool] = False

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this stage."""
        return {}

    def to_tokenizer_json(self) -> dict[str, Any]:
        """This stage as Hugging Face's ``tokenizer.json`` holds it (``{"type": ..., ...}``), read by
        ``tokenizers`` with the same meaning; ``ValueError`` naming the stage where that format has no
        such stage (the default)."""
        raise ValueError(f"{self.stage_kind} {type(self).__name__} has no tokenizer.json form")


class _Settings:
    """Counts the assignments to a stage's public attributes (its settings), so that what was made from
    them (a C table, a pipeline's encoder and word cache) is made again: see :func:`settings_key`."""

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if not name.startswith("_"):
            self.__dict__["_settings_changes"] = self.__dict__.get("_settings_changes", 0) + 1


def changed(stage: object) -> None:
    """Count a change to ``stage`` made otherwise than by assigning one of its attributes (an item of a
    ``Sequence`` replaced), so that :func:`settings_key` changes too."""
    stage.__dict__["_settings_changes"] = stage.__dict__.get("_settings_changes", 0) + 1


def settings_key(stage: object) -> tuple[Any, ...]:
    """A key that changes when ``stage``, or a stage it holds (a ``Sequence``'s), is given a new setting
    (an attribute assigned after construction, as ``tokenizers`` users do); what was cached from a stage
    holds while its key stays the same."""
    if not isinstance(stage, _Settings):
        return (id(stage),)
    nested = []
    for value in stage.__dict__.values():
        if isinstance(value, _Settings):
            nested.append(settings_key(value))
        elif isinstance(value, list) and value and isinstance(value[0], _Settings):
            nested.extend(map(settings_key, value))
    return (id(stage), stage.__dict__.get("_settings_changes", 0), tuple(nested))


class StageList:
    """Item access to the stages of a ``Sequence`` (``sequence[0]``, ``sequence[1] = Strip()``,
    ``len(sequence)``), as ``tokenizers``' ``Sequence`` objects have it: an index past the end raises
    ``IndexError`` and a negative one ``OverflowError``, as there. The item is the stage itself, so
    setting its attributes changes the sequence; replacing an item takes effect at the next call."""

    #: the name of the attribute that holds the list of stages, and the type every stage has
    _stages_attribute: str = ""
    _stage_type: type = object

    def _stages(self) -> list[Any]:
        return cast(list[Any], getattr(self, self._stages_attribute))

    @staticmethod
    def _index(index: int) -> int:
        position = operator.index(index)
        if position < 0:
            raise OverflowError("can't convert negative int to unsigned")
        return position

    def _position(self, position: int) -> int:
        if position >= len(self._stages()):
            raise IndexError("Index not found")
        return position

    def __len__(self) -> int:
        return len(self._stages())

    def __bool__(self) -> bool:
        return True  # a stage is never false, even a Sequence of none

    def __getitem__(self, index: int) -> Any:
        return self._stages()[self._position(self._index(index))]

    def __setitem__(self, index: int, stage: Any) -> None:
        position = self._index(index)  # checked in tokenizers' order: the index, the stage, the end
        if not isinstance(stage, self._stage_type):
            raise TypeError(f"{type(stage).__name__!r} object is not an instance of {self._stage_type.__name__!r}")
        self._stages()[self._position(position)] = stage
        changed(self)


class JsonState:
    """Pickled as ``tokenizers`` pickles its components: :meth:`__getstate__` is the component's JSON,
    ``{"type": ..., **config}`` (compact UTF-8 bytes), and the stage is rebuilt from it with
    ``type(**config)``, so ``type(**json.loads(stage.__getstate__()))`` rebuilds it too."""

    def _state_keywords(self, keywords: Mapping[str, object], allowed: Iterable[str] = ()) -> None:
        """Check the keywords a constructor takes besides its settings: ``type``, the stage's own name
        (which the JSON holds), and the ``allowed`` names."""
        name = type(self).__name__
        for keyword, value in keywords.items():
            if not (keyword == "type" and value == name) and keyword not in allowed:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument {keyword!r}")

    def _state_config(self) -> dict[str, Any]:
        """The settings :meth:`__getstate__` writes (``get_config()`` by default)."""
        return cast(dict[str, Any], cast(Any, self).get_config())

    def __getstate__(self) -> bytes:
        document = {"type": type(self).__name__, **self._state_config()}
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

    def __setstate__(self, state: bytes | str | dict[str, Any]) -> None:
        if isinstance(state, dict):  # pickled by a kvec from before: its attributes
            self.__dict__.update(state)
            return
        config = json.loads(state)
        config.pop("type", None)
        cast(Any, self).__init__(**config)


#: ``"normalizer"`` and ``"pre_tokenizer"``: the classes of stages written in Python, set by
#: :mod:`kvec.custom_stages` (a higher layer) for :meth:`Normalizer.custom` and :meth:`PreTokenizer.custom`.
CUSTOM_STAGES: dict[str, Callable[[Any], Any]] = {}


class Normalizer(Stage, _Settings, ABC):
    """Cleans text before pre-tokenization, keeping the original span of every character."""

    stage_kind = "normalizer"

    @staticmethod
    def custom(normalizer: Any) -> Normalizer:
        """A normalizer written in Python (``tokenizers``' ``Normalizer.custom``): ``normalizer``'s
        ``normalize(normalized)`` changes the :class:`kvec.custom_stages.NormalizedString` it is given.
        A pipeline holding one encodes on the Python route and cannot be saved."""
        return CUSTOM_STAGES["normalizer"](normalizer)

    @abstractmethod
    def normalize(self, normalized: Normalized) -> Normalized:
        """The normalized form of ``normalized``, each character with its original span."""

    def normalize_str(self, text: str) -> str:
        """The normalized text alone (as ``tokenizers``' ``normalize_str``)."""
        return self.normalize(Normalized.of(text)).text

    def normalize_batch(self, texts: list[str]) -> list[str]:
        """:meth:`normalize_str` of every text."""
        return list(map(self.normalize_str, texts))

    def normalize_token(self, text: str) -> str:
        """The form an added token is matched in: the normalized text, less what only belongs at the
        start of a whole text (:class:`kvec.normalizers.Prepend`)."""
        return self.normalize_str(text)

    def keeps(self, char: str) -> bool:
        """True when every ``char`` of a text is surely still itself in the normalized text: the
        encoders look for the first characters of added tokens there. False when it may not be."""
        return False

    def character_rule(self) -> Callable[[str], str | None] | None:
        """How this normalizer treats each character on its own, when it works character by character:
        a function from one character to the text it becomes there, or to None where the character's
        neighbours matter (a combining mark, say). The encoder applies it natively as a table, and hands
        texts holding such a character to :meth:`normalize`. None (the default): the normalizer does
        not work character by character."""
        return None

    def decomposition(self) -> Decomposition | None:
        """This normalizer as a character rule, a Unicode decomposition of the whole text, then a
        character rule, when it is one (``NFD``, ``NFKD``, ``NFC``, ``NFKC``, ``BertNormalizer``
        stripping accents, and sequences of one of them with character rules): the native encoder runs
        it as two tables around the canonical ordering (and composition) of marks. None (the default): it is not."""
        return None

    def native_normalizer(self) -> bytes | None:
        """This normalizer's own section of the native description (``csrc/core/spec_encoder.h`` states
        each kind's layout), written beside it, for one that is neither a character rule nor a
        decomposition (sentencepiece's normalizer). None (the default): it is described by those."""
        return None

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this normalizer."""
        return {}


class PreTokenizer(Stage, _Settings, ABC):
    """Cuts (normalized) text into the words a model segments, with their offsets.

    ``first`` is True when the text starts a whole text (some pre-tokenizers add a prefix there). It may
    also be a count: how many of the text's first characters start where the original text starts (more
    than one where a normalizer wrote several characters for the first one, as ``Prepend`` does), so that
    a :class:`kvec.pre_tokenizers.Sequence` knows which of its pieces still start the text, as
    ``tokenizers`` decides it from each piece's original offsets.
    """

    stage_kind = "pre_tokenizer"

    @staticmethod
    def custom(pre_tokenizer: Any) -> PreTokenizer:
        """A pre-tokenizer written in Python (``tokenizers``' ``PreTokenizer.custom``):
        ``pre_tokenizer``'s ``pre_tokenize(pretok)`` cuts the
        :class:`kvec.custom_stages.PreTokenizedString` it is given (``pretok.split(function)``). A
        pipeline holding one encodes on the Python route and cannot be saved."""
        return CUSTOM_STAGES["pre_tokenizer"](pre_tokenizer)

    @abstractmethod
    def pre_tokenize(self, text: str, first: int = True) -> list[Piece]:
        """The words of ``text`` as the model sees them, with original offsets."""

    @abstractmethod
    def split_words(self, text: str, first: int = True) -> list[str]:
        """The words of ``text`` as counted for training: raw substrings, before :meth:`spell`."""

    def spell(self, word: str) -> str:
        """A word of :meth:`split_words` as the model sees it (identity unless words are respelled,
        as byte-level words are)."""
        return word

    def word_table(self) -> WordTable | None:
        """How the C encoder may cut this pre-tokenizer's words without calling it, or None when it
        cannot (the pipeline then calls :meth:`split_words`)."""
        return None

    #: True when the words only shape training: a model whose meaning is sentencepiece's
    #: (:attr:`Model.segments_across_words`, without sampling) then segments each (normalized) text
    #: whole, as sentencepiece does; any other model segments the words.
    whole_text_models: bool = False

    def pre_tokenize_str(self, text: str) -> list[tuple[str, Span]]:
        """``[(word, (start, end)), ...]``: the words of ``text`` as the model sees them, each with the
        span of ``text`` it comes from (as ``tokenizers``' ``pre_tokenize_str``; no empty word).

        Example:
            >>> from kvec.pre_tokenizers import Whitespace
            >>> Whitespace().pre_tokenize_str("Hi, you")
            [('Hi', (0, 2)), (',', (2, 3)), ('you', (4, 7))]
        """
        return [(piece.text, piece.offsets(0, len(piece.text))) for piece in self.pre_tokenize(text) if piece.text]

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this pre-tokenizer."""
        return {}


class Model(Stage, _Settings, ABC):
    """Segments one pre-tokenized word into tokens of a vocabulary.

    Attributes:
        vocab: ``{token: id}``.
        id_to_token: ``{id: token}``.
    """

    stage_kind = "model"

    vocab: dict[str, int]
    id_to_token: dict[int, str]
    #: True where the model segments the words a byte-level pre-tokenizer spells byte by byte (BPE)
    spells_bytes: ClassVar[bool] = False
    #: The id whose token is the text it covers rather than its vocabulary entry (Unigram's unknown
    #: token, as Hugging Face and sentencepiece spell it); None: every token is its id's entry.
    text_token_id: int | None = None
    #: True when the model's library segments a text whole across the words of a pre-tokenizer whose
    #: words only shape training (:attr:`PreTokenizer.whole_text_models`): sentencepiece's Unigram.
    #: False (the default, Hugging Face's meaning): each word is segmented apart.
    segments_across_words: bool = False

    @abstractmethod
    def tokenize_spans(self, word: str) -> list[tuple[int, int, int]]:
        """``[(id, start, end), ...]``: the tokens of ``word`` and where each lies in it."""

    @abstractmethod
    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this model."""

    def get_vocab(self) -> dict[str, int]:
        """The ``{token: id}`` dictionary (a copy)."""
        return dict(self.vocab)

    def token_to_id(self, token: str) -> int | None:
        """The id of ``token``, or None."""
        return self.vocab.get(token)

    def tokenize(self, word: str) -> list[str]:
        """The tokens of one pre-tokenized word."""
        return [self.id_to_token[i] for i, _, _ in self.tokenize_spans(word)]

    def tokenize_ids(self, word: str) -> list[int]:
        """The token ids of one pre-tokenized word."""
        return [i for i, _, _ in self.tokenize_spans(word)]

    def ids_function(self) -> Callable[[str], list[int]]:
        """``word -> ids``, as fast as the model has it."""
        return self.tokenize_ids

    def native_model(self, byte_spelling: str = "") -> bytes:
        """The model's section of the native description (``csrc/core/spec_encoder.h`` states each
        kind's layout), written beside the model it describes; ``byte_spelling``: the 256 characters a
        byte-level pre-tokenizer spells bytes with, or "". :class:`kvec.errors.NotNativeError` naming the
        model where the native encoder has no such model (the default)."""
        described = [name for name, cls in STAGE_TYPES["model"].items() if _describes_itself(cls)]
        raise NotNativeError(f"the model is {type(self).__name__}; described: {', '.join(described)}")

    @property
    def sampling(self) -> bool:
        """True when segmentations are drawn at random (BPE dropout, Unigram sampling): a word's ids
        must then not be cached."""
        return False


def _describes_itself(cls: type) -> bool:
    """True where the model class writes its own section of the native description."""
    return cast(Any, cls).native_model is not Model.native_model


class Trainer(ABC):
    """Learns a :class:`Model` from word counts (words as :meth:`PreTokenizer.split_words` gives
    them, spelled with :meth:`PreTokenizer.spell`)."""

    special_tokens: Sequence[str | AddedToken] = ()  # registered as special by the trained pipeline

    @abstractmethod
    def train_from_counts(self, word_counts: Mapping[str, int], n_jobs: int = 1) -> Model:
        """A new model from ``{word: count}`` in first-occurrence order; ``n_jobs`` processes or
        threads where the trainer has parallel work (the result is the same for every ``n_jobs``)."""


class PostProcessor(Stage, ABC):
    """Adds special tokens and type ids around one encoded text or a pair."""

    stage_kind = "post_processor"

    def single_affixes(self) -> tuple[list[int], list[int]] | None:
        """The ids this post-processor puts before and after one sequence's ids, when it only adds ids
        around it (the encoder then adds them natively); None when it does more."""
        return None

    @abstractmethod
    def process(self, encodings: list[Encoding], add_special_tokens: bool) -> list[Encoding]:
        """The encodings of one sequence or a pair (truncated; each one, and each of its overflowing
        ones, marked with its sequence id; its type ids that id), with
        the special tokens and type ids added, as a list the pipeline merges in order
        (:meth:`kvec.encoding.Encoding.merge`, offsets as they are); without ``add_special_tokens``,
        type ids only."""

    @abstractmethod
    def added_tokens(self, is_pair: bool) -> int:
        """How many special tokens :meth:`process` adds to one sequence, or to a pair."""

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this post-processor."""
        return {}


def utf8_text(data: bytes, invalid: str = "lossy") -> str:
    """``data`` read as UTF-8, lone surrogates kept. Where it is not UTF-8 (ids that split a character),
    ``invalid`` says how: ``"lossy"``, the whole text is read with U+FFFD in place of each bad byte run,
    as Hugging Face's byte-level decoder does; ``"bytes"``, one U+FFFD per bad byte, as sentencepiece does;
    ``"strict_bytes"``, the same with lone surrogates bad bytes too, exactly as sentencepiece.

    Example:
        >>> utf8_text(b"\\xe5\\x8f!"), utf8_text(b"\\xe5\\x8f!", "bytes")
        ('\ufffd!', '\ufffd\ufffd!')
    """
    errors = "strict" if invalid == "strict_bytes" else "surrogatepass"
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError:
        if invalid not in ("bytes", "strict_bytes"):
            return data.decode("utf-8", "replace")
    parts, position = [], 0
    while True:
        try:
            parts.append(data[position:].decode("utf-8", errors))
            return "".join(parts)
        except UnicodeDecodeError as error:  # start..end: one maximal bad run of bytes
            parts.append(data[position : position + error.start].decode("utf-8", errors))
            parts.append("\ufffd" * (error.end - error.start))
            position += error.end


def byte_run_text(data: bytes) -> str:
    """A run of byte tokens' bytes as Hugging Face's ByteFallback decoder reads it: the text where they
    are UTF-8 as a whole (surrogates not allowed), else one U+FFFD per byte.

    Example:
        >>> byte_run_text(b"\\xc3\\xa9"), byte_run_text(b"A\\xe5")
        ('\u00e9', '\ufffd\ufffd')
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd" * len(data)


class Decoder(Stage, ABC):
    """Turns tokens back into text, as a step of a chain (Hugging Face's ``decode_chain``): each decoder
    turns a list of tokens into a new list, the next decoder of a :class:`kvec.decoders.Sequence` takes
    that, and the text is the last list joined."""

    stage_kind = "decoder"

    @abstractmethod
    def decode_chain(self, tokens: list[str]) -> list[str]:
        """The tokens this decoder makes of ``tokens`` (its step in a chain)."""

    def decode(self, tokens: list[str]) -> str:
        """The text of ``tokens``: :meth:`decode_chain` joined."""
        return "".join(self.decode_chain(list(tokens)))

    def pieces(self) -> PieceDecoder | None:
        """This decoder as a :class:`PieceDecoder` that decodes every token list alike, when it has one
        (the pipeline then decodes ids in C); None (the default) when it has not."""
        return None

    def token_step(self) -> Callable[[str, bool], str] | None:
        """``(token, first) -> text`` when :meth:`decode_chain` turns each token into one on its own,
        knowing only whether it comes first (a :class:`kvec.decoders.Sequence` of such steps then decodes
        in C); None (the default) when it does more."""
        return None

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments that rebuild this decoder."""
        return {}


class PieceDecoder(Decoder):
    """A decoder that gives each token's part of the text alone, knowing only whether the token comes
    first: the text is every token's :meth:`token_bytes` back to back, read as UTF-8 as
    :attr:`invalid_utf8` says, then :meth:`finish`. The pipeline decodes ids in C through a table of these
    bytes (``kvec._encoder.PieceTable``), so this is the decoder's one implementation; a row whose bytes
    are not UTF-8 is read by :meth:`decode` unless ``invalid_utf8`` is ``"lossy"``.

    Attributes:
        invalid_utf8: how bytes that are not UTF-8 are read: ``"lossy"``, ``"bytes"`` and
            ``"strict_bytes"`` as :func:`utf8_text` says; ``"runs"``: each run of tokens that
            :meth:`is_byte_token` marks is read by :func:`byte_run_text`, as Hugging Face's ByteFallback
            decoder does.
    """

    invalid_utf8: str = "lossy"

    @abstractmethod
    def token_bytes(self, token: str, first: bool) -> bytes:
        """The UTF-8 bytes ``token`` adds to the text, as the first token or a later one (special
        tokens that are skipped do not count)."""

    def is_byte_token(self, token: str, first: bool) -> bool:
        """With ``invalid_utf8 = "runs"``: True where ``token`` stands for one raw byte there."""
        return False

    def keeps_first(self, token: str) -> bool:
        """True where ``token``, decoded first, leaves the next token first too (a token that adds
        nothing there, as sentencepiece's control pieces); False by default."""
        return False

    def finish(self, text: str) -> str:
        """The last touch to the text of the tokens' bytes (none by default)."""
        return text

    def pieces(self) -> PieceDecoder:
        return self

    def decode_chain(self, tokens: list[str]) -> list[str]:
        """The whole text as one token (decoders whose tokens keep their own text say so instead)."""
        return [self.decode(tokens)]

    def decode(self, tokens: list[str]) -> str:
        parts, run, first = [], bytearray(), True
        for token in tokens:
            data = self.token_bytes(token, first)
            byte_token = self.invalid_utf8 == "runs" and self.is_byte_token(token, first)
            first = first and self.keeps_first(token)
            if byte_token:
                run += data
                continue
            if run:
                parts.append(byte_run_text(bytes(run)).encode("utf-8"))
                run.clear()
            parts.append(data)
        if run:
            parts.append(byte_run_text(bytes(run)).encode("utf-8"))
        return self.finish(utf8_text(b"".join(parts), "lossy" if self.invalid_utf8 == "runs" else self.invalid_utf8))
