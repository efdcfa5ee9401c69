"""Fuzzing sheetgen's CLI with hostile variants of every bundled spec.

The harness is `tests/fuzz/harness.py`; `tests/fuzz/test_fuzz.py` runs a seeded sample of a
few hundred cases in the default suite. The big batch is a script::

    python benchmarks/fuzz.py --cases 20000 --seed 1             # the big batch (about half an hour)
    python benchmarks/fuzz.py --cases 20000 --seed 1 --jobs 2 --log /tmp/fuzz.jsonl
                                                                 # two processes, resumable
    python benchmarks/fuzz.py --seed 1 --case 1234 --keep        # one case again, shown in full

Every case is made from (seed, index) alone and every finding is printed with the one line
that runs its case again. See the harness's docstring for what a case checks.
"""
