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
file; a socket or block device is refused. A name of one of the command's own open
descriptors (`-o /dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`) is written
through that descriptor, as `-o -` is (appending where the shell's `>>` opened it), never
renamed over the file behind it; another process' descriptor is refused. A write-protected
file (no write permission for this user, or no write bit at all, as `rm` asks about it) is
refused unless the command is given `force` (`--force`).

What a command prints on standard output (its report) goes out before any file is put in
place (`write_files(..., announce=...)`): when printing fails (`> /dev/full`, a closed
pipe), no file is written. A command whose work reads through its output folder makes it
before the work (`folder_for_the_work`) and takes it back as `write_files` does.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager

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


#: a name of an open descriptor, once the folders on its way are followed
_DESCRIPTOR = re.compile(r"/proc/(self|thread-self|\d+)(?:/task/\d+)?/fd/(\d+)")


def descriptor(target: str) -> int | None:
    """The open descriptor of this process that `target` names (`/dev/stdout` is 1, as are
    `/dev/fd/1` and `/proc/self/fd/1`), or None when it names none. The links are followed one
    at a time, since following them all at once ends at the file behind the descriptor (the
    file a shell's `>> log.txt` appends to), which a rename would replace. Another process'
    descriptor, and a descriptor this process does not have open, are refused."""
    path = os.path.abspath(target)
    for _hop in range(40):
        head, tail = os.path.split(path)
        head = os.path.realpath(head)
        found = _DESCRIPTOR.fullmatch(os.path.join(head, tail))
        if found is not None:
            pid, fd = found.group(1), int(found.group(2))
            if pid not in ("self", "thread-self") and int(pid) != os.getpid():
                raise OutputError(
                    f"refusing to write {target}: it is an open file of another process; name the file itself"
                )
            try:
                os.fstat(fd)
            except OSError:
                raise OutputError(f"cannot write {target}: this command has no open descriptor {fd}") from None
            return fd
        try:
            link = os.readlink(path)
        except OSError:  # not a link (or no such file): the name is the file's own
            return None
        path = os.path.normpath(os.path.join(head, link))
    return None


def written_at(target: str | None) -> str | None:
    """The file an output named `target` lands in, which a path written in it (a generated
    or imported spec's library) starts from: `target` itself; for a name of this process' own
    descriptor (`-o /dev/stdout >> log.txt`, `/dev/fd/1`), the file behind the descriptor (not
    /dev, nor /dev/fd, whose `..` is /proc/self), or None when that is no file (a pipe, a
    terminal: standard output, as `-o -` is)."""
    if target is None or descriptor(target) is None:
        return target
    behind = os.path.realpath(target)
    return behind if os.path.isfile(behind) else None


def _write_protected(target: str, mode: int) -> bool:
    """Whether a regular file may not be replaced without `--force`: this user may not write
    it, or it has no write bit at all (root may write anything; a shell's `>` refuses such a
    file to everyone else, and `rm` asks)."""
    return not mode & 0o222 or not os.access(target, os.W_OK)


def _check_target(target: str, inputs: Iterable[str], force: bool = False) -> bool:
    """Refuse a target that must not be written; True when it is written in place, never
    renamed over: a FIFO or a character device (`-o /dev/null`, a named pipe), or one of this
    process' open descriptors (:func:`descriptor`)."""
    if not target:
        raise OutputError("cannot write an output file with an empty name")
    if target.endswith(("/", os.sep)) and not os.path.isdir(target):
        raise OutputError(
            f"cannot write {target}: a name ending in '/' is a folder, and there is no such folder; give a file name"
        )
    for source in inputs:
        if _same_file(target, source):
            raise OutputError(
                f"refusing to write {target}: it is an input of this command ({source}); choose another output file"
            )
    if descriptor(target) is not None:
        return True
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
    if mode is not None and not force and _write_protected(target, mode):
        raise OutputError(
            f"refusing to write {target}: it is write-protected (mode {stat.S_IMODE(mode):04o}); give --force to "
            "replace it"
        )
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise OutputError(f"cannot write {target}: the folder {folder} {what}")
    return False


def _write_to(fd: int, target: str, data: bytes) -> None:
    """Write all of `data` to an open descriptor, waiting on it as a shell would."""
    try:
        blocking = os.get_blocking(fd)
        os.set_blocking(fd, True)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.set_blocking(fd, blocking)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None


#: named pipes opened for writing by `check_targets` (before the work, to know a process
#: reads them), written and closed by `write_files`: closing one in between would end its
#: reader's input before the output came
_HELD: dict[str, int] = {}


def release() -> None:
    """Close the named pipes `check_targets` opened and no write used (the command failed in
    between): their readers see the end of their input, as when the process ends."""
    while _HELD:
        os.close(_HELD.popitem()[1])


def _open_special(target: str) -> int:
    """Open a FIFO or character device for writing without waiting: a FIFO that nobody reads
    is an error at once (opening it without O_NONBLOCK would wait forever)."""
    try:
        return os.open(target, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OutputError(f"cannot write {target}: it is a named pipe and no process is reading it") from None
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None


def _write_special(target: str, data: bytes) -> None:
    """Write to a FIFO, a character device or an open descriptor in place."""
    fd = descriptor(target)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):  # what was printed before stays before
            if stream is not None and _fileno(stream) == fd:
                stream.flush()
        _write_to(fd, target, data)
        return
    fd = _HELD.pop(target, None)
    if fd is None:
        fd = _open_special(target)
    try:
        _write_to(fd, target, data)
    finally:
        os.close(fd)


def _fileno(stream) -> int | None:
    try:
        return stream.fileno()
    except (OSError, ValueError, AttributeError):  # (a stream of no descriptor: a test's)
        return None


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


@contextmanager
def folder_for_the_work(folder: PathLike) -> Iterator[None]:
    """Make `folder` (and its missing parents) before the work, for a command whose work
    reads through it (`rally`: its stages name their library from there), and take the ones
    made back, when empty, if anything in the block fails: the writing too (`write_files`,
    whose report to standard output may fail), so a failing command leaves no folder behind."""
    made = _make_folder(os.fspath(folder))
    try:
        yield
    except BaseException:
        _remove_folders(made)
        raise


def check_targets(targets: Iterable[PathLike], *, inputs: Iterable[PathLike] = (), force: bool = False) -> None:
    """Refuse, before any work, the targets `write_files` would refuse (a folder, a missing
    folder, an input, a socket, a write-protected file, two targets that are one file): a
    command says so at once, not after its analysis."""
    sources = [os.fspath(p) for p in inputs]
    named = [os.fspath(t) for t in targets]
    in_place = [target for target in named if _check_target(target, sources, force)]
    if len(named) > 1:
        _refuse_one_file_twice(named)
    for target in in_place:
        if descriptor(target) is None and target not in _HELD:
            try:
                is_pipe = stat.S_ISFIFO(os.stat(target).st_mode)
            except OSError:
                is_pipe = False
            if is_pipe:  # a reader is there now, or it is refused before the work
                _HELD[target] = _open_special(target)


def write_files(
    files: Sequence[tuple[PathLike, bytes]],
    *,
    folder: PathLike | None = None,
    inputs: Iterable[PathLike] = (),
    force: bool = False,
    announce: Callable[[], None] | None = None,
) -> None:
    """Write every file of `files` ((path, bytes) pairs), or none of them (see the module).

    `folder`: an output folder the call may make (with its parents) when it is missing; it is
    removed again when the write fails. `inputs`: files the command read, never overwritten.
    `force`: write-protected files are replaced too. `announce`: what the command prints
    (flushed), called once every file is ready and before any is put in place; when it
    raises, nothing is written.
    """
    targets = [os.fspath(path) for path, _data in files]
    sources = [os.fspath(p) for p in inputs]
    made = _make_folder(os.fspath(folder)) if folder is not None else []
    temps: list[str] = []
    try:
        special = {target for target in targets if _check_target(target, sources, force)}
        _refuse_one_file_twice(targets)
        # a symbolic link is followed: the file it names is replaced, the link (say /dev/stdout
        # onto a file) stays what it was
        regular = [(target, data) for target, (_path, data) in zip(targets, files) if target not in special]
        for target, data in regular:
            try:
                import tempfile  # here, not at the top: a command that writes nothing starts without it

                fd, temp = tempfile.mkstemp(
                    prefix=".sheetgen-", suffix=".tmp", dir=os.path.dirname(os.path.realpath(target))
                )
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
        if announce is not None:
            announce()
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


def write_atomic(path: PathLike, data: bytes, *, inputs: Iterable[PathLike] = (), force: bool = False) -> None:
    """Write one file atomically (see `write_files`)."""
    write_files([(path, data)], inputs=inputs, force=force)
