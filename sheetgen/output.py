"""Atomic output: a file is either its complete new content or left as it was."""

from __future__ import annotations

import os
import tempfile

from sheetgen.errors import OutputError


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, fsync it, then rename it into place."""
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".sheetgen-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, target)
    except BaseException as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
