"""The fuzz harness's past findings, kept as cases that run again (tests/fuzz/corpus/*.yaml).

Each entry is one reproducible case: its files, the command, how it runs (in process, or as
a real process with standard output closed, full or appended to), what was wrong and what is
right, and the exact answer it must give now. `tests/fuzz/test_findings.py` replays every
entry in the default suite: the harness's rules first (`harness.run_case`: nothing written
after a failure, no input replaced, one located line per problem, ...), then the entry's own
expectations. An entry looks like this::

    finding: what sheetgen did wrong (found by: the issue, or a harness case's reproducer)
    right: what it does now
    bundled: true            # the bundled specs are in the folder too (track_specs/...)
    files:                   # more files, or bundled ones replaced: text, or {copy: PATH}
      self.yaml: |
        game: rallyman
        ...
    protected: [kept.pdf]    # made write-protected (mode 444) first
    log: "the log so far\\n"  # standard output appended to log.txt (with stdout: append)
    run: [validate, self.yaml]
    process: {stdout: closed}   # pipe, closed, full, append; signal: [SIGTERM, 1.5]
    targets: [out.pdf]       # what the command may write
    exit: 1
    stderr: "self.yaml:6:24: error: ...\\n"    # the whole of standard error
    stdout_starts: "..."     # optional: how standard output starts
    written: {out.pdf: {starts: "%PDF-1.4", mode: "0444"}, log.txt: {starts: "...", contains: "..."}}
    absent: [out]            # files that must not exist afterwards
    pages: {out.pdf: 2}      # pages of a PDF written

`python benchmarks/fuzz.py --seed S --case N --save NAME` writes a new entry from a harness
case (its files that differ from the bundled ones, its command, its answer); its `finding`
and `right` are left for the one who fixes it to say.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fuzz import harness

CORPUS = Path(__file__).resolve().parent / "corpus"
#: keys an entry may have
KEYS = {"finding", "right", "found", "bundled", "files", "protected", "log", "run", "process", "targets", "env", "exit",
        "stderr", "stdout_starts", "written", "absent", "pages"}
#: what the replay does not assert: time is the harness's to measure (a finding of a batch),
#: never an assertion of the test suite
UNTIMED = {"slow", "hangs"}


@dataclass
class Replayed:
    entry: str
    outcome: harness.Outcome
    folder: Path
    failures: list = field(default_factory=list)


def entries(folder: Path = CORPUS) -> list[Path]:
    return sorted(folder.glob("*.yaml"))


def load(path: Path) -> dict:
    import yaml

    entry = yaml.safe_load(path.read_text(encoding="utf-8"))
    unknown = set(entry) - KEYS
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    for needed in ("finding", "right", "run", "exit"):
        if needed not in entry:
            raise ValueError(f"{path.name}: no {needed!r}")
    return entry


def case_of(entry: dict, name: str) -> harness.Case:
    """The harness case an entry runs."""
    files: dict[str, bytes] = dict(harness.load_corpus_cached().files) if entry.get("bundled") else {}
    for rel, given in (entry.get("files") or {}).items():
        if isinstance(given, dict):
            files[rel] = (harness.ROOT / given["copy"]).read_bytes()
        else:
            files[rel] = given.encode("utf-8")
    process = entry.get("process")
    case = harness.Case(0, 0, description=name, files=files, args=[str(a) for a in entry["run"]], command=str(entry["run"][0]))
    case.valid = True  # (its command runs as given: no cheaper one instead)
    case.family = "corpus"
    case.targets = list(entry.get("targets") or [])
    case.extra_inputs = [rel for rel in files if rel not in case.targets]
    case.protected = list(entry.get("protected") or [])
    case.env = dict(entry.get("env") or {})
    if "log" in entry:
        case.logs = {"log.txt": entry["log"].encode("utf-8")}
    if process is not None:
        case.mode = "process"
        case.stdout = process.get("stdout", "pipe")
        if process.get("signal"):
            case.signal = (process["signal"][0], float(process["signal"][1]))
    return case


def replay(path: Path) -> Replayed:
    """Run an entry; its failures: the harness's findings, then the entry's expectations."""
    entry = load(path)
    case = case_of(entry, path.stem)
    keep = Path(tempfile.mkdtemp(prefix="sheetgen-finding-"))
    outcome = harness.run_case(case, keep=keep)
    folder = next(keep.iterdir())
    done = Replayed(path.stem, outcome, folder)
    fail = done.failures.append
    for category, detail in outcome.findings:
        if category not in UNTIMED:
            fail(f"{category}: {detail}")
    if outcome.exit_code != entry["exit"]:
        fail(f"exit {outcome.exit_code}, not {entry['exit']} (standard error {outcome.stderr[-300:]!r})")
    if "stderr" in entry and outcome.stderr != entry["stderr"]:
        fail(f"standard error {outcome.stderr!r}, not {entry['stderr']!r}")
    if "stdout_starts" in entry and not outcome.stdout.startswith(entry["stdout_starts"]):
        fail(f"standard output starts {outcome.stdout[:80]!r}, not {entry['stdout_starts']!r}")
    for rel, want in (entry.get("written") or {}).items():
        path_written = folder / rel
        if not path_written.is_file():
            fail(f"{rel} was not written")
            continue
        data = path_written.read_bytes()
        if "starts" in want and not data.startswith(want["starts"].encode("utf-8")):
            fail(f"{rel} starts {data[:60]!r}, not {want['starts']!r}")
        if "ends" in want and not data.endswith(want["ends"].encode("utf-8")):
            fail(f"{rel} ends {data[-60:]!r}, not {want['ends']!r}")
        if "contains" in want and want["contains"].encode("utf-8") not in data:
            fail(f"{rel} does not hold {want['contains']!r}")
        if "mode" in want and f"{path_written.stat().st_mode & 0o777:04o}" != want["mode"]:
            fail(f"{rel} has mode {path_written.stat().st_mode & 0o777:04o}, not {want['mode']}")
    for rel in entry.get("absent") or []:
        if (folder / rel).exists():
            fail(f"{rel} exists")
    for rel, count in (entry.get("pages") or {}).items():
        found = pdf_pages((folder / rel).read_bytes()) if (folder / rel).is_file() else None
        if found != count:
            fail(f"{rel} has {found} pages, not {count}")
    return done


def pdf_pages(data: bytes) -> int:
    """The pages of a PDF sheetgen wrote (its page objects)."""
    return len(re.findall(rb"/Type\s*/Page[^s]", data))


def discard(done: Replayed) -> None:
    shutil.rmtree(done.folder.parent, ignore_errors=True)


def entry_of(case: harness.Case, outcome: harness.Outcome) -> dict[str, Any]:
    """A new entry from a harness case and what it answered (`--save`): the files that differ
    from the bundled ones, the command, its exit status and standard error."""
    bundled = harness.load_corpus_cached().files
    files = {rel: raw.decode("utf-8", "replace") for rel, raw in case.files.items() if bundled.get(rel) != raw}
    entry: dict[str, Any] = {
        "finding": f"TODO: what was wrong (found by {case.reproducer().split('  #')[0]})",
        "right": "TODO: what is right",
        "bundled": True,
        "files": files,
        "run": list(case.args),
        "targets": list(case.targets),
        "exit": outcome.exit_code,
        "stderr": outcome.stderr,
    }
    if case.protected:
        entry["protected"] = list(case.protected)
    if case.logs:
        entry["log"] = next(iter(case.logs.values())).decode("utf-8")
    if case.env:
        entry["env"] = dict(case.env)
    if case.mode == "process":
        entry["process"] = {"stdout": case.stdout, **({"signal": list(case.signal)} if case.signal else {})}
    return entry


def save(entry: dict[str, Any], path: Path) -> None:
    """Write an entry (multi-line texts as YAML blocks, as the kept entries are written)."""
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper, value: str):
        style = "|" if "\n" in value and value.isprintable() is False and "\t" not in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    path.write_text(yaml.dump(entry, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8")
