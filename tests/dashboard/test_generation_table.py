"""The group page's generations table says "unknown" where the logs cannot prove a member count
or a leader (one member's log of a bigger group), instead of a blank cell or a wrong number."""

from __future__ import annotations

import pytest

from dashboard.pages import group
from tests.dashboard.rundirs import PAY

pytestmark = pytest.mark.filterwarnings(r"ignore:\s*The dash_table.DataTable:DeprecationWarning")


def _table(component, table_id: str):
    if getattr(component, "id", None) == table_id:
        return component
    kids = getattr(component, "children", None)
    for kid in kids if isinstance(kids, list | tuple) else [kids]:
        if kid is not None and not isinstance(kid, str | int | float):
            found = _table(kid, table_id)
            if found is not None:
                return found
    return None


def test_unknown_member_count_and_leader_are_said_to_be_unknown(small_data, monkeypatch):
    phases = small_data.generation_phases(PAY)
    unknown = phases.copy()
    first = unknown.index[0]
    unknown["member_count"] = unknown["member_count"].astype("float")
    unknown.loc[first, ["member_count", "leader"]] = [None, None]
    monkeypatch.setattr(small_data, "generation_phases", lambda g: unknown if g == PAY else phases)
    table = _table(group.layout(small_data, {"group": PAY}), "group-generations")
    count = next(c for c in table.columns if c["id"] == "member_count")
    assert count["type"] == "numeric" and count["format"].to_plotly_json()["nully"] == "unknown"
    rows = {r["generation"]: r for r in table.data}
    gen = int(unknown.loc[first, "generation"])
    assert rows[gen]["member_count"] is None and rows[gen]["leader"] == "unknown"
    # the other generations keep their numbers and leaders
    known = [r for g, r in rows.items() if g != gen]
    assert known and all(r["member_count"] is not None and r["leader"] not in ("unknown", "") for r in known)
