"""The preview's server: one thread watches the files and runs the work, HTTP threads read.

The watcher (`Preview.run`, one thread) owns everything that changes: it looks at every
file a spec read (`Spec.sources`: the spec, its tile or section library, the races of a
season...) and the template file given, by their size, times and inode, every `POLL`
seconds (no file-watching library: a few `stat` calls); a change seen and settled for one
look starts a job for the spec in a worker process (`sheetgen.preview.worker`), at most
`jobs` at a time. A newer change of a spec whose job is still running ends that worker (a
newer save supersedes an older one) and the job starts again on the new files. The
worker's messages update the spec's state, and each update raises the state's version.

A folder given stands for the spec files under it, then and later: every `SCAN` seconds the
watcher lists the folders again; a spec file new there gets a section of its own (at the end
of the page, with an index of its own that is never reused) and its job, one deleted leaves
the page (its job ended), one put back returns. A spec named on the command line stays on the
page when it is deleted, saying it cannot be read.

The HTTP threads (the standard library's ThreadingHTTPServer) only read that state, under
the one lock: a request never starts or restarts work, so a flood of them leaves a solve
alone. They answer for the specs given and the files those read, and nothing else:

- `/`: the page; `/view`: the part of it that changes; `/state.json`: the state as data;
- `/events`: the update channel (Server-Sent Events: `event: version` with the version);
- `/spec/N/page/R/K.png`: page K of spec N as drawn for its version R;
- `/spec/N/source/NAME`: a file spec N read, NAME relative to the spec's folder. A NAME with
  `..` or an absolute one is refused (403), a file the spec did not read is not found (404),
  and so is a file reached through a symbolic link that leads out of the spec's folder
  (403).

Only GET and HEAD are answered; nothing is written. On a loopback address a request must
name the server by a loopback name in its Host header (another site's page cannot read it
through a name of its own that points here).
"""

from __future__ import annotations

import errno
import os
import pickle
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

from sheetgen.errors import SheetgenError
from sheetgen.preview import page

#: seconds between two looks at the files; a change is taken once it has stood for one look
POLL = 0.2
#: seconds between two looks for specs added to or removed from the folders given
SCAN = 0.6
#: seconds between two keep-alive lines on an idle update channel
KEEPALIVE = 15.0
#: update channels open at once (each holds a thread); more are answered 503
MAX_CHANNELS = 32
#: seconds a worker ended by SIGTERM is given before SIGKILL
GRACE = 2.0
#: a source file shown is at most the loader's own limit
MAX_SOURCE = 1024 * 1024


@dataclass(frozen=True)
class Settings:
    """What every job of a preview is drawn with: `render`'s options and the resolution."""

    paper: str | None = None
    ink: str = "normal"
    template: str | None = None
    template_file: bool = False  # the template is a file (watched), not a built-in name
    dpi: int = 100
    jobs: int = 2


