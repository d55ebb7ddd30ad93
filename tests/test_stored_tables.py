"""kvec/files/stored_tables.py: tables made once, then read from the user's cache, never a wrong one."""

import os
import subprocess
import sys

import pytest

from kvec.files import stored_tables
from kvec.files.stored_tables import stored_table


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KVEC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KVEC_TABLE_CACHE", raising=False)
    return tmp_path / "cache" / "tables"


def counted(table):
    calls = []

    def make():
        calls.append(1)
        return table

    return make, calls


def test_a_table_is_made_once_then_read(cache):
    make, calls = counted(b"\x00\x01 table")
    assert stored_table("key\0v1", make) == b"\x00\x01 table"
    assert stored_table("key\0v1", make) == b"\x00\x01 table"
    assert len(calls) == 1
    assert len(list(cache.iterdir())) == 1


def test_another_key_makes_its_own_table(cache):
    assert stored_table("one", lambda: b"1") == b"1"
    assert stored_table("two", lambda: b"2") == b"2"
    assert stored_table("one", lambda: b"not read") == b"1"


@pytest.mark.parametrize("damage", ["flip", "cut", "garbage"])
def test_a_damaged_file_is_made_again_and_replaced(cache, damage):
    stored_table("key", lambda: b"the right table")
    (path,) = cache.iterdir()
    data = path.read_bytes()
    path.write_bytes({"flip": data[:-1] + bytes([data[-1] ^ 1]), "cut": data[:-3], "garbage": b"xyz"}[damage])
    make, calls = counted(b"the right table")
    assert stored_table("key", make) == b"the right table"
    assert len(calls) == 1
    assert stored_table("key", lambda: b"not read") == b"the right table"


def test_a_file_of_another_key_under_the_same_name_is_not_taken(cache, monkeypatch):
    stored_table("first", lambda: b"first's table")
    monkeypatch.setattr(stored_tables, "_path", lambda key: str(next(cache.iterdir())))
    assert stored_table("second", lambda: b"second's table") == b"second's table"


def test_turned_off_nothing_is_written(cache, monkeypatch):
    monkeypatch.setenv("KVEC_TABLE_CACHE", "0")
    make, calls = counted(b"t")
    stored_table("key", make)
    stored_table("key", make)
    assert len(calls) == 2
    assert not cache.exists()


def test_a_folder_others_can_write_is_not_used(cache):
    cache.mkdir(parents=True)
    os.chmod(cache, 0o777)
    make, calls = counted(b"t")
    assert stored_table("key", make) == b"t"
    assert stored_table("key", make) == b"t"
    assert len(calls) == 2
    assert list(cache.iterdir()) == []


DESCRIBE = """
import sys
import kvec
from kvec.native_spec import describe
from kvec.normalizers import Lowercase, NFKC, Sequence
from kvec.pre_tokenizers import Whitespace
from kvec.models import WordPiece
pipeline = kvec.Pipeline(WordPiece({"[UNK]": 0, "abc": 1}, unk_token="[UNK]"))
pipeline.normalizer = Sequence([NFKC(), Lowercase()])
pipeline.pre_tokenizer = Whitespace()
sys.stdout.buffer.write(describe(pipeline))
"""


def test_a_description_from_stored_tables_equals_one_made_afresh(tmp_path):
    def described(table_cache):
        environment = {**os.environ, "KVEC_CACHE_DIR": str(tmp_path / "cache"), "KVEC_TABLE_CACHE": table_cache}
        run = subprocess.run([sys.executable, "-c", DESCRIBE], capture_output=True, env=environment, check=True)
        return run.stdout

    afresh = described("0")
    assert not (tmp_path / "cache").exists()
    assert described("1") == afresh  # made and stored
    assert any((tmp_path / "cache" / "tables").iterdir())
    assert described("1") == afresh  # read back
