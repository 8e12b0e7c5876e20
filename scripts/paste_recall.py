"""Recall of `coordscope parse` on a set of log excerpts with hand-checked expectations.

usage: python scripts/paste_recall.py DIR [--tree CHECKOUT] [--all]

DIR holds NNN.log (the log lines as pasted), NNN.meta (where from, what a person reads) and
expect/expect.json, expect/facts.json (docs/testing.md, "Recall on pasted logs", says how the set of
session 16 was harvested; it is third-party text and stays out of the repository):

- expect.json: {"NNN": {"<line>": "kind|kind", ...}}: the coordinator lines a person reads a fact
  from and the kinds that state it; "T:kind" marks a line cut by the excerpt (counted apart);
- facts.json: {"NNN": {"<line>": {"<Event field>": value, ...}}}: values spot-checked; a field
  `extra.<key>` names a value inside the event's `extra` dict.

Each excerpt is parsed in its own process with CHECKOUT's code (default: this checkout). Prints a
Markdown table of the excerpts with a miss, a wrong fact or an unparsed line no expectation names
(`--all`: every excerpt), then the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--tree", default=str(REPO))
    ap.add_argument("--all", action="store_true")
    args = ap.parse_args()
    d = Path(args.dir)
    expect = json.loads((d / "expect" / "expect.json").read_text())
    facts = json.loads((d / "expect" / "facts.json").read_text())
    env = dict(os.environ, PYTHONPATH=args.tree)
    tot = rec = ttot = trec = fchk = fbad = noise_n = 0
    print("| excerpt | recognised / lines | cut lines | missed (line:got) | wrong or missing facts | other unparsed lines |")
    print("|---|---|---|---|---|---|")
    files = sorted(d.glob("[0-9][0-9][0-9].log"))
    for f in files:
        n = f.name[:3]
        p = subprocess.run([sys.executable, "-m", "pipeline.cli", "parse", str(f)], cwd=args.tree, env=env,
                           capture_output=True, text=True, check=False)
        evs = {}
        for line in p.stdout.splitlines():
            e = json.loads(line)
            evs[e["line_no"]] = e
        exp = expect.get(n, {})
        t = r = tt = tr = 0
        miss, bad = [], []
        for ln, kinds in exp.items():
            cut = kinds.startswith("T:")
            ok_kinds = (kinds[2:] if cut else kinds).split("|")
            got = evs[int(ln)]["kind"] if int(ln) in evs else "-"
            ok = got in ok_kinds
            if cut:
                tt, tr = tt + 1, tr + ok
            else:
                t, r = t + 1, r + ok
            if not ok:
                miss.append(f"{ln}{'(cut)' if cut else ''}:{got}")
        for ln, want in facts.get(n, {}).items():
            e = evs.get(int(ln), {})
            for k, v in want.items():
                fchk += 1
                got = (e.get("extra") or {}).get(k[6:]) if k.startswith("extra.") else e.get(k)
                if got != v:
                    fbad += 1
                    bad.append(f"{ln}.{k}={got!r}")
        noise = [ln for ln, e in evs.items() if e["kind"] == "unparsed" and str(ln) not in exp]
        noise_n += len(noise)
        tot, rec, ttot, trec = tot + t, rec + r, ttot + tt, trec + tr
        if args.all or miss or bad or noise:
            print(f"| {n} | {r}/{t} | {tr}/{tt} | {' '.join(miss)} | {' '.join(bad)} | {' '.join(map(str, noise))} |")
    print(f"\n{len(files)} excerpts; coordinator lines recognised {rec}/{tot} ({rec / max(tot, 1):.1%}); "
          f"lines cut by the excerpt {trec}/{ttot}; facts wrong or missing {fbad}/{fchk}; other unparsed lines {noise_n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
