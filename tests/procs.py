"""Processes as /proc shows them: for the tests and the fuzz harness that run sheetgen as a
real process and check that it leaves no worker process behind."""

from __future__ import annotations

import os


def in_group(pgid: int) -> list[int]:
    """The live processes of process group `pgid` (zombies left out), read from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == pgid and fields[0] != "Z":
                found.append(int(entry))
    return found
