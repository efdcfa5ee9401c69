"""Fuzz cases run as real processes: `python -m sheetgen ...` with what a shell gives a command.

In process (click's CliRunner) a command never meets a closed standard output, a full disk
under it, a signal, or a descriptor the shell opened for appending. A process case starts
sheetgen as its own process, in its own process group, with CPU and memory limits, and:

- ``closed``: standard output closed (``>&-``); ``full``: standard output on /dev/full
  (``> /dev/full``); ``append``: standard output appended to ``log.txt`` (``>> log.txt``),
  the command writing to ``-o /dev/stdout`` (or ``/dev/fd/1``, ``/proc/self/fd/1``);
- ``signal``: SIGTERM, SIGINT or SIGHUP a moment after the start (the command's worker
  processes busy, the figures cache off; a negative moment: once the command and two workers
  run, whenever that is): the process must end with 128+N (a shell's status
  of a process a signal ended, which is also what a process that dies of it shows), say so in
  one line or none, write nothing, and leave no process of its group behind;
- a named pipe that a reader reads (the harness reads it); -o /dev/null, or as root a
  character device made in the case folder that is the device /dev/null is (written
  through, never replaced: root could replace the machine's own).

What the process left is judged by the harness's rules (`harness._judge`), the same as in
process; the CPU time is the child's (`resource.getrusage(RUSAGE_CHILDREN)`, its waited-for
workers included).
"""

from __future__ import annotations

import os
import resource
import select
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from procs import in_group

ROOT = Path(__file__).resolve().parents[2]
MEMORY = 3 * 1024**3  # bytes of address space a process case may take (each worker too)

#: how a process case's standard output is set up, as a shell line says it
STDOUT = {"pipe": "", "closed": " >&-", "full": " > /dev/full", "append": " >> log.txt"}
SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")
#: the file standard output is appended to (``append``) and what it holds before
LOG = "log.txt"
LOG_TEXT = b"the log so far\n"


@dataclass
class Ran:
    """What a process case gave: its status as a shell says it (128+N for signal N)."""

    exit_code: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    cpu: float = 0.0
    seconds: float = 0.0
    signalled: int | None = None  # the signal that ended it (returncode -N)
    delivered: bool = False  # the case's signal was sent while it ran
    stopped: str = ""  # why the harness stopped it (a hang)
    left: list = field(default_factory=list)  # live processes of its group once it ended
    fifo: dict = field(default_factory=dict)  # named pipe -> the bytes its reader got


def shell_line(args: list[str], stdout: str, signal_name: str | None = None, delay: float = 0.0) -> str:
    import shlex

    line = "sheetgen " + " ".join(shlex.quote(a) if a.isprintable() else repr(a) for a in args) + STDOUT.get(stdout, "")
    if signal_name:
        when = f"after {delay:.2f} s" if delay >= 0 else "once its workers run"
        line += f"  # then kill -{signal_name[3:]} {when}"
    return line


def _limits(cpu: float, closed: bool):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))
        try:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        except (ValueError, OSError):
            pass
        # a process starts with the default action for SIGINT even when the harness ignores it
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if closed:
            os.close(1)

    return apply


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], cwd: Path, *, stdout: str = "pipe", signal_name: str | None = None, delay: float = 0.0,
        readers: tuple[str, ...] = (), env: dict | None = None, cpu: float = 45.0, hang: float = 90.0) -> Ran:
    """Run `sheetgen ARGS` in `cwd` as a process and wait for it (and for its group to end)."""
    scratch = Path(tempfile.mkdtemp(prefix="sheetgen-fuzz-io-"))
    out_path, err_path = scratch / "stdout", scratch / "stderr"
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    environment.pop("SHEETGEN_DEBUG", None)
    opened = []
    if stdout == "full":
        out = open("/dev/full", "wb")  # (closed below)
    elif stdout == "append":
        out = open(cwd / LOG, "ab")
    else:
        out = open(out_path, "wb")  # (for "closed" too: closed in the child)
    opened.append(out)
    err = open(err_path, "wb")
    opened.append(err)
    pipes = {}
    for rel in readers:  # a reader of each named pipe, opened before the command (it finds one)
        pipes[rel] = os.open(cwd / rel, os.O_RDONLY | os.O_NONBLOCK)
    got: dict[str, bytearray] = {rel: bytearray() for rel in readers}
    ran = Ran(None)
    before = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sheetgen", *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
        env=environment, start_new_session=True, preexec_fn=_limits(cpu, stdout == "closed"),
    )
    try:
        sent = False
        while True:
            for rel, fd in pipes.items():
                _drain(fd, got[rel])
            code = proc.poll()
            if code is not None:
                break
            elapsed = time.perf_counter() - start
            if signal_name and not sent and (elapsed >= delay if delay >= 0 else len(in_group(proc.pid)) >= 3):
                proc.send_signal(getattr(signal, signal_name))
                sent = ran.delivered = True
            if elapsed > hang:
                ran.stopped = f"still running after {hang:.0f} s"
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.01 if pipes or (signal_name and not sent) else 0.05)
        ran.seconds = time.perf_counter() - start
        ran.cpu = _children_cpu() - before
        for rel, fd in pipes.items():
            _drain(fd, got[rel])
        code = proc.returncode
        if code is not None and code < 0:
            ran.signalled = -code
            code = 128 - code
        ran.exit_code = code
        # the processes it started end with it (loky's resource tracker a moment later)
        for _ in range(100):
            ran.left = [pid for pid in in_group(proc.pid) if pid != proc.pid]
            if not ran.left:
                break
            time.sleep(0.1)
        if ran.left:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
    finally:
        for handle in opened:
            handle.close()
        for fd in pipes.values():
            os.close(fd)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ran.stdout = out_path.read_bytes() if out_path.exists() else b""
    ran.stderr = err_path.read_bytes()
    ran.fifo = {rel: bytes(data) for rel, data in got.items()}
    for path in (out_path, err_path):
        if path.exists():
            path.unlink()
    scratch.rmdir()
    return ran


