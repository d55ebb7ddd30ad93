"""Atomic, durable file writes: a reader finds the old file or the new one, never a partial one.

Every file kvec writes goes through :func:`atomic_write`. The content goes to a temporary file in the
target's folder, which is flushed and fsynced, then renamed over the target (``os.replace``, atomic on
POSIX and Windows), and the folder is fsynced so the rename survives a power cut. If the writer fails,
the temporary file is removed and the target is untouched; if the process is killed, at worst a
``.kvec-*.tmp`` file is left beside an intact target.

Permissions are those of an ordinary ``open(path, "w")``: a new file gets ``0o666`` less the umask
(``0o644`` under the usual ``022``), and a file that is replaced keeps its mode (its read, write and
execute bits). For a new file the temporary file is created with ``0o666``, so the operating system
applies the umask itself: reading the umask with ``os.umask`` would briefly change it for every thread
of the process. A replacement takes the old file's mode before any content is written.

Only regular files are replaced. A symlink is written through: its final target (every link resolved)
is replaced, atomically in the target's own folder, and the link stays a link. A FIFO, a device, a
socket or a folder is refused with :class:`kvec.errors.NotAFileError` before anything is created, so a
save never turns ``/dev/null`` or a named pipe into a regular file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from kvec.errors import NotAFileError, file_kind

__all__ = ["atomic_write", "replaceable_target"]

_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_NAME_ATTEMPTS = 100


@contextmanager
def atomic_write(path: str | os.PathLike[str], binary: bool = False) -> Iterator[IO[Any]]:
    """A file object to write ``path``'s new content to; the content replaces ``path`` on success.

    A new file's mode follows the umask; a replaced file keeps its mode. A symlink's final target is
    replaced (the link stays); anything but a regular file raises :class:`kvec.errors.NotAFileError`
    before any work.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
        >>> with atomic_write(path) as f:
        ...     _ = f.write("complete")
        >>> open(path).read()
        'complete'
    """
    target, old_mode = replaceable_target(path)
    folder = os.path.dirname(target)
    # A replacement starts private and takes the old file's mode before any content is written, so the
    # content is never readable by more users than the old file's was.
    fd, temporary = _create_temporary(folder, 0o666 if old_mode is None else 0o600)
    try:
        if old_mode is not None:
            _set_permissions(fd, temporary, old_mode)
        f: IO[Any] = os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8")
        with f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    _sync_folder(folder)


def __getattr__(name: str) -> Any:
    """The module ``secrets`` as this module's attribute, imported on first use (PEP 562): with it comes
    OpenSSL (``hmac`` imports ``_hashlib``), memory that a process writing no file need not take."""
    if name == "secrets":
        import secrets

        return secrets
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _create_temporary(folder, mode):
    """Create a new, empty file in ``folder`` with ``mode`` less the umask: ``(descriptor, path)``."""
    secrets = __getattr__("secrets")
    for _ in range(_NAME_ATTEMPTS):
        temporary = os.path.join(folder, f".kvec-{secrets.token_hex(8)}.tmp")
        try:
            return os.open(temporary, _CREATE_FLAGS, mode), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {folder!r} after {_NAME_ATTEMPTS} attempts")


def replaceable_target(path: str | os.PathLike[str]) -> tuple[str, int | None]:
    """``(file, mode)``: the absolute path a save of ``path`` replaces (a symlink's final target) and
    the permission bits that file has (None where there is no file yet).

    Raises :class:`kvec.errors.NotAFileError` naming ``path`` when it is a FIFO, a device, a socket or
    a folder. Only the read, write and execute bits carry over to a replacement: set-user-ID and
    set-group-ID would otherwise pass to content that was never checked, which writing in place would
    have cleared.

    Example:
        >>> replaceable_target(os.devnull)
        Traceback (most recent call last):
        ...
        kvec.errors.NotAFileError: /dev/null: a character device, not a regular file: kvec replaces regular files only
    """
    given = os.fspath(path)
    target = os.path.realpath(given)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target, None
    if not stat.S_ISREG(mode):
        raise NotAFileError(given, file_kind(mode), "replaces")
    return target, mode & 0o777


def _set_permissions(fd, temporary, mode):
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:  # Windows
        os.chmod(temporary, mode)


def _sync_folder(folder):
    """Make the rename durable (POSIX; Windows has no folder handles to sync)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
