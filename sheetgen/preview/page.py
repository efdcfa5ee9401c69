"""The preview's HTML, drawn from the state the server keeps (plain data, see `server`).

The page is drawn here, in Python, whole: `/` is the document and `/view` the part that
changes, which the page's few lines of script fetch again whenever the server's update
channel (`/events`, Server-Sent Events) says that something changed. Every text that comes
from a spec (names, messages, quoted lines) is escaped. The figures are `analyze`'s JSON
drawn as tables: a mapping as rows of name and value, a list of mappings as a table with a
column per key, nested values inside their cells; no game is named.
"""

from __future__ import annotations

import html
import json
from typing import Any


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _label(key: object) -> str:
    return str(key).replace("_", " ")


def _number(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def figures_table(value: Any, depth: int = 0, label: str = "") -> str:
    """`analyze`'s JSON as HTML tables (see the module). In a table's cell (`depth` 1 and
    more), a small mapping of plain values is one line ("p10 143.3 · p50 153.3"); a list of
    mappings in a row of another list (`depth` 2 and more) is a table folded under its count
    ("10 corners"), so that rows stay short."""
    if isinstance(value, dict):
        if not value:
            return "<span class=none>none</span>"
        if depth and len(value) <= 6 and all(_scalar(v) for v in value.values()):
            # a name and its value kept on one line ("p50 153.3"), the line broken between pairs
            pairs = (f"<span class=pair>{_e(_label(k))} {figures_table(v)}</span>" for k, v in value.items())
            return " &middot; ".join(pairs)
        rows = "".join(
            f"<tr><th>{_e(_label(k))}</th><td>{figures_table(v, depth + 1, _label(k))}</td></tr>"
            for k, v in value.items()
        )
        return f"<table class=pairs>{rows}</table>"
    if isinstance(value, list):
        if not value:
            return "<span class=none>none</span>"
        if all(isinstance(item, dict) for item in value):
            keys = list(dict.fromkeys(k for item in value for k in item))
            head = "".join(f"<th>{_e(_label(k))}</th>" for k in keys)
            body = "".join(
                "<tr>"
                + "".join(f"<td>{figures_table(item[k], depth + 2, _label(k)) if k in item else ''}</td>" for k in keys)
                + "</tr>"
                for item in value
            )
            table = f"<table class=rows><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            if depth >= 2:
                return f"<details><summary>{len(value)} {_e(label or 'rows')}</summary>{table}</details>"
            return table
        return ", ".join(figures_table(item) for item in value)
    if value is None:
        return "<span class=none>&mdash;</span>"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _e(_number(value))
    return _e(value)


def _problem(index: int, problem: dict[str, Any], servable: set[str]) -> str:
    quote = ""
    if problem.get("quote") is not None:
        text = problem["quote"]
        caret = " " * max(0, min(problem["col"], len(text) + 1) - 1) + "^"
        quote = f"<pre class=quote>{problem['row']:>5} | {_e(text)}\n      | {caret}</pre>"
    line = _e(problem["line"])
    link = problem.get("link")
    if link is not None and link in servable:
        line = f"<a href='/spec/{index}/source/{_e(link)}#L{problem['row']}'>{line}</a>"
    return f"<li class={_e(problem['severity'])}><code>{line}</code>{quote}</li>"


def _status(spec: dict[str, Any]) -> str:
    status = spec["status"]
    if status == "working":
        return f"<span class='status working'>{_e(spec['doing'])}&hellip;</span>"
    words = {
        "ready": "up to date",
        "refused": "does not load",
        "failed": "stopped by an error",
        "waiting": "waiting for its turn",
    }
    return f"<span class='status {_e(status)}'>{_e(words.get(status, status))}</span>"


def _pages(spec: dict[str, Any]) -> str:
    pages = spec.get("pages") or []
    if not pages:
        return ""
    said = ""
    if spec.get("stale") and spec["status"] == "working":
        said = "<p class=stale>Being drawn again: these pages are from an earlier version.</p>"
    elif spec.get("stale"):
        said = "<p class=stale>These pages are from the last version that loaded.</p>"
    elif spec.get("draft"):
        said = "<p class=draft-note>Drawn as a draft: the problems above make it unplayable as it is.</p>"
    dimmed = " dimmed" if spec.get("draft") or spec.get("stale") else ""
    figures = "".join(
        f"<figure class='page{dimmed}'>"
        f"<figcaption>page {n} of {len(pages)}: {_e(p['kind'])}</figcaption>"
        f"<a href='{_e(p['url'])}' target=_blank>"
        f"<img src='{_e(p['url'])}' width={p['width']} height={p['height']} alt='page {n}: {_e(p['kind'])}'></a>"
        "</figure>"
        for n, p in enumerate(pages, start=1)
    )
    return f"<h3>Pages ({len(pages)})</h3>{said}<div class=pages>{figures}</div>"


def _figures(spec: dict[str, Any]) -> str:
    found = spec.get("figures")
    if found is None:
        return ""
    parts = ["<h3>Figures (analyze)</h3>"]
    if spec["status"] == "refused":
        parts.append("<p class=stale>From the last version that loaded.</p>")
    elif spec["status"] == "working":
        parts.append("<p class=stale>From an earlier version: being analysed again.</p>")
    if found.get("note"):
        parts.append(f"<p class=note>{_e(found['note'])}</p>")
    if found.get("data") is not None:
        parts.append(f"<div class=figures>{figures_table(found['data'])}</div>")
    if found.get("text"):
        parts.append(
            "<details><summary>as analyze prints it</summary>"
            f"<pre>{_e(found['text'])}</pre></details>"
        )
    return "".join(parts)


def spec_section(spec: dict[str, Any]) -> str:
    index = spec["index"]
    servable = set(spec.get("servable", ()))
    parts = [f"<section class=spec id=spec-{index} data-status={_e(spec['status'])}>"]
    title = f"{spec['title']}: {spec['summary']}" if spec.get("title") else ""
    parts.append(
        f"<h2><code>{_e(spec['path'])}</code> {_status(spec)}</h2>"
        + (f"<p class=what>{_e(title)}</p>" if title else "")
        + f"<p class=when>version {spec['revision']}, {_e(spec['updated'])}</p>"
    )
    if spec.get("failure"):
        parts.append(f"<p class=failure>{_e(spec['failure'])}</p>")
    problems = spec.get("problems") or []
    if problems:
        items = "".join(_problem(index, p, servable) for p in problems)
        parts.append(f"<h3>Problems ({len(problems)})</h3><ul class=problems>{items}</ul>")
    elif spec["status"] != "working" and spec.get("title"):
        parts.append("<p class=ok>No problems: valid and playable.</p>")
    if spec.get("note"):
        parts.append(f"<p class=note>{_e(spec['note'])}</p>")
    parts.append(f"<div class=columns><div class=pages-column>{_pages(spec)}</div>")
    parts.append(f"<div class=figures-column>{_figures(spec)}</div></div>")
    parts.append("</section>")
    return "".join(parts)


def view(state: dict[str, Any]) -> str:
    """The part of the page that changes: every spec's section."""
    nav = "".join(
        f"<li><a href='#spec-{s['index']}'>{_e(s['path'])}</a> {_status(s)}</li>" for s in state["specs"]
    )
    sections = "".join(spec_section(s) for s in state["specs"])
    return f"<nav><ul>{nav}</ul></nav>{sections}"


_STYLE = """
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; background: #eceae6; color: #222; }
header { position: sticky; top: 0; z-index: 1; background: #333; color: #eee; padding: 6px 16px; }
header b { margin-right: 1em; }
#live.off { color: #f99; }
main { padding: 8px 16px; }
nav ul { list-style: none; padding: 0; margin: 0 0 8px; }
nav li { display: inline-block; margin-right: 1.5em; }
section.spec { background: #fff; border-radius: 6px; padding: 4px 16px 12px; margin: 12px 0; }
h2 { font-size: 17px; margin: 8px 0 2px; }
h3 { font-size: 15px; margin: 12px 0 4px; }
p.what, p.when { margin: 0; color: #555; font-size: 13px; }
.status { font-size: 13px; font-weight: normal; padding: 1px 8px; border-radius: 8px; margin-left: 6px; }
.status.ready { background: #d8efd8; } .status.refused, .status.failed { background: #f6d0d0; }
.status.working, .status.waiting { background: #f8ecc0; }
ul.problems { padding-left: 0; list-style: none; }
ul.problems li { margin: 4px 0; }
li.error code { color: #a00; } li.warning code { color: #8a5a00; }
ul.problems a { color: inherit; }
pre.quote { margin: 2px 0 0 0; background: #f6f4f0; padding: 2px 6px; }
p.ok { color: #2a6a2a; } p.stale, p.draft-note, p.failure { color: #8a5a00; }
.columns { display: grid; grid-template-columns: minmax(0, 1fr) fit-content(62%); gap: 16px; }
.figures-column { min-width: 0; }
@media (max-width: 1080px) {
  .columns { grid-template-columns: minmax(0, 1fr); }
  .figures-column { order: -1; }
}
.pages { display: flex; flex-wrap: wrap; gap: 12px; }
figure.page { margin: 0; max-width: 100%; }
figure.page img { display: block; max-width: min(100%, 560px); height: auto; border: 1px solid #bbb; background: #fff; }
figure.page.dimmed img { opacity: 0.75; border: 2px dashed #c80; }
.figures {
  overflow-x: auto;
  background:
    linear-gradient(to right, #fff 30%, rgba(255, 255, 255, 0)) left / 32px 100% no-repeat local,
    linear-gradient(to left, #fff 30%, rgba(255, 255, 255, 0)) right / 32px 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(0, 0, 0, 0.3), transparent) left / 12px 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(0, 0, 0, 0.3), transparent) right / 12px 100% no-repeat scroll;
}
figcaption { font-size: 13px; color: #555; }
.figures table { border-collapse: collapse; font-size: 13px; }
.figures th, .figures td { border: 1px solid #ccc; padding: 1px 6px; text-align: left; vertical-align: top; }
.figures table.pairs > tbody > tr > th { background: #f3f1ed; }
.figures thead th { background: #e8e6e1; }
span.none { color: #999; }
span.pair { white-space: nowrap; }
"""

#: the script: on every version the update channel announces, the changing part is fetched
#: again and put in place; folded tables opened stay open (by their order on the page) and
#: the scroll stays where it was
_SCRIPT = """
let shown = Number(document.body.dataset.version);
let busy = false, wanted = shown;
const live = document.getElementById("live");
async function refresh() {
  if (busy || wanted <= shown) return;
  busy = true;
  try {
    const answer = await fetch("/view", {cache: "no-store"});
    const version = Number(answer.headers.get("X-Preview-Version"));
    const text = await answer.text();
    const view = document.getElementById("view");
    const open = [...view.querySelectorAll("details")].map(d => d.open);
    view.innerHTML = text;
    view.querySelectorAll("details").forEach((d, k) => { if (open[k]) d.open = true; });
    shown = version;
    document.body.dataset.version = String(version);
  } catch (error) {
  } finally { busy = false; }
  if (wanted > shown) refresh();
}
const events = new EventSource("/events");
events.addEventListener("version", event => { wanted = Number(event.data); refresh(); });
events.onopen = () => { live.textContent = "live"; live.className = "on"; };
events.onerror = () => {
  live.textContent = "not connected: is sheetgen preview still running?";
  live.className = "off";
};
"""


def document(state: dict[str, Any]) -> str:
    """The whole page, as it is now; its script keeps it up to date."""
    count = len(state["specs"])
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>sheetgen preview: {_e(', '.join(s['path'] for s in state['specs']))}</title>"
        f"<style>{_STYLE}</style></head>"
        f"<body data-version={state['version']}>"
        f"<header><b>sheetgen preview</b>{count} spec{'s' if count != 1 else ''} &middot; "
        f"<span id=live>connecting</span></header>"
        f"<main id=view>{view(state)}</main>"
        f"<script>{_SCRIPT}</script></body></html>"
    )


def source_page(index: int, name: str, text: str) -> str:
    """A file a spec read, its lines numbered (`#L7` goes to line 7)."""
    lines = "".join(
        f"<span id=L{n}><a href='#L{n}'>{n:>5}</a>  {_e(line)}\n</span>"
        for n, line in enumerate(text.splitlines(), start=1)
    )
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{_e(name)}</title><style>span:target {{ background: #ffe9a8; }} a {{ color: #999; }}</style>"
        f"</head><body><p><a href='/#spec-{index}'>back to the preview</a></p><h2><code>{_e(name)}</code></h2>"
        f"<pre>{lines}</pre></body></html>"
    )


def state_json(state: dict[str, Any]) -> str:
    return json.dumps(state, indent=1)
