"""manifest.json of a run: inputs, exact line accounting, rejects, timings, versions.

Everything here is small: one entry per input file and per reject reason; counts come from Spark
aggregates, never from collecting a table.
"""

from __future__ import annotations

import platform
import sys
import time
from typing import Any

from pipeline import __version__


def _levels(steps: tuple[int, tuple[Any, ...]] | None) -> list[dict[str, int]] | None:
    return None if steps is None else [
        {"from_line": 1, "offset_ms": steps[0]},
        *({"after_line": s.after_line, "from_line": s.first_line, "offset_ms": s.offset_ms} for s in steps[1])]


def origin_clocks(source: str, offsets: dict[str, int], steps: dict[str, tuple[int, tuple[Any, ...]]]
                  ) -> list[dict[str, Any]] | None:
    """The corrected clocks of a file measured per origin (a file merging several processes' lines:
    pipeline.timeline_facts.clock_resolver), one entry per origin whose times were corrected:
    {"origin" (null: its lines naming none), "clock_offset_ms", "clock_steps"}; None for a file
    measured as one clock (its correction is the entry's own clock_offset_ms / clock_steps)."""
    from pipeline.timeline_facts import key_parts

    mine = sorted({k for k in (*offsets, *steps) if key_parts(k)[0] == source and key_parts(k)[2]},
                  key=lambda k: (key_parts(k)[1] is not None, key_parts(k)[1] or ""))
    if not mine:
        return None
    return [{"origin": key_parts(k)[1], "clock_offset_ms": None if k in steps else offsets.get(k),
             "clock_steps": _levels(steps.get(k))} for k in mine]


def file_entry(f, counts: dict[str, int] | None, offset_ms: int | None,
               steps: tuple[int, tuple[Any, ...]] | None = None,
               origins: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One input file's entry; a file whose clock was stepped while it logged has no one offset
    (`clock_offset_ms` null) and its levels in `clock_steps` (timeline_facts.clock_steps); a file
    merging several processes' lines measured per origin has neither, and its corrected origins'
    clocks in `clock_origins` (origin_clocks)."""
    if f.duplicate_of:
        status = "duplicate"
    elif f.kind == "empty":
        status = "empty"
    elif f.kind in ("binary", "document", "skipped"):
        status = "rejected"
    else:
        status = "read"
    c = counts or {}
    return {
        "source": f.source, "uri": f.uri, "size_bytes": f.size, "gzip": f.compression == "gzip", "compression": f.compression, "kind": f.kind, "layout": f.layout,
        "wrappers": list(f.wrappers),
        "status": status, "duplicate_of": f.duplicate_of, "problems": list(f.problems),
        "lines_read": int(c.get("lines_read", 0)), "parsed": int(c.get("parsed", 0)),
        "ignored": int(c.get("ignored", 0)), "unparsed": int(c.get("unparsed", 0)),
        "candidates": int(c.get("candidates", 0)), "clock_offset_ms": offset_ms,
        "clock_steps": _levels(steps), "clock_origins": origins,
    }


def accounting(entries: list[dict[str, Any]]) -> dict[str, Any]:
    tot = {k: sum(e[k] for e in entries) for k in ("lines_read", "parsed", "ignored", "unparsed", "candidates")}
    bad = [e["source"] for e in entries if e["lines_read"] != e["parsed"] + e["ignored"] + e["unparsed"]]
    tot["adds_up"] = not bad and tot["lines_read"] == tot["parsed"] + tot["ignored"] + tot["unparsed"]
    tot["mismatched_files"] = bad
    for status in ("read", "duplicate", "empty", "rejected"):
        tot[f"files_{status}"] = sum(1 for e in entries if e["status"] == status)
    return tot


def build(*, argv: list[str], master: str, spark_version: str, java_version: int | None, entries: list[dict[str, Any]],
          unparsed_reasons: dict[str, int], scope: dict[str, Any], tables: dict[str, int], timings: dict[str, float],
          warnings: list[str], summary: dict[str, Any], run_dir: str,
          candidate_filter: str | None = None) -> dict[str, Any]:
    rejects = [{"source": e["source"], "reason": "; ".join(e["problems"]) or e["status"]}
               for e in entries if e["status"] in ("rejected",)]
    rejects += [{"source": e["source"], "reason": f"duplicate of {e['duplicate_of']} (identical content; read once)"}
                for e in entries if e["status"] == "duplicate"]
    return {
        "tool": "coordscope ingest",
        "versions": {"coordscope": __version__, "spark": spark_version, "java": java_version,
                     "python": platform.python_version()},
        "created_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": argv or sys.argv,
        "master": master,
        "run_dir": run_dir,
        "inputs": entries,
        "accounting": accounting(entries),
        "rejects": rejects,
        "unparsed_reasons": unparsed_reasons,
        "scope": scope,
        "tables": tables,
        "timings_s": timings,
        "candidate_filter": candidate_filter,    # "java" (pipeline/spark/jvm.py) or "rlike" (slow fallback)
        "warnings": warnings,
        "summary": summary,
    }
