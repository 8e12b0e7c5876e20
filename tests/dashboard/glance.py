"""DOM checks of "readable at a glance", run in the browser on a drawn page (dashboard or report).

Each check returns a list of problems (empty = fine), so a test can report all of them at once."""

from __future__ import annotations

import re
from typing import Any

# the charts of a page: their x range and plot area (left edge, width) in CSS pixels
CHARTS_JS = """
return Array.from(document.querySelectorAll('.js-plotly-plot')).map(g => {
  const fl = g._fullLayout || {}, ax = fl.xaxis || {}, size = fl._size || {};
  const rect = g.getBoundingClientRect();
  const traces = (g._fullData || []).filter(t => t.visible !== false && ((t._length > 0) || (t.x && t.x.length) || (t.z && t.z.length) || (t.y && t.y.length)));
  const notes = (fl.annotations || []).map(a => a.text).filter(Boolean);
  return {range: ax.range ? ax.range.map(String) : null, type: ax.type || null, visible: ax.visible !== false,
          left: rect.left + (size.l || 0), width: size.w || 0, traces: traces.length, notes: notes,
          title: (fl.title && fl.title.text) || ''};
});
"""

# every visible text box of every chart, and of the page's own labels, with its rectangle
TEXTS_JS = """
const out = [];
document.querySelectorAll('.js-plotly-plot').forEach((g, i) => {
  const box = g.getBoundingClientRect();
  g.querySelectorAll('svg text').forEach(t => {
    if (t.closest('.hoverlayer')) return;
    const s = (t.textContent || '').trim();
    const style = getComputedStyle(t);
    if (!s || style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') return;
    const r = t.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return;
    out.push({chart: i, text: s, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom,
              cx0: box.left, cx1: box.right});
  });
});
return out;
"""

# the page's width against the window's: horizontal scrolling of the whole page
WIDTH_JS = "return [document.documentElement.scrollWidth, window.innerWidth, document.body.scrollHeight]"

RAW_JSON = re.compile(r'[{\[]\s*"[A-Za-z_][\w.]*"\s*:')


def shared_axis(charts: list[dict[str, Any]]) -> list[str]:
    """Every date-axis chart of a page: one x range, one plot left edge, one plot width."""
    timed = [c for c in charts if c["type"] == "date" and c["visible"] and c["range"]]
    problems = []
    if len({tuple(c["range"]) for c in timed}) > 1:
        problems.append(f"x ranges differ: {[c['range'] for c in timed]}")
    if timed and (max(c["left"] for c in timed) - min(c["left"] for c in timed) > 1
                  or max(c["width"] for c in timed) - min(c["width"] for c in timed) > 1):
        problems.append(f"plot areas differ: {[(round(c['left']), round(c['width'])) for c in timed]}")
    return problems


def no_empty_panel(charts: list[dict[str, Any]]) -> list[str]:
    """A chart draws data, or says in a sentence (an annotation) why it cannot."""
    return [f"chart {c['title']!r} is empty and says nothing" for c in charts
            if c["traces"] == 0 and not any(len(n.split()) >= 4 for n in c["notes"])]


def overlaps(texts: list[dict[str, Any]], tolerance: float = 1.0) -> list[str]:
    """Pairs of text boxes of one chart that overlap by more than `tolerance` px both ways."""
    problems = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if a["chart"] != b["chart"]:
                continue
            dx = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            dy = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if dx > tolerance and dy > tolerance:
                problems.append(f"chart {a['chart']}: {a['text']!r} overlaps {b['text']!r}")
    return problems


def clipped(texts: list[dict[str, Any]], tolerance: float = 1.0) -> list[str]:
    """Text boxes that run past the left or right edge of their chart (cut off on screen)."""
    return [f"chart {t['chart']}: {t['text']!r} is cut at the chart's edge" for t in texts
            if "cx0" in t and (t["x0"] < t["cx0"] - tolerance or t["x1"] > t["cx1"] + tolerance)]


def raw_json(body_text: str) -> list[str]:
    return [f"raw JSON shown: {m.group(0)!r}…" for m in RAW_JSON.finditer(body_text)][:3]


def page_text(driver: Any) -> str:
    """The page's rendered text, as the browser lays it out (`document.body.innerText`).

    WebDriver's element text (`find_element(...).text`) runs Selenium's visible-text atom over the
    whole DOM: on the first 15 pages of the demo run it took 18.7 s against 0.6 s for innerText (a
    loaded 2-core machine), more than all the other checks together. innerText holds every line that
    atom returns (both leave out what is not rendered: display none, visibility hidden, a closed
    <details>) and more (text at opacity 0 or clipped by overflow, the charts' SVG labels); its table
    cells are tab-separated where the atom puts a space, which \\s in RAW_JSON matches either way.
    Checked on all 47 glance pages of the demo run: every line of the atom's text is in innerText
    (whitespace aside) and raw_json finds no fewer matches. So raw_json over it finds every raw JSON
    the element text showed."""
    return driver.execute_script("return document.body.innerText")


def check_page(driver: Any) -> list[str]:
    """All the checks of one drawn page."""
    charts = driver.execute_script(CHARTS_JS)
    texts = driver.execute_script(TEXTS_JS)
    problems = shared_axis(charts) + no_empty_panel(charts) + overlaps(texts) + clipped(texts)
    problems += raw_json(page_text(driver))
    return problems
