"""Fuzzing sheetgen's CLI: hostile variants of every bundled spec, valid commands of every
command and game, specs grown to their limits, and real processes meeting what a shell does.

The harness is `tests/fuzz/harness.py` (with `commands.py`: valid commands; `large.py`: specs
and options at their limits; `process.py`: cases run as real processes). Past findings are
kept in `tests/fuzz/corpus/` (`findings.py`) and replayed by the default suite
(`test_findings.py`); `test_fuzz.py` holds the harness's own checks and, marked slow, a seeded
sample of 200 cases. The big batch is a script::

    python benchmarks/fuzz.py --cases 500 --seed 1               # a batch of 500 (10 minutes, 1 CPU)
    python benchmarks/fuzz.py --cases 20000 --seed 1 --jobs 2 --log /tmp/fuzz.jsonl
                                                                 # two processes, resumable
    python benchmarks/fuzz.py --seed 1 --case 1234 --keep        # one case again, shown in full
    python benchmarks/fuzz.py --seed 1 --case 1234 --save name   # ... kept as a corpus entry

A batch of 500 took 6 to 10 minutes on one CPU of the shared 2-core machine (300 to 370 s of
CPU in all, its processes' included): a batch of 20,000 is 4 to 7 hours of CPU, half that
on the clock with --jobs 2. Every case is made from (seed, index) alone and every finding is
printed with the one line that runs its case again. See the harness's docstring for what a
case checks.
"""
