"""The big fuzz batch: hostile variants of every bundled spec through every command.

Plain script, not a test (tests/fuzz/test_fuzz.py runs a small seeded sample in the suite)::

    python benchmarks/fuzz.py --cases 20000 --seed 1                  # the big batch, one process
                                                                      # (4 to 7 hours: 500 cases take
                                                                      # 300 to 370 s of CPU)
    python benchmarks/fuzz.py --cases 20000 --seed 1 --jobs 2         # two processes (the most it takes)
    python benchmarks/fuzz.py --cases 20000 --seed 1 --log /tmp/fuzz.jsonl   # resumable: a rerun
                                                                      # skips the cases in the log
    python benchmarks/fuzz.py --cases 5000 --start 15000 --seed 1     # one chunk of a batch
    python benchmarks/fuzz.py --seed 1 --case 1234 --keep             # one case again: its command,
                                                                      # output and findings; its folder kept
    python benchmarks/fuzz.py --seed 1 --case 1234 --save some_name   # ... kept in tests/fuzz/corpus/
                                                                      # (replayed by the default suite)

Cases are made from (seed, index) alone (see tests/fuzz/harness.py), so a batch gives the same
cases in one process or two, in one run or in chunks. The report: cases run and their CPU time,
per command (how many ran to exit 0, and their CPU seconds), per game, per family of damage,
per mode (in process, or a real process), exit codes, and for each kind of finding (internal
errors, tracebacks, bad exit codes, unlocated error lines, partial outputs, replaced inputs,
other files changed, special files replaced, hangs, crashes, slow cases over 10 s of CPU,
signals, workers left, protected files replaced, lost output) how many cases and a one-line
reproducer of each (up to --show). Cases run in worker processes of --chunk cases each, --jobs
at a time: a case that kills its worker (a crash) or never ends (a hang the case's own alarm
missed) is reported and the chunk goes on after it. The batch and every process it starts are
held to --jobs CPUs, so it never takes more cores; a worker may take 3 GiB of memory at most.
The figures cache is a folder of the batch's own (--cache), so that what a batch costs does
not depend on what an earlier run left.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the harness: tests/fuzz/harness.py
sys.path.insert(0, str(ROOT))  # this checkout's sheetgen, not another one installed

from fuzz import harness  # noqa: E402

MEMORY = 3 * 1024**3  # bytes of address space a worker may take: a blow-up is a MemoryError, not the OOM killer
SILENCE = 300.0  # seconds without a finished case after which a worker is stopped (a hang the alarm missed)


def _hold_to_cpus(count: int) -> None:
    """Hold this process, and every process it starts, to `count` CPUs."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, set(cpus[:count]))
    except (AttributeError, OSError):
        pass


def worker(seed: int, start: int, count: int, settings: harness.Settings) -> int:
    """Run cases start..start+count-1 here, one JSON line each on standard output."""
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, ValueError, OSError):
        pass
    corpus = harness.load_corpus_cached()
    out = sys.stdout
    for index in range(start, start + count):
        case = harness.make_case(corpus, seed, index, settings)
        rec = harness.record(harness.run_case(case, settings))
        out.write(json.dumps(rec) + "\n")
        out.flush()
    return 0


def _lost(seed: int, index: int, category: str, detail: str) -> dict:
    """The record of a case whose worker process died or stopped answering."""
    return {
        "seed": seed, "index": index, "command": "?", "game": "?", "family": "?", "mode": "?", "ran": "", "exit": None,
        "seconds": 0.0, "cpu": 0.0, "findings": [[category, detail]], "description": "",
        "reproducer": f"python benchmarks/fuzz.py --seed {seed} --case {index} --keep",
    }


def _run_chunk(seed: int, start: int, count: int, args: argparse.Namespace, take) -> None:
    """Run a chunk in a worker process; a case that kills its worker (the OOM killer,
    os._exit, a signal) or stops it answering is a finding, and the chunk goes on after it."""
    import queue
    import subprocess
    import threading

    end = start + count
    while start < end:
        command = [sys.executable, __file__, "--worker", str(start), str(end - start), "--seed", str(seed),
                   "--expensive-share", str(args.expensive_share)]
        env = {**os.environ, "SHEETGEN_CACHE": str(args.cache)}
        proc = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT, env=env
        )
        lines: queue.Queue = queue.Queue()

        def read(stream=proc.stdout, lines=lines) -> None:
            for line in stream:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        next_index = start
        stopped = False
        while True:
            try:
                line = lines.get(timeout=SILENCE)
            except queue.Empty:
                proc.kill()
                stopped = True
                break
            if line is None:
                break
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:  # something in a case wrote to the worker's standard output
                continue
            take([rec])
            next_index = rec["index"] + 1
        proc.wait()
        if next_index >= end:
            return
        if stopped:
            take([_lost(seed, next_index, "hangs", f"no answer for {SILENCE:.0f} s; the worker was stopped")])
        else:
            take([_lost(seed, next_index, "crashes", f"the worker process died (exit status {proc.returncode})")])
        start = next_index + 1


def _done(log: Path | None, seed: int) -> dict[int, dict]:
    if log is None or not log.exists():
        return {}
    found = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a stopped run
        if rec.get("seed") == seed:
            found[rec["index"]] = rec
    return found


