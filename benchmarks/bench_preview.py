"""Time how long `sheetgen preview` takes to show a save: from the file's save (written whole
and renamed into place, as an editor saves) to the update channel's announcement of the state
that shows it.

Plain script, not a test: ``python benchmarks/bench_preview.py [saves]``. A copy of the bundled
Thousand Lakes race (3 stages) is saved alternately with a mistake in its first stage
(`length: x96`: the problem shows once the spec is loaded) and with that stage a space
shorter than the last time (a race never solved before: the pages and the figures drawn and
solved again, the figures cache off): the time until the page says it is at work, until
its pages are drawn again and until its figures are. Each wait is read on `/events` and `/state.json` over
real HTTP, as the page reads them. Target (issue 31): a problem and a redrawn page "within
about a second of a save". The figures are in docs/benchmarks.md ("The preview").
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RACE = ROOT / "track_specs" / "rallytaire" / "thousand_lakes.yaml"


def save(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.saving")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def main(saves: int = 6) -> None:
    with tempfile.TemporaryDirectory() as folder:
        race = Path(folder) / "race.yaml"
        good = RACE.read_text(encoding="utf-8")
        assert good.count("length: 96") == 1
        save(race, good)
        env = dict(os.environ, PYTHONPATH=str(ROOT), SHEETGEN_CACHE="off")
        server = subprocess.Popen([sys.executable, "-m", "sheetgen", "preview", "--port", "0", str(race)],
                                  stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        assert server.stdout is not None
        url = server.stdout.readline().split()[2]
        host, port = url.split("//")[1].rstrip("/").split(":")

        def state() -> dict:
            connection = http.client.HTTPConnection(host, int(port), timeout=60)
            connection.request("GET", "/state.json")
            body = connection.getresponse().read()
            connection.close()
            return json.loads(body)["specs"][0]

        versions: list[int] = []
        seen = threading.Condition()

        def listen() -> None:
            channel = http.client.HTTPConnection(host, int(port), timeout=600)
            channel.request("GET", "/events")
            for raw in channel.getresponse():
                line = raw.decode().strip()
                if line.startswith("data: "):
                    with seen:
                        versions.append(int(line[6:]))
                        seen.notify_all()

        threading.Thread(target=listen, daemon=True).start()

        def until(test) -> float:
            """Seconds from now until an announced version's state passes `test`."""
            start = time.perf_counter()
            last = versions[-1] if versions else 0
            while True:
                with seen:
                    seen.wait_for(lambda after=last: bool(versions) and versions[-1] > after, timeout=600)
                    last = versions[-1]
                if test(state()):
                    return time.perf_counter() - start

        try:
            until(lambda s: s["status"] == "ready")
            problem, working, redrawn = [], [], []
            length = 96
            for _ in range(saves):
                save(race, good.replace("length: 96", "length: x96"))
                problem.append(until(lambda s: s["status"] == "refused" and s["problems"]))
                length -= 1
                save(race, good.replace("length: 96", f"length: {length}"))
                said = until(lambda s: s["status"] == "working")
                working.append(said)
                pages = said + until(lambda s: s["status"] != "refused" and s["pages"] and not s["stale"])
                figures = pages + until(lambda s: s["status"] == "ready") if state()["status"] != "ready" else pages
                redrawn.append((pages, figures))
            print(f"{saves} saves of each kind (Thousand Lakes, 3 stages, figures cache off)")
            rows = {
                "a mistake saved -> its problem on the page": problem,
                "a change saved  -> the page says it is at work": working,
                "a change saved  -> its pages redrawn": [p for p, _f in redrawn],
                "a change saved  -> its figures solved again": [f for _p, f in redrawn],
            }
            for name, times in rows.items():
                print(f"  {name + ':':<48} median {statistics.median(times):.2f} s, slowest {max(times):.2f} s")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
