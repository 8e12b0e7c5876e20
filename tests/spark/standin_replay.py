"""A tiny stand-in with the `pipeline.replay.replay_group_frame` contract, for these tests only:
one generation row per broker `Stabilized` line (or consumer join when no broker line), one
membership per consumer join, no findings except a `test_marker` finding per group."""

from __future__ import annotations

import pandas as pd

from pipeline import schemas


def replay_group_frame(pdf: pd.DataFrame) -> dict[str, pd.DataFrame]:
    group = pdf["group_id"].iat[0]
    gens: dict[int, dict] = {}
    members = []
    for r in pdf.itertuples(index=False):
        if r.kind in ("broker_group_stabilized", "join_succeeded") and r.generation == r.generation:
            g = int(r.generation)
            row = gens.setdefault(g, {"group_id": group, "generation": g, "members": [], "evidence": [],
                                      "stabilized_ms": int(r.ts_ms), "inferred": r.kind != "broker_group_stabilized"})
            row["evidence"].append(f"{r.source}:{r.line_no}")
            if r.kind == "join_succeeded":
                row["members"].append(r.member_id)
                members.append({"group_id": group, "generation": g, "member_id": r.member_id,
                                "client_id": r.client_id, "joined_ms": int(r.ts_ms),
                                "evidence": [f"{r.source}:{r.line_no}"]})
    for row in gens.values():
        row["members"] = sorted(set(row["members"]))
        row["member_count"] = len(row["members"])
    findings = [{"finding_id": f"{group}-1", "kind": "test_marker", "severity": "info", "group_id": group,
                 "title": "marker", "explanation": "stand-in", "evidence": []}]
    return {
        "generations": pd.DataFrame(list(gens.values()), columns=schemas.columns("generations")),
        "memberships": pd.DataFrame(members, columns=schemas.columns("memberships")),
        "ownership": pd.DataFrame([], columns=schemas.columns("ownership")),
        "findings": pd.DataFrame(findings, columns=schemas.columns("findings")),
    }