def signature(path: str) -> tuple | None:
    """What tells that a file changed: size, modification and change times, inode."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


class Worker:
    """A worker process and the thread that reads its messages into the watcher's queue."""

    def __init__(self, inbox: queue.Queue):
        import sheetgen

        root = os.path.dirname(os.path.dirname(os.path.abspath(sheetgen.__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
        self.process = subprocess.Popen(
            [sys.executable, "-m", "sheetgen.preview.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,  # Ctrl-C in the terminal reaches the server alone
        )
        self.entry: Entry | None = None
        self.job = 0
        self.reader = threading.Thread(target=self._read, args=(inbox,), daemon=True, name="preview-reader")
        self.reader.start()

    def _read(self, inbox: queue.Queue) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            try:
                message = pickle.load(stream)
            except Exception:  # EOF, or the process ended mid-message
                inbox.put((self, None))
                return
            inbox.put((self, message))

    def send(self, job: dict[str, Any]) -> None:
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)  # whole, before a byte is sent
        stream = self.process.stdin
        assert stream is not None
        stream.write(data)
        stream.flush()

    def end(self) -> None:
        """Ask the process to end (SIGTERM); `Preview` kills it if it does not, in time."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
        if self.process.poll() is None:
            try:
                self.process.terminate()
            except OSError:
                pass


class Entry:
    """One spec given: the files watched, the job's progress and the state the page shows."""

    def __init__(self, index: int, path: str, extra: Sequence[str], found: bool = False):
        self.index = index
        self.path = path
        self.real = os.path.realpath(path)
        self.extra = tuple(extra)
        self.found = found  # found in a folder given (not named): gone from the page once deleted
        self.removed = False  # deleted from its folder: not shown, its index never reused
        self.watched: dict[str, tuple | None] = {name: signature(name) for name in (path, *extra)}
        self.revision = 1  # the files' version: raised at every change seen
        self.started = 0  # the revision of the last job started
        self.changed_at = 0.0  # when the last change was seen (monotonic)
        self.job_began = 0.0  # when the running job started (wall clock, for the files' times)
        self.worker: Worker | None = None
        self.pictures: list[bytes] = []
        self.pictures_revision = 0
        self.state: dict[str, Any] = {
            "index": index,
            "path": path,
            "status": "waiting",
            "doing": "",
            "revision": 1,
            "updated": "",
            "title": "",
            "game": "",
            "summary": "",
            "problems": [],
            "pages": [],
            "draft": False,
            "stale": False,
            "note": None,
            "figures": None,
            "failure": None,
            "sources": [path],
            "servable": [],
        }


class Preview:
    """The specs of one `sheetgen preview`, their state, and the watcher thread."""

    def __init__(
        self, paths: Sequence[str], settings: Settings, games: tuple = (), given: Sequence[str] = ()
    ):
        """`paths`: the spec files; `given`: what the command was given (files and folders),
        looked through again every `SCAN` seconds for specs added to a folder or deleted."""
        self.extra = [settings.template] if settings.template_file and settings.template else []
        named = {os.path.realpath(g) for g in given if not os.path.isdir(g)}
        self.entries = [
            Entry(i, path, self.extra, found=bool(given) and os.path.realpath(path) not in named)
            for i, path in enumerate(paths)
        ]
        self.given = tuple(given)
        self.folders = any(os.path.isdir(g) for g in given)
        self.settings = settings
        self.games = games
        self.lock = threading.Condition()
        self.version = 1
        self.closing = False
        self.inbox: queue.Queue = queue.Queue()
        self.workers: list[Worker] = []
        self.ending: list[tuple[Worker, float]] = []
        self.jobs = 0
        self.thread = threading.Thread(target=self._run, daemon=True, name="preview-watcher")
        self.failed: BaseException | None = None

    # -- what the HTTP threads read ------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            shown = [dict(e.state) for e in self.entries if not e.removed]
            return {"version": self.version, "jobs": self.jobs, "specs": shown}

    def picture(self, index: int, revision: int, number: int) -> bytes | None:
        with self.lock:
            if not 0 <= index < len(self.entries):
                return None
            entry = self.entries[index]
            if entry.removed or entry.pictures_revision != revision or not 1 <= number <= len(entry.pictures):
                return None
            return entry.pictures[number - 1]

    def wait(self, seen: int, timeout: float) -> tuple[int, bool]:
        """Wait until the version is not `seen` (or `timeout`): the version and whether closing."""
        with self.lock:
            self.lock.wait_for(lambda: self.version != seen or self.closing, timeout=timeout)
            return self.version, self.closing

    # -- the watcher ---------------------------------------------------------------------
    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        """End the watcher and every worker (killed if SIGTERM is not enough in `GRACE`)."""
        with self.lock:
            self.closing = True
            self.lock.notify_all()
        self.inbox.put((None, None))
        if self.thread.is_alive():
            self.thread.join(timeout=10)
        workers = [*self.workers, *(w for w, _deadline in self.ending)]
        self.workers, self.ending = [], []
        for worker in workers:
            worker.end()
        deadline = time.monotonic() + GRACE
        for worker in workers:
            try:
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.process.kill()
                worker.process.wait()
            for stream in (worker.process.stdout, worker.process.stdin):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass

    def _run(self) -> None:
        try:
            next_look = 0.0
            next_scan = time.monotonic() + SCAN
            while not self.closing:
                try:
                    worker, message = self.inbox.get(timeout=max(0.0, next_look - time.monotonic()))
                except queue.Empty:
                    pass
                else:
                    if worker is not None:
                        self._message(worker, message)
                        self._start_jobs(time.monotonic())
                now = time.monotonic()
                if self.folders and now >= next_scan and not self.closing:
                    self._scan(now)
                    next_scan = now + SCAN
                if now >= next_look and not self.closing:
                    self._look(now)
                    self._start_jobs(now)
                    self._reap(now)
                    next_look = now + POLL
        except BaseException as exc:  # said by the command, which stops
            self.failed = exc
            with self.lock:
                self.closing = True
                self.lock.notify_all()

    def _changed(self) -> None:
        """The state changed (the lock held): a new version, the update channels told."""
        self.version += 1
        self.lock.notify_all()

    def _scan(self, now: float) -> None:
        """Look through the folders given again: a spec file new there gets a section of its
        own (at the end of the page), one deleted from a folder leaves the page (a spec named
        on the command line stays, saying that it cannot be read), one put back returns."""
        from sheetgen.cliutil import spec_files

        try:
            paths = spec_files(self.given)
        except OSError:  # a folder moved or deleted while it is read: the next scan sees it
            return
        there = {os.path.realpath(path): path for path in paths}
        shown = {e.real: e for e in self.entries if not e.removed}
        for entry in shown.values():
            if entry.found and entry.real not in there:
                with self.lock:
                    if entry.worker is not None:
                        self._retire(entry.worker, now)
                        entry.worker = None
                    entry.removed = True
                    self._changed()
        for real, path in there.items():
            if real in shown:
                continue
            back = next((e for e in self.entries if e.removed and e.real == real), None)
            if back is not None:
                back.watched = {name: signature(name) for name in back.watched}
                with self.lock:
                    back.removed = False
                self._saved(back, now)
                continue
            with self.lock:
                self.entries.append(Entry(len(self.entries), path, self.extra, found=True))
                self._changed()

    def _look(self, now: float) -> None:
        for entry in self.entries:
            if entry.removed:
                continue
            moved = False
            for name, seen in entry.watched.items():
                current = signature(name)
                if current != seen:
                    entry.watched[name] = current
                    moved = True
            if moved:
                self._saved(entry, now)

    def _saved(self, entry: Entry, now: float) -> None:
        """A file of `entry` changed: a new revision; a job running on an older one is ended."""
        with self.lock:
            entry.revision += 1
            entry.changed_at = now
            if entry.worker is not None:  # superseded: its worker is ended, a new job follows
                self._retire(entry.worker, now)
                entry.worker = None
            entry.state.update(status="working", doing="a newer save: starting again", revision=entry.revision)
            entry.state["stale"] = bool(entry.state["pages"])
            self._changed()

    def _retire(self, worker: Worker, now: float) -> None:
        if worker in self.workers:
            self.workers.remove(worker)
        worker.entry = None
        worker.end()
        self.ending.append((worker, now + GRACE))

    def _reap(self, now: float) -> None:
        still = []
        for worker, deadline in self.ending:
            if worker.process.poll() is None:
                if now >= deadline:
                    worker.process.kill()
                still.append((worker, deadline))
            else:
                for stream in (worker.process.stdout, worker.process.stdin):
                    if stream is not None:
                        try:
                            stream.close()
                        except OSError:
                            pass
        self.ending = still

    def _start_jobs(self, now: float) -> None:
        waiting = sorted(
            (
                e
                for e in self.entries
                if e.revision > e.started and e.worker is None and not e.removed and now - e.changed_at >= POLL
            ),
            key=lambda e: e.changed_at,
        )
        for entry in waiting:
            worker = next((w for w in self.workers if w.entry is None), None)
            if worker is None:
                if len(self.workers) >= self.settings.jobs:
                    return
                worker = Worker(self.inbox)
                self.workers.append(worker)
            self.jobs += 1
            job = {
                "job": self.jobs,
                "path": entry.path,
                "paper": self.settings.paper,
                "ink": self.settings.ink,
                "template": self.settings.template,
                "template_file": self.settings.template_file,
                "dpi": self.settings.dpi,
                "games": self.games,
            }
            try:
                worker.send(job)
            except OSError:  # the process is gone: another is started at the next look
                self._retire(worker, now)
                continue
            except (pickle.PicklingError, TypeError, AttributeError) as exc:  # a plug-in game that cannot travel
                with self.lock:
                    entry.started = entry.revision
                    entry.state.update(status="failed", failure=f"cannot hand the spec to a worker process: {exc}")
                    self._changed()
                continue
            worker.entry, worker.job = entry, self.jobs
            with self.lock:
                entry.started = entry.revision
                entry.worker = worker
                entry.job_began = time.time()
                entry.state.update(status="working", doing="loading", revision=entry.revision, failure=None)
                entry.state["stale"] = bool(entry.state["pages"])
                self._changed()

    def _watch(self, entry: Entry, sources: Sequence[str]) -> None:
        """Watch the files the job read: the spec, `sources`, the template file. A file new to
        the list changed after the job began (its time says so) is taken as changed."""
        wanted = list(dict.fromkeys([entry.path, *sources, *entry.extra]))
        watched: dict[str, tuple | None] = {}
        for name in wanted:
            if name in entry.watched:
                watched[name] = entry.watched[name]
                continue
            current = signature(name)
            # None for a file that is there: the next look sees it as changed
            watched[name] = None if current is not None and current[1] >= entry.job_began * 1e9 else current
        entry.watched = watched
        base = os.path.dirname(os.path.abspath(entry.path))
        entry.state["sources"] = wanted
        entry.state["servable"] = [
            name for name in (_relative(base, w) for w in wanted) if name is not None and _inside(base, name)
        ]

    def _message(self, worker: Worker, message: dict[str, Any] | None) -> None:
        entry = worker.entry
        if message is None:  # the process ended
            if worker in self.workers:
                self.workers.remove(worker)
                try:
                    code = worker.process.wait(timeout=GRACE)
                except subprocess.TimeoutExpired:  # its output closed, the process still there
                    worker.process.kill()
                    code = worker.process.wait()
                if entry is not None:
                    entry.worker = None
                    with self.lock:
                        entry.state.update(
                            status="failed",
                            failure=f"the worker process stopped (exit status {code}); save the file to try again",
                        )
                        self._changed()
            return
        if entry is None or message.get("job") != worker.job:
            return  # a job superseded
        stage = message["stage"]
        with self.lock:
            state = entry.state
            if stage == "refused":
                self._watch(entry, message["sources"])
                state.update(status="refused", problems=message["problems"], title="", summary="", game="")
                state["stale"] = bool(state["pages"])
                for problem in state["problems"]:
                    problem["link"] = _relative(os.path.dirname(os.path.abspath(entry.path)), problem["file"])
            elif stage == "loaded":
                self._watch(entry, message["sources"])
                state.update(
                    title=message["title"],
                    game=message["game"],
                    summary=message["summary"],
                    problems=[],
                    doing="solving and drawing the pages",
                )
            elif stage == "pages" and any(p["severity"] == "error" for p in message["problems"]):
                # nothing drawn (a template file with a mistake): the spec is refused as render
                # refuses it, the pages of the last version drawn stay, said to be old
                state.update(status="refused", problems=message["problems"], stale=bool(state["pages"]), doing="")
                for problem in state["problems"]:
                    problem["link"] = _relative(os.path.dirname(os.path.abspath(entry.path)), problem["file"])
            elif stage == "pages":
                entry.pictures = [p["png"] for p in message["pages"]]
                entry.pictures_revision = entry.started
                state["pages"] = [
                    {
                        "url": f"/spec/{entry.index}/page/{entry.started}/{n}.png",
                        "width": p["width"],
                        "height": p["height"],
                        "kind": p["kind"],
                    }
                    for n, p in enumerate(message["pages"], start=1)
                ]
                state.update(
                    problems=message["problems"],
                    draft=any(p["severity"] == "warning" for p in message["problems"]),
                    stale=False,
                    note=message["note"],
                    doing="analysing",
                )
                for problem in state["problems"]:
                    problem["link"] = _relative(os.path.dirname(os.path.abspath(entry.path)), problem["file"])
            elif stage == "figures":
                state["figures"] = {"data": message["data"], "text": message["text"], "note": message["note"]}
            elif stage == "failed":
                state.update(status="failed", failure=message["message"])
            elif stage == "done":
                worker.entry = None
                entry.worker = None
                if state["status"] == "working":
                    state["status"] = "ready"
                state["doing"] = ""
            state["updated"] = time.strftime("%H:%M:%S")
            self._changed()


def _relative(base: str, name: str) -> str | None:
    """`name` relative to the folder `base`, with '/' between parts; None outside it."""
    try:
        rel = os.path.relpath(os.path.abspath(name), base)
    except ValueError:  # another drive
        return None
    if rel == os.curdir or rel.split(os.sep)[0] == os.pardir:
        return None
    return rel.replace(os.sep, "/")


def _inside(base: str, rel: str) -> bool:
    """Whether the file `rel` names under `base` is there once symbolic links are followed."""
    real_base = os.path.realpath(base)
    real = os.path.realpath(os.path.join(base, *rel.split("/")))
    return real.startswith(real_base.rstrip(os.sep) + os.sep)


# -- HTTP ----------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    server_version = "sheetgen-preview"
    server: PreviewServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the page says what happens
        pass

    def do_HEAD(self) -> None:
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:
        self.head = head
        if not self.server.host_ok(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, b"this server answers to its own address only\n", "text/plain")
            return
        route = urlsplit(self.path).path
        parts = route.split("/")
        preview = self.server.preview
        if route == "/":
            self._html(page.document(preview.snapshot()))
        elif route == "/view":
            state = preview.snapshot()
            self._html(page.view(state), {"X-Preview-Version": str(state["version"])})
        elif route == "/state.json":
            self._send(HTTPStatus.OK, page.state_json(preview.snapshot()).encode(), "application/json")
        elif route == "/events":
            self._events()
        elif len(parts) == 6 and parts[1] == "spec" and parts[3] == "page" and parts[5].endswith(".png"):
            self._picture(parts[2], parts[4], parts[5][: -len(".png")])
        elif len(parts) >= 5 and parts[1] == "spec" and parts[3] == "source":
            self._source(parts[2], route.split("/", 4)[4])
        else:
            self._not_found()

    # -- answers ---------------------------------------------------------------------------
    def _send(self, status: HTTPStatus, body: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if not self.head:
            self.wfile.write(body)

    def _html(self, text: str, headers: dict[str, str] | None = None) -> None:
        self._send(HTTPStatus.OK, text.encode("utf-8"), "text/html; charset=utf-8", headers)

    def _not_found(self) -> None:
        self._send(HTTPStatus.NOT_FOUND, b"not found: this server shows the specs it was given\n", "text/plain")

    def _forbidden(self, why: str) -> None:
        self._send(HTTPStatus.FORBIDDEN, f"refused: {why}\n".encode(), "text/plain")

    def _entry(self, text: str) -> Entry | None:
        entries = self.server.preview.entries  # (only ever appended to: read without the lock)
        if not (text.isdigit() and len(text) < 6 and int(text) < len(entries)):
            return None
        entry = entries[int(text)]
        return None if entry.removed else entry

    def _picture(self, index: str, revision: str, number: str) -> None:
        entry = self._entry(index)
        data = None
        if entry is not None and revision.isdigit() and number.isdigit() and len(revision) < 10 and len(number) < 6:
            data = self.server.preview.picture(entry.index, int(revision), int(number))
        if data is None:
            self._not_found()
            return
        self._send(HTTPStatus.OK, data, "image/png")

    def _source(self, index: str, raw: str) -> None:
        entry = self._entry(index)
        if entry is None:
            self._not_found()
            return
        name = unquote(raw, errors="strict") if raw else ""
        parts = name.split("/")
        if name.startswith("/") or "\\" in name or "\x00" in name or ".." in parts or os.path.isabs(name):
            self._forbidden("a name with '..' or an absolute one leads out of the spec's folder")
            return
        with self.server.preview.lock:
            sources = list(entry.state["sources"])
        base = os.path.dirname(os.path.abspath(entry.path))
        if name not in [_relative(base, s) for s in sources]:
            self._not_found()
            return
        if not _inside(base, name):
            self._forbidden("a symbolic link that leads out of the spec's folder")
            return
        try:
            with open(os.path.join(base, *parts), "rb") as handle:
                raw_text = handle.read(MAX_SOURCE + 1)
        except OSError:
            self._not_found()
            return
        self._html(page.source_page(entry.index, name, raw_text[:MAX_SOURCE].decode("utf-8", errors="replace")))

    def _events(self) -> None:
        if not self.server.channels.acquire(blocking=False):
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, b"too many update channels open\n", "text/plain")
            return
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.head:
                return
            seen = 0
            while True:
                version, closing = self.server.preview.wait(seen, KEEPALIVE)
                if closing:
                    return
                if version != seen:
                    self.wfile.write(f"event: version\ndata: {version}\n\n".encode())
                    seen = version
                else:
                    self.wfile.write(b": still here\n\n")
                self.wfile.flush()
        except OSError:  # the page was closed (a broken pipe, a reset, a time-out)
            return
        finally:
            self.server.channels.release()


class PreviewServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], preview: Preview):
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.preview = preview
        self.channels = threading.BoundedSemaphore(MAX_CHANNELS)
        super().__init__(address, Handler)
        host = address[0]
        self.loopback = host in ("127.0.0.1", "localhost", "::1") or host.startswith("127.")
        port = self.server_address[1]
        named = host if ":" not in host else f"[{host}]"
        self.names = {f"{name}:{port}" for name in ("127.0.0.1", "localhost", "[::1]", named)}

    def host_ok(self, host: str | None) -> bool:
        return not self.loopback or (host or "").lower() in self.names

    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


def serve(
    paths: Sequence[str],
    settings: Settings,
    host: str,
    port: int,
    *,
    games: tuple = (),
    given: Sequence[str] = (),
    ready: Callable[[str], None],
) -> None:
    """Serve the preview of `paths` (found in `given`, the files and folders the command was
    given, looked through again for specs added and deleted) until interrupted
    (KeyboardInterrupt is left to the caller, once everything is ended). `ready(url)` is
    called once the server listens."""
    preview = Preview(paths, settings, games, given)
    try:
        server = PreviewServer((host, port), preview)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise SheetgenError(
                f"cannot serve on {host}:{port}: the port is in use; give another with --port (0: any free port)"
            ) from None
        raise SheetgenError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    except socket.gaierror as exc:
        raise SheetgenError(f"cannot serve on {host}: {exc.strerror or exc}") from None
    preview.start()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    try:
        thread.start()
        ready(server.url())
        while thread.is_alive() and not preview.closing:
            thread.join(timeout=0.5)
        if preview.failed is not None:
            raise preview.failed
    finally:
        if thread.is_alive():
            server.shutdown()
        preview.stop()
        server.server_close()