def _drain(fd: int, into: bytearray) -> None:
    while True:
        ready, _w, _x = select.select([fd], [], [], 0)
        if not ready:
            return
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:  # no writer (yet, or any more)
            return
        into.extend(chunk)


def make_device(path: Path) -> bool:
    """A character device at `path`, the device /dev/null is (making one needs root); False
    when it cannot be made here."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError, OSError):
        return False
    return True


# --------------------------------------------------------------------------- the shell family

#: commands that write a file of their own (-o FILE): a descriptor, a device, a FIFO, a
#: write-protected file can take their output
WRITERS = ("render", "generate", "export", "import", "standings", "season")
#: commands that keep worker processes or solve for seconds: what a signal interrupts
BUSY = ("build", "calendar", "analyze", "render", "season", "generate", "simulate")
#: names of this process's standard output
DESCRIPTORS = ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def _retarget(case, new: str) -> None:
    """Give the case's first file output the name `new` (an -o when it writes none)."""
    files = [t for t in case.targets if t and t != "-"]
    if not files:
        case.args += ["-o", new]
    else:
        case.args[case.args.index(files[0])] = new
        case.targets.remove(files[0])


def shell_case(case, mut, corpus) -> None:
    """A command run as a process, with what a shell can give it (see the module's docstring)."""
    from fuzz import commands

    rng = mut.rng
    case.mode = "process"
    scenario = mut.pick(["closed", "full", "append", "signal", "signal", "device", "fifo", "protected", "protected"])
    if scenario in ("closed", "full"):
        commands.valid_command(case, mut, corpus)
        if case.command == "render" and rng.random() < 0.5:
            _retarget(case, "-")
        case.stdout = scenario
        case.description = f"standard output {scenario}"
    elif scenario == "append":
        commands.valid_command(case, mut, corpus, command=mut.pick(list(WRITERS)))
        _retarget(case, mut.pick(list(DESCRIPTORS)))
        case.stdout = "append"
        case.logs = {LOG: LOG_TEXT}
        case.description = "-o naming standard output, appended to log.txt"
    elif scenario == "signal":
        commands.valid_command(case, mut, corpus, command=mut.pick(list(BUSY)))
        if case.command in ("build", "calendar") and "--jobs" in case.args:
            case.args[case.args.index("--jobs") + 1] = "2"
        if case.command == "season" and "--no-par" in case.args:
            case.args.remove("--no-par")
        case.env = {"SHEETGEN_CACHE": "off"}  # the work a signal interrupts
        name = mut.pick(list(SIGNALS))
        delay = round(rng.choice([rng.uniform(0.05, 0.5), rng.uniform(0.5, 3.0), rng.uniform(0.3, 1.2)]), 2)
        case.signal = (name, delay)
        case.description = f"{name} after {delay:.2f} s"
    elif scenario == "device":
        commands.valid_command(case, mut, corpus, command=mut.pick(list(WRITERS)))
        if os.geteuid() != 0 and rng.random() < 0.5:
            # /dev/null itself where a rename onto it is refused to this user anyway (root
            # could replace the machine's: a node made in the folder stands in for it there)
            _retarget(case, "/dev/null")
            case.description = "-o /dev/null"
        else:
            node = "null.dev"
            _retarget(case, node)
            case.devices.append(node)
            case.targets.append(node)
            case.description = "-o a character device (as /dev/null)"
    elif scenario == "fifo":
        commands.valid_command(case, mut, corpus, command=mut.pick(list(WRITERS)))
        pipe = "out.fifo"
        _retarget(case, pipe)
        case.fifos.append(pipe)
        case.targets.append(pipe)
        read = rng.random() < 0.8
        if read:
            case.readers.append(pipe)
        case.description = f"-o a named pipe {'a reader reads' if read else 'nobody reads'}"
    else:
        commands.valid_command(case, mut, corpus, command=mut.pick(list(WRITERS) + ["build"]))
        files = [t for t in case.targets if t and t != "-"]
        if case.command == "build":
            first = next(a for a in case.args[2:] if a.endswith(".yaml"))
            files = [f"out/{os.path.basename(first)[:-5]}.pdf"]
        elif not files:
            _retarget(case, "kept.out")
            case.targets.append("kept.out")
            files = ["kept.out"]
        case.protected.append(files[0])
        force = rng.random() < 0.5
        if force:
            case.args.append("--force")
        if rng.random() < 0.5:
            case.mode = "in process"
        case.description = f"-o a write-protected file (mode 444){' with --force' if force else ''}"
    case.family = "shell"
