"""kvec's per-user cache folder, and private folders in it for what kvec builds and later loads.

A file that kvec loads as code (the TensorFlow op library) is built only into a folder that the user
owns and that no one else can write, and is loaded only from one: a shared temporary folder would let
another user put their own library there first.
"""

from __future__ import annotations

import os
import stat

from kvec.errors import KvecError

__all__ = ["UnsafeCacheError", "default_cache_dir", "private_folder"]


class UnsafeCacheError(KvecError):
    """A cache folder or file is not the user's alone; the message names it."""


def default_cache_dir() -> str:
    """``$KVEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/kvec``, else ``~/.cache/kvec``."""
    if os.environ.get("KVEC_CACHE_DIR"):
        return os.environ["KVEC_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kvec")


def check_private(path: str) -> None:
    """:class:`UnsafeCacheError` unless ``path`` is owned by this user and no one else can write it."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeCacheError(f"{path}: is a symbolic link; kvec builds and loads code only in a folder of its own")
    if info.st_uid != os.getuid():
        raise UnsafeCacheError(f"{path}: belongs to user {info.st_uid}, not to this user ({os.getuid()})")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheError(f"{path}: others can write it (mode {stat.S_IMODE(info.st_mode):o})")


def private_folder(*parts: str) -> str:
    """The folder ``default_cache_dir()/parts...``, created 0700 where missing, each level checked with
    :func:`check_private` (the cache folder itself included)."""
    folders = [default_cache_dir()]
    for part in parts:
        folders.append(os.path.join(folders[-1], part))
    for folder in folders:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        check_private(folder)
    return folders[-1]
