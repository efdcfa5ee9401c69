"""What `sheetgen build` made of a spec, kept for the next build: a spec whose files and
sheetgen itself are unchanged is not checked and drawn again, its PDF is taken as it was.

A build reads the spec file, the files it names (a tile library, a section library, the
races of a championship: `Spec.sources`, the files `yamlsrc.load_beside` read), the template
file given with `--template`, and sheetgen: its code, fonts and data, the built-in templates,
and the libraries that solve and draw (reportlab, numpy, networkx, PyYAML) at their versions.
A *slot* is named by the SHA-256 of the spec's path (and the folder it is named from), the
build's options (paper, ink, template) and the digest of sheetgen and its libraries. It holds
a manifest (every file the build read, with the SHA-256 of its bytes, and what `build` needs
of the result: the title, the shared pages it holds and whether it is their home) and a PDF
for each set of shared pages another file of a job printed instead (their SHA-256 and page
counts in the manifest too). A slot is taken only when every file it names has those bytes
now and the PDF is the one written; anything else (a file changed, gone or unreadable, a
damaged entry) is a miss, and the spec is built as if there were no cache. The next build of
that spec with those options writes over the slot, so the folder holds one manifest per spec
and options however often it is edited.

Only a spec that built is kept (valid under the strict check, rendered): a refusal is never
taken from the cache. Games registered by a plug-in are not part of the digest, so a process
that registered one keeps nothing. The folder is `builds/` in the figures cache's
(:func:`sheetgen.cache.folder`); `SHEETGEN_CACHE=off` turns both off, `SHEETGEN_BUILD_CACHE=off`
this one alone (the test suite's setting: its builds are there to be built), and
`SHEETGEN_BUILD_CACHE=FOLDER` keeps the builds there. As there, the cache is
only ever a shortcut: an entry that cannot be written is not kept, and no build fails
because of it. Entries are written atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the environment variable that turns this cache off alone (`off`), the figures cache kept,
#: or names another folder for it
SWITCH = "SHEETGEN_BUILD_CACHE"
#: the distributions whose versions an entry depends on (they solve, parse or draw)
LIBRARIES = ("reportlab", "numpy", "networkx", "PyYAML")
#: file name endings of what is built or compiled, not written: never part of the digest
_BUILT = (".pyc", ".pyo", ".so", ".pyd", ".o", ".dll")


def _tree_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found.extend(Path(folder, name) for name in sorted(files) if not name.endswith(_BUILT))
    return found


def _library_versions() -> list[str]:
    from importlib import metadata

    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name}={metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name}=none")
    return versions


_SHEETGEN: list[str] = []


def tree_digest(roots: list[tuple[str, Path]]) -> str:
    """The SHA-256 of the files under each (label, folder), by their paths inside it and
    their bytes (bytecode and compiled modules left out: they are made from the sources)."""
    h = hashlib.sha256()
    for label, root in roots:
        for path in _tree_files(root):
            h.update(f"{label}/{path.relative_to(root).as_posix()}".encode())
            h.update(b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def sheetgen_digest() -> str:
    """The SHA-256 of everything of sheetgen's a build reads: every file of the package (code,
    fonts, data), the built-in templates, Python's version and the versions of
    :data:`LIBRARIES`. Once a process."""
    if not _SHEETGEN:
        import sheetgen
        from sheetgen.template import templates_folder

        package = Path(sheetgen.__file__).resolve().parent
        roots = [("sheetgen", package)]
        templates = templates_folder()
        if templates is not None and package not in Path(templates).resolve().parents:
            roots.append(("templates", Path(templates).resolve()))
        h = hashlib.sha256(tree_digest(roots).encode())
        for part in (sys.version, *_library_versions()):
            h.update(b"\0")
            h.update(part.encode())
        _SHEETGEN.append(h.hexdigest())
    return _SHEETGEN[0]


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


@dataclass(frozen=True)
class Kept:
    """What a slot gives back: the build's result for its spec."""

    path: str  # the spec's path as the build named it
    title: str
    printable: bool
    sources: tuple[str, ...]
    data: bytes | None
    pages: int
    shared: tuple[str, ...]
    home: bool


