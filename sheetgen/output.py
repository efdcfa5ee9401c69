"""Atomic output: every file a command writes is its complete new content, or all are left as
they were.

Each file first goes to a temporary file beside its target (same folder, so the final rename
stays on one file system and is atomic); only when every one of them is written and synced are
they renamed into place. Any failure before that removes the temporary files and, when the
command was allowed to make its output folder (`build -o DIR`), the folders it made, so a
failing command leaves nothing behind. A file's folder must otherwise exist already: a typo in
a path is an error, not a new folder. An output that is one of the command's inputs (`render
race.yaml -o race.yaml`, or onto the library the race names) is refused before anything is
written, and so are two outputs that are one file (a symbolic link onto the other). A file
keeps the permissions of the file it replaces; a new one gets what the umask allows. A FIFO
or character device (`-o /dev/null`) is written by opening it, never replaced by a renamed
file; a socket or block device is refused.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence

from sheetgen.errors import OutputError

PathLike = str | os.PathLike


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _identities(path: str) -> list:
    """What makes an output name one file: its path once symbolic links are followed
    (`lnk.pdf` naming `new.yaml`, whether or not it exists yet) and, for an existing file, its
    device and inode (a hard link)."""
    keys: list = [os.path.realpath(path)]
    try:
        info = os.stat(path)
        keys.append((info.st_dev, info.st_ino))
    except OSError:
        pass
    return keys


def same_target(a: PathLike, b: PathLike) -> bool:
    """Whether two output names are one file (:func:`_identities`)."""
    return not set(_identities(os.fspath(a))).isdisjoint(_identities(os.fspath(b)))


def _refuse_one_file_twice(targets: Sequence[str]) -> None:
    """Refuse two targets that are one file (:func:`_identities`), each target looked up
    once (a build of many specs compares no pairs)."""
    seen: dict = {}
    for target in targets:
        keys = _identities(target)
        for key in keys:
            if key in seen:
                first = seen[key]
                same = target if first == target else f"{first} and {target}"
                raise OutputError(f"two outputs of this command would be the same file: {same}")
        seen.update(dict.fromkeys(keys, target))


def _mode_for(target: str) -> int:
    """The permissions a written file gets: those of the file it replaces, else what the
    process' umask lets a new file have (as `open` would make it)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _check_target(target: str, inputs: Iterable[str]) -> bool:
    """Refuse a target that must not be written; True when it is a FIFO or a character device
    (`-o /dev/null`, a named pipe), which is written by opening it, never renamed over."""
    if not target:
        raise OutputError("cannot write an output file with an empty name")
    if target.endswith(("/", os.sep)) and not os.path.isdir(target):
        raise OutputError(f"cannot write {target}: a name ending in '/' is a folder, and there is no such folder; give a file name")
    for source in inputs:
        if _same_file(target, source):
            raise OutputError(f"refusing to write {target}: it is an input of this command ({source}); choose another output file")
    try:
        mode = os.stat(target).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None  # (the folder check below says what is wrong with the path)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise OutputError(f"cannot write {target}: it is a folder")
    if mode is not None and (stat.S_ISSOCK(mode) or stat.S_ISBLK(mode)):
        what = "a socket" if stat.S_ISSOCK(mode) else "a block device"
        raise OutputError(f"refusing to write {target}: it is {what}, not a file; choose a regular file")
    if mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        return True
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise OutputError(f"cannot write {target}: the folder {folder} {what}")
    return False


def _write_special(target: str, data: bytes) -> None:
    """Write to a FIFO or character device in place. A FIFO that nobody reads is an error
    at once (opening it without O_NONBLOCK would wait forever)."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(f"cannot write {target}: it is a named pipe and no process is reading it") from None
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    finally:
        os.close(fd)


def _make_folder(folder: str) -> list[str]:
    """Make `folder` and its missing parents; the ones made, deepest first (for undoing)."""
    made: list[str] = []
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        made.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"cannot make the folder {folder}: {path} is not a folder")
    for path in reversed(made):
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
        except OSError as exc:
            _remove_folders(made)
            raise OutputError(f"cannot make the folder {folder}: {_reason(exc)}") from None
    return made


def _remove_folders(made: Sequence[str]) -> None:
    for path in made:  # deepest first; only empty ones go
        try:
            os.rmdir(path)
        except OSError:
            pass


def check_targets(targets: Iterable[PathLike], *, inputs: Iterable[PathLike] = ()) -> None:
    """Refuse, before any work, the targets `write_files` would refuse (a folder, a missing
    folder, an input, a socket): a command says so at once, not after its analysis."""
    sources = [os.fspath(p) for p in inputs]
    for target in targets:
        _check_target(os.fspath(target), sources)


def write_files(files: Sequence[tuple[PathLike, bytes]], *, folder: PathLike | None = None, inputs: Iterable[PathLike] = ()) -> None:
    """Write every file of `files` ((path, bytes) pairs), or none of them (see the module).

    `folder`: an output folder the call may make (with its parents) when it is missing; it is
    removed again when the write fails. `inputs`: files the command read, never overwritten.
    """
    targets = [os.fspath(path) for path, _data in files]
    sources = [os.fspath(p) for p in inputs]
    made = _make_folder(os.fspath(folder)) if folder is not None else []
    temps: list[str] = []
    try:
        special = {target for target in targets if _check_target(target, sources)}
        _refuse_one_file_twice(targets)
        # a symbolic link is followed: the file it names is replaced, the link (say /dev/stdout
        # onto a file) stays what it was
        regular = [(target, data) for target, (_path, data) in zip(targets, files) if target not in special]
        for target, data in regular:
            try:
                import tempfile  # here, not at the top: a command that writes nothing starts without it

                fd, temp = tempfile.mkstemp(prefix=".sheetgen-", suffix=".tmp", dir=os.path.dirname(os.path.realpath(target)))
            except OSError as exc:
                raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
            temps.append(temp)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.chmod(temp, _mode_for(target))
            except OSError as exc:
                raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
        # special files first: one that fails still leaves every regular file as it was
        for target, (_path, data) in zip(targets, files):
            if target in special:
                _write_special(target, data)
        for k, ((target, _data), temp) in enumerate(zip(regular, temps)):
            try:
                os.replace(temp, os.path.realpath(target))
            except OSError as exc:
                temps = temps[k:]  # the ones before are in place
                raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
        temps = []
    except BaseException:
        for temp in temps:
            try:
                os.unlink(temp)
            except OSError:
                pass
        _remove_folders(made)
        raise


def write_atomic(path: PathLike, data: bytes, *, inputs: Iterable[PathLike] = ()) -> None:
    """Write one file atomically (see `write_files`)."""
    write_files([(path, data)], inputs=inputs)
