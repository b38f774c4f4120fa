"""The harness's file tools, safe against the sandboxed code: every path under the folder is
opened one component at a time relative to the previous directory's descriptor, never following
a symbolic link (``O_NOFOLLOW``, ``O_DIRECTORY``), so a link the sandboxed code swaps in at any
moment cannot send the harness outside the folder. The opened file must be a regular file with
one link (not a FIFO, device or socket, not a hard link to a file elsewhere), checked on the
open descriptor (``fstat``), so there is no gap between the check and the use.

``open_beneath(folder, relative, write)`` gives such a descriptor; ``folder_bytes(folder)`` the
bytes under the folder (links not followed), for the folder quota.
"""

from __future__ import annotations

import errno
import os
import stat

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
LEAF = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # a FIFO opens without waiting


class SandboxError(PermissionError):
    """A file tool was asked for a path outside the sandbox's folder, through a link, or to a
    file that is not a regular file."""


def components(folder: str, relative: str) -> list[str]:
    """The names of ``relative`` below ``folder``; an absolute path must start with ``folder``.
    Refuses ``..``, an empty path, the folder itself and NUL bytes."""
    if not isinstance(relative, str) or not relative or "\x00" in relative:
        raise SandboxError(f"path must be a non-empty string without NUL, got {relative!r}")
    path = relative
    if os.path.isabs(path):
        if not (path + os.sep).startswith(folder + os.sep):
            raise SandboxError(f"path {relative!r} is outside the sandbox folder")
        path = path[len(folder) :]
    names = [name for name in path.split(os.sep) if name not in ("", ".")]
    if ".." in names:
        raise SandboxError(f"path {relative!r} is outside the sandbox folder ('..')")
    if not names:
        raise SandboxError(f"path {relative!r} names the folder itself, not a file in it")
    return names


def open_beneath(folder: str, relative: str, write: bool = False) -> int:
    """A descriptor of the regular file ``relative`` under ``folder``: read-only, or for
    writing (created, parents created, then truncated once it is known to be a regular file
    of the folder). Raises SandboxError for a link, a non-regular file or a path outside."""
    names = components(folder, relative)
    fd = os.open(folder, DIRECTORY)
    try:
        for name in names[:-1]:
            child = _enter(fd, name, relative, create=write)
            os.close(fd)
            fd = child
        flags = (os.O_WRONLY | os.O_CREAT) if write else os.O_RDONLY
        try:
            leaf = os.open(names[-1], flags | LEAF, 0o644, dir_fd=fd)
        except OSError as error:
            raise _refusal(error, relative, names[-1]) from None
    finally:
        os.close(fd)
    try:
        info = os.fstat(leaf)
        if not stat.S_ISREG(info.st_mode):
            raise SandboxError(f"path {relative!r} is not a regular file")
        if info.st_nlink != 1:
            raise SandboxError(f"path {relative!r} has {info.st_nlink} hard links (one expected)")
        if write:
            os.ftruncate(leaf, 0)
    except BaseException:
        os.close(leaf)
        raise
    return leaf


def _enter(fd: int, name: str, relative: str, create: bool) -> int:
    """The descriptor of directory ``name`` in directory ``fd`` (made when ``create``)."""
    try:
        try:
            child = os.open(name, DIRECTORY, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, 0o755, dir_fd=fd)
            except FileExistsError:
                pass
            child = os.open(name, DIRECTORY, dir_fd=fd)
    except OSError as error:
        raise _refusal(error, relative, name) from None
    return child


def _refusal(error: OSError, relative: str, name: str) -> OSError:
    if error.errno in (errno.ELOOP, errno.ENOTDIR):
        return SandboxError(f"path {relative!r}: {name!r} is a symbolic link or not a folder")
    if error.errno == errno.ENXIO:
        return SandboxError(f"path {relative!r} is not a regular file (a FIFO without reader)")
    if error.errno == errno.ENOENT:
        return FileNotFoundError(error.errno, f"no file {relative!r} in the sandbox folder")
    return error


def folder_bytes(folder: str) -> int:
    """Bytes of every file under ``folder`` (allocated blocks, so sparse files count what they
    use), links not followed."""
    total, stack = 0, [folder]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            total += info.st_blocks * 512
            if stat.S_ISDIR(info.st_mode):
                stack.append(entry.path)
    return total
