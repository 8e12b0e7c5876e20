"""Do a run's ownership findings and its ownership table say the same? (test helper, pure Python)

"Views of one run never disagree": the findings `double_ownership` ("two members owned X from a to
b") and `unowned_partitions` ("nobody owned X from a to b") are read beside the `ownership` table
(the dashboard's ownership grid and "no owner" figure, the report's figures). `disagreements(run_dir)`
compares them per partition, both ways:

- `double_not_in_table`: a double_ownership finding's span [start_ms, end_ms) where the table does not
  show two different members holding the partition at once;
- `double_not_in_findings`: time where the table shows two different members holding a partition
  at once, longer than the clock-skew tolerance (`skew_ms`, the replay's clock.skew.tolerance.ms:
  shorter overlaps are not reported by the rule), that no double_ownership finding covers;
- `unowned_not_in_table`: an unowned_partitions finding's span where the table shows an owner (or no
  gap: before the partition's first interval or after its last);
- `unowned_not_in_findings`: a gap of the table (the time between one interval's end and the next
  one's start that no interval covers) longer than the unowned threshold (`threshold_ms`, the
  replay's unowned.threshold.ms) that no unowned_partitions finding covers, unless half of it or more
  falls in time the group had no members (the rule's own exception: a stopped group leaves no
  partition behind; `idle`, from the run's generations: a generation that became empty, until the
  next one began).

Each disagreement: (kind, group, partition, from_ms, to_ms). A piece shorter than `slack_ms` (1 ms
by default) is not counted (a finding's bound is an interval's bound, to the millisecond).
`truth_side(truth, d)` says which side of a disagreement the scenario's truth.json holds with.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

SKEW_MS = 2_000          # replay_rules.settings: clock.skew.tolerance.ms
THRESHOLD_MS = 60_000    # replay_rules.settings: unowned.threshold.ms
OPEN = 1 << 62


def _union(spans, points: bool = False):
    """The spans merged; an empty one (lo == hi) is dropped unless `points` (an interval that
    starts and ends at one line still bounds a gap)."""
    out: list[list[int]] = []
    for lo, hi in sorted(spans):
        if hi < lo or (hi == lo and not points):
            continue
        if out and lo <= out[-1][1]:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(a, b) for a, b in out]


def _minus(spans, cut):
    """The parts of `spans` outside `cut` (both lists of (lo, hi))."""
    cut = _union(cut)
    out = []
    for lo, hi in _union(spans):
        cur = lo
        for a, b in cut:
            if b <= cur or a >= hi:
                continue
            if a > cur:
                out.append((cur, a))
            cur = max(cur, b)
        if cur < hi:
            out.append((cur, hi))
    return out


def _overlap(spans, cut) -> int:
    return sum(hi - lo for lo, hi in _union(spans)) - sum(hi - lo for lo, hi in _minus(spans, cut))


def two_owner_time(rows: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The time when two different members hold the partition at once (rows of one partition).
    Rows without a member are not counted (an owner the table cannot name)."""
    by_member: dict[Any, list[tuple[int, int]]] = defaultdict(list)
    for r in rows:
        if r.get("member_id") is None or r.get("start_ms") is None:
            continue
        end = int(r["end_ms"]) if r.get("end_ms") is not None else OPEN
        by_member[r["member_id"]].append((int(r["start_ms"]), end))
    members = [_union(v) for v in by_member.values()]
    out = []
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            for a, b in members[i]:
                for c, d in members[j]:
                    lo, hi = max(a, c), min(b, d)
                    if hi > lo:
                        out.append((lo, hi))
    return _union(out)