class Builds:
    """The slots of one build command: `find` one for a spec file, `keep` what was built."""

    def __init__(self, folder: str, options: dict[str, Any]) -> None:
        self.folder = folder
        self.options = options

    @classmethod
    def open(cls, options: dict[str, Any]) -> Builds | None:
        """The build cache for a build with these options (JSON values), or None when the
        cache is off, or a plug-in game is registered (its code is not in the digest)."""
        from sheetgen import registry
        from sheetgen.cache import folder

        where = folder()
        chosen = os.environ.get(SWITCH, "").strip()
        if where is None or chosen.lower() in ("off", "0", "no") or registry.registered():
            return None
        return cls(chosen or os.path.join(where, "builds"), options)

    def _slot(self, spec_path: str) -> str:
        subject = {  # the spec as named from here: the paths an entry keeps are relative to it
            "spec": spec_path,
            "cwd": os.getcwd(),
            "options": self.options,
            "sheetgen": sheetgen_digest(),
        }
        return os.path.join(
            self.folder, hashlib.sha256(json.dumps(subject, sort_keys=True).encode()).hexdigest()
        )

    def _manifest(self, spec_path: str) -> dict | None:
        """The slot's manifest when every file it names has the bytes it had; else None."""
        try:
            with open(self._slot(spec_path) + ".json", encoding="utf-8") as handle:
                entry = json.load(handle)
            for path, digest in entry["reads"]:
                if _file_digest(path) != digest:
                    return None
            return entry if isinstance(entry["variants"], dict) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def facts(self, spec_path: str) -> tuple[tuple[str, ...], bool] | None:
        """The shared pages a kept build of `spec_path` holds and whether its file is their
        home (what a job needs of every file before it chooses where they print), if every
        file it read is as it was; else None."""
        entry = self._manifest(spec_path)
        try:
            return (tuple(str(k) for k in entry["shared"]), bool(entry["home"])) if entry else None
        except (KeyError, TypeError):
            return None

    def find(self, spec_path: str, elsewhere: frozenset[str] = frozenset()) -> Kept | None:
        """The kept build of `spec_path` with these options and without the shared pages
        `elsewhere`, if every file it read is as it was; else None."""
        entry = self._manifest(spec_path)
        if entry is None:
            return None
        try:
            digest, pages = entry["variants"][_variant(elsewhere)]
            data = None
            if digest is not None:
                with open(f"{self._slot(spec_path)}-{_variant(elsewhere)}.pdf", "rb") as handle:
                    data = handle.read()
                if hashlib.sha256(data).hexdigest() != digest:
                    return None
            return Kept(
                str(entry["path"]),
                str(entry["title"]),
                bool(entry["printable"]),
                tuple(str(s) for s in entry["sources"]),
                data,
                int(pages),
                tuple(str(s) for s in entry["shared"]),
                bool(entry["home"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def keep(
        self, spec_path: str, kept: Kept, reads: list[str], elsewhere: frozenset[str] = frozenset()
    ) -> None:
        """Keep what was built of `spec_path` without the shared pages `elsewhere` (`reads`:
        every file the build read). A slot holds one manifest and a PDF for each set of
        shared pages left out; a manifest whose files have changed starts again."""
        digests = []
        for path in dict.fromkeys(os.path.abspath(p) for p in reads):
            digest = _file_digest(path)
            if digest is None:  # a file gone since the build: nothing to check a slot by
                return
            digests.append([path, digest])
        variants: dict[str, list] = {}
        entry: dict[str, Any] = {
            "path": kept.path,
            "title": kept.title,
            "printable": kept.printable,
            "sources": list(kept.sources),
            "shared": list(kept.shared),
            "home": kept.home,
            "reads": digests,
            "variants": variants,
        }
        before = self._manifest(spec_path)
        if before is not None and {k: v for k, v in before.items() if k != "variants"} == {
            k: v for k, v in entry.items() if k != "variants"
        }:
            variants.update(before["variants"])
        variant = _variant(elsewhere)
        variants[variant] = [None if kept.data is None else hashlib.sha256(kept.data).hexdigest(), kept.pages]
        try:
            os.makedirs(self.folder, exist_ok=True)
            base = self._slot(spec_path)
            if kept.data is not None:
                _write(f"{base}-{variant}.pdf", kept.data)
            _write(base + ".json", json.dumps(entry).encode("utf-8"))
        except OSError:
            pass  # a cache that cannot be written is no cache, never an error


def _variant(elsewhere: frozenset[str]) -> str:
    """The name of the PDF of a slot without the shared pages `elsewhere`."""
    return hashlib.sha256(json.dumps(sorted(elsewhere)).encode()).hexdigest()[:16]


def _write(path: str, data: bytes) -> None:
    import tempfile

    fd, temp = tempfile.mkstemp(prefix=".build-", dir=os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