def run_one(seed: int, index: int, keep: bool, settings: harness.Settings, save: str | None = None) -> int:
    corpus = harness.load_corpus_cached()
    case = harness.make_case(corpus, seed, index, settings)
    folder = Path(tempfile.mkdtemp(prefix="sheetgen-fuzz-keep-")) if keep else None
    outcome = harness.run_case(case, settings, keep=folder)
    if save:  # a new entry of the findings kept (its `finding` and `right` to be written)
        from fuzz import findings

        target = findings.CORPUS / f"{save}.yaml"
        findings.save(findings.entry_of(case, outcome), target)
        print(f"saved: {target.relative_to(ROOT)} (say what was wrong and what is right in it)")
    print(f"case {seed}:{index}: {case.family}, {case.game or 'no game'}: {case.description}")
    asked = " ".join(shlex.quote(a) if a.isprintable() else repr(a) for a in case.args)
    if case.mode == "process":
        print(f"process: {case.reproducer().split('  # ', 1)[1].rsplit('  [', 1)[0]}")
    print(f"command: sheetgen {asked}")
    if outcome.ran != asked:
        print(f"ran:     sheetgen {outcome.ran}  (a valid spec: the cheap command instead)")
    print(f"exit {outcome.exit_code} in {outcome.seconds:.2f} s, {outcome.cpu:.2f} s of CPU "
          f"({outcome.input_bytes} bytes of input)")
    print("--- stdout (first 2000 characters)\n" + outcome.stdout[:2000])
    print("--- stderr (first 4000 characters)\n" + outcome.stderr[:4000])
    print("--- findings: " + ("none" if outcome.ok else ""))
    for category, detail in outcome.findings:
        print(f"{category}: {detail}")
    if folder is not None:
        print(f"folder kept: {next(folder.iterdir(), folder)}")
    return 0 if outcome.ok else 1


def _signals_reach_children() -> None:
    """SIGINT and SIGHUP reach the commands the cases start, as from a terminal: a batch started
    in the background (`&`: SIGINT ignored) or under nohup (SIGHUP ignored) would hand the
    ignoring on to every process it starts, and every signal case would be a false finding
    (a command that ignores SIGHUP finishes with exit 0, not 129)."""
    import signal

    for name in ("SIGINT", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL)


def main() -> int:
    _signals_reach_children()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases to run (default 1000)")
    parser.add_argument("--start", type=int, default=0, help="index of the first case (default 0)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, choices=(1, 2), help="worker processes, one CPU each (1 or 2)")
    parser.add_argument("--log", type=Path, default=None,
                        help="JSON lines of every case run; cases already there are not run again")
    parser.add_argument("--case", type=int, default=None, help="run this one case and show everything about it")
    parser.add_argument("--keep", action="store_true", help="with --case: keep its folder")
    parser.add_argument("--save", metavar="NAME", default=None,
                        help="with --case: keep it as tests/fuzz/corpus/NAME.yaml, replayed by the test suite")
    parser.add_argument("--show", type=int, default=20, help="reproducers shown per kind of finding (default 20)")
    parser.add_argument("--expensive-share", type=float, default=0.05,
                        help="share of valid specs that get an expensive command (default 0.05)")
    parser.add_argument("--chunk", type=int, default=250, help="cases per worker process (default 250)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="the figures cache of the batch's commands (default: a new folder, removed at the end)")
    parser.add_argument("--worker", type=int, nargs=2, metavar=("START", "COUNT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    settings = harness.Settings(expensive_share=args.expensive_share)
    if args.worker is not None:
        return worker(args.seed, args.worker[0], args.worker[1], settings)
    if args.case is not None:
        return run_one(args.seed, args.case, args.keep, settings, args.save)

    wanted = range(args.start, args.start + args.cases)
    done = _done(args.log, args.seed)
    tally = harness.Tally()
    for index in wanted:
        if index in done:
            tally.add(done[index])
    todo = [i for i in wanted if i not in done]
    # runs of consecutive indices still to do, cut into chunks of at most --chunk cases
    chunks: list[tuple[int, int]] = []
    for index in todo:
        if chunks and chunks[-1][0] + chunks[-1][1] == index and chunks[-1][1] < args.chunk:
            chunks[-1] = (chunks[-1][0], chunks[-1][1] + 1)
        else:
            chunks.append((index, 1))
    _hold_to_cpus(args.jobs)
    made_cache = args.cache is None
    if made_cache:
        args.cache = Path(tempfile.mkdtemp(prefix="sheetgen-fuzz-cache-"))
    print(f"seed {args.seed}: cases {args.start}..{args.start + args.cases - 1}, {len(done)} already logged, "
          f"{len(todo)} to run, {args.jobs} process(es)", file=sys.stderr, flush=True)
    start = time.perf_counter()
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    ran = 0
    next_note = 500
    import threading

    lock = threading.Lock()

    def take(records: list[dict]) -> None:
        nonlocal ran, next_note
        with lock:
            for rec in records:
                tally.add(rec)
                if log is not None:
                    log.write(json.dumps(rec) + "\n")
                for category, detail in rec["findings"]:
                    print(f"[{category}] {detail}\n    {rec['reproducer']}", file=sys.stderr, flush=True)
            if log is not None:
                log.flush()
            ran += len(records)
            if ran >= next_note or ran == len(todo):
                next_note += 500
                elapsed = time.perf_counter() - start
                found = sum(tally.count(c) for c in harness.CATEGORIES)
                print(f"  {ran}/{len(todo)} cases in {elapsed:.0f} s; {found} findings so far",
                      file=sys.stderr, flush=True)

    from concurrent.futures import ThreadPoolExecutor

    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            for future in [pool.submit(_run_chunk, args.seed, first, count, args, take) for first, count in chunks]:
                future.result()
    finally:
        if log is not None:
            log.close()
        if made_cache:
            import shutil

            shutil.rmtree(args.cache, ignore_errors=True)
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"wall clock: {time.perf_counter() - start:.0f} s; "
          f"CPU of the batch's processes: {used.ru_utime + used.ru_stime:.0f} s")
    print(tally.report(args.show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