def gaps(rows: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The table's time with no owner between a partition's first interval and its last one's end."""
    spans = _union([(int(r["start_ms"]), int(r["end_ms"]) if r.get("end_ms") is not None else OPEN)
                    for r in rows if r.get("start_ms") is not None], points=True)
    return [(spans[i][1], spans[i + 1][0]) for i in range(len(spans) - 1)]


def idle_spans(generations: list[dict[str, Any]]) -> dict[Any, list[tuple[int, int]]]:
    """group -> when it had no members: a generation of no members (from its start to its end), and
    the time between a generation's end (the group emptied) and the next one's start."""
    out: dict[Any, list[tuple[int, int]]] = defaultdict(list)
    by_group: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for g in generations:
        by_group[g["group_id"]].append(g)

    def start(g):
        return g.get("started_ms") if g.get("started_ms") is not None else g.get("stabilized_ms")

    for gid, gens in by_group.items():
        gens = sorted((g for g in gens if start(g) is not None), key=start)
        for i, g in enumerate(gens):
            end = g.get("ended_ms")
            if not g.get("member_count"):
                out[gid].append((int(start(g)), int(end) if end is not None else OPEN))
            nxt = gens[i + 1] if i + 1 < len(gens) else None
            if end is not None and (nxt is None or start(nxt) > end):
                out[gid].append((int(end), int(start(nxt)) if nxt is not None else OPEN))
    return out


def _load(run_dir: Path, name: str) -> list[dict[str, Any]]:
    from pipeline import rundir

    df = rundir.load_table(run_dir, name)
    if df is None or df.empty:
        return []
    rows = df.astype(object).where(df.notna(), None).to_dict("records")
    return rows


def disagreements(run_dir: Path, skew_ms: int = SKEW_MS, threshold_ms: int = THRESHOLD_MS,
                  slack_ms: int = 1) -> list[tuple[str, Any, str, int, int]]:
    own = _load(run_dir, "ownership")
    fnd = _load(run_dir, "findings")
    gens = _load(run_dir, "generations")
    parts: dict[tuple[Any, str], list[dict[str, Any]]] = defaultdict(list)
    for r in own:
        parts[(r["group_id"], f"{r['topic']}-{r['partition']}" if r.get("partition") is not None
               else str(r["topic"]))].append(r)
    double: dict[tuple[Any, str], list[tuple[int, int]]] = defaultdict(list)
    unowned: dict[tuple[Any, str], list[tuple[int, int]]] = defaultdict(list)
    for f in fnd:
        if f["kind"] not in ("double_ownership", "unowned_partitions") or f.get("start_ms") is None:
            continue
        span = (int(f["start_ms"]), int(f["end_ms"]) if f.get("end_ms") is not None else OPEN)
        for tp in f.get("partitions") if f.get("partitions") is not None else ():
            (double if f["kind"] == "double_ownership" else unowned)[(f["group_id"], tp)].append(span)
    idle = idle_spans(gens)
    out = []

    def add(kind, key, pieces):
        for lo, hi in pieces:
            if hi - lo >= slack_ms:
                out.append((kind, key[0], key[1], lo, hi))

    for key in sorted(set(parts) | set(double) | set(unowned), key=str):
        rows = parts.get(key, [])
        two = two_owner_time(rows)
        add("double_not_in_table", key, _minus(double.get(key, []), two))
        add("double_not_in_findings", key,
            [p for p in _minus([x for x in two if x[1] - x[0] > skew_ms], double.get(key, []))])
        holes = gaps(rows)
        add("unowned_not_in_table", key, _minus(unowned.get(key, []), holes))
        long_ = [(a, b) for a, b in holes if b - a > threshold_ms
                 and 2 * _overlap([(a, b)], idle.get(key[0], [])) < b - a]
        add("unowned_not_in_findings", key, _minus(long_, unowned.get(key, [])))
    return out


# ------------------------------------------------------------------ truth


def truth_intervals(truth: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """partition -> [{member_id, start_ms, end_ms}] of the truth: `ownership` (classic scenarios),
    or the consumer-protocol scenarios' `member_history` (pipeline/generator/kip848.py: each
    `stable` event's `owned` set is held from that event to the member's next `stable` event or
    its `rejoined` (a fenced member's owned set is cleared when its lost callback returns, just
    before it rejoins: AbstractMembershipManager.transitionToFenced), else to the end)."""
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if truth.get("ownership"):
        for tp, ivs in truth["ownership"].items():
            for iv in ivs:
                out[tp].append({"member_id": iv["member_id"], "start_ms": iv["from_ms"], "end_ms": iv["to_ms"]})
        return out
    for mid, hist in (truth.get("member_history") or {}).items():
        held: dict[str, int] = {}
        for ev in sorted(hist, key=lambda e: e["ms"]):
            if ev.get("event") not in ("stable", "rejoined"):
                continue
            now = set(ev.get("owned") or ())
            for tp in list(held):
                if tp not in now:
                    out[tp].append({"member_id": mid, "start_ms": held.pop(tp), "end_ms": ev["ms"]})
            for tp in now:
                held.setdefault(tp, ev["ms"])
        for tp, s in held.items():
            out[tp].append({"member_id": mid, "start_ms": s, "end_ms": None})
    return out


def truth_side(truth: dict[str, Any], d: tuple[str, Any, str, int, int], tol_ms: int) -> str:
    """Which view of a disagreement the truth holds with: "finding" or "table" (or "neither", when
    the truth shows only part of the piece either way, beyond `tol_ms` at each end)."""
    kind, _g, tp, lo, hi = d
    ivs = truth_intervals(truth).get(tp, [])
    truth_spans = two_owner_time(ivs) if kind.startswith("double") else gaps(ivs)
    # (the piece, shrunk by the clocks' tolerance at each end)
    piece = [(lo + tol_ms, hi - tol_ms)] if hi - lo > 2 * tol_ms else []
    if not piece:
        return "clocks"   # (too short for the truth to tell, given the hosts' clocks)
    inside = _overlap(piece, truth_spans)
    whole = piece[0][1] - piece[0][0]
    says_true = inside == whole   # the truth has the double ownership / the gap over the whole piece
    says_false = inside == 0
    claim_by_finding = kind.endswith("not_in_table")
    if says_true:
        return "finding" if claim_by_finding else "table"
    if says_false:
        return "table" if claim_by_finding else "finding"
    return "neither"


def truth_tolerance(truth: dict[str, Any]) -> int:
    return max((abs(h.get("clock_skew_ms") or 0) for h in (truth.get("hosts") or {}).values()), default=0) + 50


def load_truth(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "truth.json").read_text())


# ------------------------------------------------------------------ the runs measured


def variants(scenario: str) -> list[tuple[str, Any]]:
    """(name, change for tests.report.pure_run.write_pure_run) of the runs measured for a scenario:
    every file; each client log left out; each client log alone with the broker logs."""
    truth = load_truth(SAMPLES / scenario)
    clients = sorted(n for n, what in truth["files"].items() if what.startswith("client"))
    brokers = sorted(n for n, what in truth["files"].items() if what.startswith("broker"))
    out: list[tuple[str, Any]] = [("all", None)]
    for n in clients:
        out.append((f"without {n}", lambda fs, n=n: {k: v for k, v in fs.items() if k != n}))
    for n in clients:
        keep = {n, *brokers}
        out.append((f"only {n} + broker", lambda fs, keep=keep: {k: v for k, v in fs.items() if k in keep}))
    return out


SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"


def measure(tmp: Path, scenarios: list[str] | None = None) -> list[dict[str, Any]]:
    """Every variant of every scenario: its disagreements, each with the truth's side."""
    from tests.report.pure_run import write_pure_run

    rows = []
    for scenario in scenarios or sorted(p.parent.name for p in SAMPLES.glob("*/truth.json")):
        truth = load_truth(SAMPLES / scenario)
        tol = truth_tolerance(truth)
        for i, (name, change) in enumerate(variants(scenario)):
            run = write_pure_run(tmp / f"{scenario}-{i}", scenario, change)
            for d in disagreements(run):
                rows.append({"scenario": scenario, "variant": name, "kind": d[0], "partition": d[2],
                             "from_s": round((d[3] - truth["start_ms"]) / 1000, 3),
                             "to_s": round((d[4] - truth["start_ms"]) / 1000, 3) if d[4] < OPEN else None,
                             "truth": truth_side(truth, d, tol)})
    return rows


if __name__ == "__main__":   # PYTHONPATH=. python -m tests.ownership_agreement [SCENARIO ...]
    import sys
    import tempfile
    from collections import Counter

    with tempfile.TemporaryDirectory() as d:
        got = measure(Path(d), sys.argv[1:] or None)
    for r in got:
        print(json.dumps(r))
    print(Counter((r["kind"], r["truth"]) for r in got))
    print(Counter(r["scenario"] for r in got))
    print("total", len(got))
