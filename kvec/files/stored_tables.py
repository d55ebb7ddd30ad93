"""Tables that take seconds to make and never change for one kvec and one Python, kept between processes
in the user's cache: the native description's normalizer tables (kvec/native_spec.py), made from a
rule asked about every code point.

A table is filed under its key (what it is made from: the caller names the rule, its settings and the
sources and versions it depends on) in a private folder of kvec's cache (kvec/files/user_cache.py).
The file holds the key itself and a checksum of the table, so a file of another key (a name shared by
chance) or a damaged one is never taken: the table is made again and the file replaced. A cache that
cannot be read or written (no home folder, a read-only disk, a folder another user can write) only
costs the time; ``KVEC_TABLE_CACHE=0`` turns it off.

    >>> from kvec.files.stored_tables import stored_table
    >>> stored_table("an example\\0v1", lambda: b"made once")
    b'made once'
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable

from kvec.files.atomic import atomic_write
from kvec.files.user_cache import UnsafeCacheError, private_folder

__all__ = ["stored_table"]

_MAGIC = b"KVEC-TABLE-1\n"
_HEADER = struct.Struct("<QQI")  # key length, table length, the table's CRC-32


def stored_table(key: str, make: Callable[[], bytes]) -> bytes:
    """The table filed under ``key``, or ``make()`` (then filed) when there is none to be trusted."""
    encoded = key.encode("utf-8", "surrogatepass")
    path = _path(encoded)
    if path is not None:
        table = _read(path, encoded)
        if table is not None:
            return table
    table = make()
    if path is not None:
        _write(path, encoded, table)
    return table


def _path(key: bytes) -> str | None:
    if os.environ.get("KVEC_TABLE_CACHE", "1") == "0":
        return None
    try:
        folder = private_folder("tables")
    except (OSError, UnsafeCacheError):
        return None
    return os.path.join(folder, f"{zlib.crc32(key):08x}{zlib.adler32(key):08x}.table")


def _read(path: str, key: bytes) -> bytes | None:
    """The table of the file at ``path`` if it is ``key``'s and whole, else None."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    start = len(_MAGIC) + _HEADER.size
    if len(data) < start or not data.startswith(_MAGIC):
        return None
    key_length, table_length, checksum = _HEADER.unpack_from(data, len(_MAGIC))
    if len(data) != start + key_length + table_length or data[start : start + key_length] != key:
        return None
    table = data[start + key_length :]
    return table if zlib.crc32(table) == checksum else None


def _write(path: str, key: bytes, table: bytes) -> None:
    try:
        with atomic_write(path, binary=True) as file:
            file.write(_MAGIC + _HEADER.pack(len(key), len(table), zlib.crc32(table)) + key + table)
    except OSError:
        pass  # the cache only saves time
