"""A preview's worker process: what `render` and `analyze` make of one spec, as plain data.

The server starts it as `python -m sheetgen.preview.worker` in a session of its own (Ctrl-C
in the terminal reaches the server, which ends its workers) and sends it jobs, pickled, on
standard input; the worker answers each with a few messages, pickled, on standard output, as
the work goes (so the page shows a spec's problems at once, its pages when they are drawn,
its figures last). A newer save of a spec whose job is running ends the process (SIGTERM),
and the figures cache's own writes are atomic, so a job cut short leaves nothing behind.

Every message is a dict of plain values (str, int, float, bytes, lists, dicts): the server
needs no class of this module to read it. Its "stage":

- "refused": the spec does not load; `problems` (errors) and `sources` (the files read)
- "loaded": `title`, `game`, `summary` and `sources` (every file the spec read)
- "pages": `pages` (PNG bytes, size, kind), `problems` (validate --strict's, drawn anyway
  as a draft, as `render --draft` does), `note` (why there are none)
- "figures": `data` and `text` of `analyze` with the game's default options, or `note`
- "failed": `message`, a bug in sheetgen said in one line (the server goes on)
- "done"
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from collections.abc import Iterator
from typing import Any

from sheetgen.errors import Omitted, Problem, SheetgenError, SpecError

#: how much of a file a problem's quoted line is looked for in (the loader's own limit)
_MAX_QUOTED_FILE = 1024 * 1024 + 1


def quoted_line(path: str, line: int) -> str | None:
    """Line `line` (1-based) of the file `path`, as text; None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(_MAX_QUOTED_FILE)
    except (OSError, ValueError):
        return None
    lines = raw.decode("utf-8", errors="replace").splitlines()
    return lines[line - 1] if 1 <= line <= len(lines) else None


def problem_data(problem: Problem, severity: str, after: str = "") -> dict[str, Any]:
    """A problem as the page shows it: its one `FILE:LINE:COL: severity: MESSAGE` line (as
    the command line prints it) and the line of the file it points at."""
    where = problem.location
    summary = isinstance(problem, Omitted)  # "and N more problems": no line of its own
    return {
        "line": f"{where}: {severity}: {problem.message}{after}",
        "file": where.file,
        "row": where.line,
        "col": where.col,
        "message": problem.message,
        "severity": severity,
        "quote": None if summary else quoted_line(where.file, where.line),
    }


def _sources(files) -> list[str]:
    return list(dict.fromkeys(files))


def run(job: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The messages of one job: `path`, `paper`, `ink`, `template`, `dpi` (see the module)."""
    from sheetgen import registry
    from sheetgen.yamlsrc import load_file

    path = job["path"]
    template = job.get("template")
    extra = [template] if job.get("template_file") else []
    document = None
    try:
        document = load_file(path, lenient=True)
        spec = registry.spec_of(document)
    except SpecError as exc:
        read = [path, *(document.reads if document is not None else ())]
        named = [p.location.file for p in exc.problems if not isinstance(p, Omitted)]
        yield {
            "stage": "refused",
            "problems": [problem_data(p, "error") for p in exc.problems],
            "sources": _sources([*read, *named, *extra]),
        }
        return
    yield {
        "stage": "loaded",
        "title": spec.game.title,
        "game": spec.game.name,
        "summary": spec.game.summary(spec.model),
        "sources": _sources([*spec.sources, *extra]),
    }
    yield _pages(spec, job)
    yield _figures(spec)


def _pages(spec, job: dict[str, Any]) -> dict[str, Any]:
    """The spec's pages as `render --draft` prints them: validate --strict's problems are
    said as warnings and the pages drawn all the same."""
    from sheetgen import registry
    from sheetgen.render import build_outputs, can_render
    from sheetgen.render.raster import pictures

    figures = registry.Figures(spec)  # solved once, for the check and the printout
    try:
        problems = spec.game.strict(spec, figures) if spec.game.strict else []
    except SpecError as exc:
        return _refused_pages(exc)
    drafted = [problem_data(p, "warning", " (drawn all the same, as a draft)") for p in problems]
    if not can_render(spec):
        kind = spec.kind_name
        note = f"sheetgen prints nothing for {spec.game.title} {kind if kind.endswith('s') else kind + 's'}"
        return {"stage": "pages", "pages": [], "problems": drafted, "note": note}
    try:
        pdf, _count = build_outputs(
            spec, paper=job.get("paper"), ink=job.get("ink", "normal"), template=job.get("template"), figures=figures
        )
    except SpecError as exc:  # a template file with a mistake: its problems, located
        return _refused_pages(exc)
    printable = spec.game.printable_for(spec.kind_name)
    made = pictures(pdf, job["dpi"], default_kind=printable.name if printable is not None else "page")
    pages = [{"png": p.png, "width": p.width, "height": p.height, "kind": p.kind} for p in made]
    return {"stage": "pages", "pages": pages, "problems": drafted, "note": None}


def _refused_pages(exc: SpecError) -> dict[str, Any]:
    return {"stage": "pages", "pages": [], "problems": [problem_data(p, "error") for p in exc.problems], "note": None}


def _figures(spec) -> dict[str, Any]:
    """What `analyze` gives for the spec, with its game's default options."""
    game = spec.game
    if game.analyze is None:
        return {"stage": "figures", "data": None, "text": "", "note": f"sheetgen cannot analyze {game.title} specs yet"}
    try:
        report = game.analyze(spec, game.option_values("analyze", {}))
    except SpecError as exc:  # a kind of file analyze does not take: said as analyze says it
        return {"stage": "figures", "data": None, "text": "", "note": "; ".join(p.message for p in exc.problems)}
    return {"stage": "figures", "data": report.data, "text": report.text, "note": None}


def serve(source, sink) -> None:
    """Answer the jobs read from `source` on `sink` until `source` ends."""
    from sheetgen import registry

    while True:
        try:
            job = pickle.load(source)
        except EOFError:
            return
        for game in job.get("games", ()):
            registry.register(game)
        messages = run(job)
        while True:
            try:
                message = next(messages)
            except StopIteration:
                break
            except SheetgenError as exc:
                message = {"stage": "failed", "message": str(exc)}
            except Exception as exc:  # a bug in sheetgen: one line on the page, the worker goes on
                message = {"stage": "failed", "message": f"internal error: {type(exc).__name__}: {exc}"}
            message["job"] = job["job"]
            pickle.dump(message, sink, protocol=pickle.HIGHEST_PROTOCOL)
            sink.flush()
            if message["stage"] == "failed":
                break
        pickle.dump({"stage": "done", "job": job["job"]}, sink, protocol=pickle.HIGHEST_PROTOCOL)
        sink.flush()


def main() -> None:
    # SIGTERM (a newer save, the server stopping) unwinds, so that a figures cache entry being
    # written is taken back; standard output carries the messages alone: a stray print goes
    # to standard error
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(0))
    sink = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        serve(sys.stdin.buffer, sink)
    except (BrokenPipeError, KeyboardInterrupt):  # the server went away
        pass


if __name__ == "__main__":
    main()
