"""replay_stage.replay_output without a JVM: the replay's rows become one Arrow table with a typed
struct column per replay table (what applyInArrow hands back to Spark)."""

from __future__ import annotations

import pyarrow as pa

from pipeline import schemas
from pipeline.spark import replay_stage


def _row(table: str, **values):
    return {name: values.get(name) for name in schemas.columns(table)}


def test_each_row_fills_its_own_table_column_with_the_schema_types():
    gen = _row("generations", group_id="g", generation=3, members=["m1", "m2"], member_count=2, inferred=False,
               started_ms=1_700_000_000_000, evidence=["a.log:4"])
    mem = _row("memberships", group_id="g", generation=3, member_id="m1", is_leader=True, assigned=["t-0"])
    fin = _row("findings", finding_id="f1", kind="rebalance_storm", severity="high", group_id="g")
    out = replay_stage.replay_output({"generations": [gen], "memberships": [mem], "ownership": [], "findings": [fin]})
    assert out.column_names == list(replay_stage.REPLAY_TABLES) and out.num_rows == 3
    assert out.schema.field("generations").type == pa.struct(list(schemas.arrow_schema("generations")))
    cols = {t: out.column(t).to_pylist() for t in replay_stage.REPLAY_TABLES}
    assert cols["generations"] == [gen, None, None]
    assert cols["memberships"] == [None, mem, None]
    assert cols["ownership"] == [None, None, None]
    assert cols["findings"] == [None, None, fin]


def test_values_of_another_type_are_made_the_schema_type():
    """What `json.dumps(default=str)` did for the JSON payloads: a non-string in a string list
    becomes its text, an int-like value an int."""
    own = _row("ownership", group_id="g", topic="t", partition=True, start_ms=5, evidence=["a.log:1", 7])
    out = replay_stage.replay_output({"ownership": [own]})
    got = out.column("ownership").to_pylist()[0]
    assert got["evidence"] == ["a.log:1", "7"] and got["partition"] == 1 and got["start_ms"] == 5


def test_no_rows_gives_an_empty_table_of_the_same_schema():
    out = replay_stage.replay_output({})
    assert out.num_rows == 0 and out.column_names == list(replay_stage.REPLAY_TABLES)
