"""A request or the group leader's computation is not a result (session 21, branch pastes6): the DEBUG
"Fetching committed offsets for partitions: {}" (ConsumerCoordinator 0.9+) is the OffsetFetch request, not a
fetched offset; "Performing assignment using strategy {} with subscriptions {}" (1.0+) is the leader starting
to compute, no assignment received. The replay's offset history holds only the committed offset the consumer
resumed from ("Setting offset for partition {} to the committed offset {}"), and the member's generation is
the same as before (the request lines still count as its sign of life). Fails on main at 888ef68 (the request
was an offset_fetched row without an offset)."""

from __future__ import annotations

from parsers.reader import parse_lines
from pipeline.replay import replay_group

P = "[Consumer clientId=consumer-tills-1, groupId=tills] "
AC = "org.apache.kafka.clients.consumer.internals.AbstractCoordinator"
CC = "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator"
M = "consumer-tills-1-7e6d5c4b-3a29-4180-9f8e-7d6c5b4a3921"


def _line(ts: str, lvl: str, msg: str, logger: str) -> str:
    return f"[2025-02-03 04:05:{ts}] {lvl} {P}{msg} ({logger})"


def test_a_fetch_request_and_the_leaders_computation_are_no_results():
    lines = [
        _line("00,000", "INFO", "(Re-)joining group", AC),
        _line("03,000", "INFO", f"Successfully joined group with generation Generation{{generationId=4, memberId='{M}', protocol='range'}}", AC),
        _line("03,001", "DEBUG", f"Performing assignment using strategy range with subscriptions {{{M}=Subscription(topics=[tills])}}", CC),
        _line("03,050", "INFO", f"Successfully synced group in generation Generation{{generationId=4, memberId='{M}', protocol='range'}}", AC),
        _line("03,051", "INFO", "Adding newly assigned partitions: tills-0", CC),
        _line("03,052", "DEBUG", "Fetching committed offsets for partitions: [tills-0]", CC),
        _line("03,070", "INFO", "Setting offset for partition tills-0 to the committed offset FetchPosition{offset=812, "
              "offsetEpoch=Optional.empty, currentLeader=LeaderAndEpoch{leader=Optional[k1:9092 (id: 1 rack: null)], epoch=0}}", CC),
    ]
    events = [o.event for o in parse_lines("app.log", list(enumerate(lines, 1))) if o.event is not None]
    assert [e.kind for e in events] == ["join_started", "join_succeeded", "assignment_started", "sync_succeeded",
                                        "partitions_assigned", "offset_fetch_sent", "offset_fetched"]
    r = replay_group(events)
    history = [(row[0], row[2], row[3], row[4]) for row in r.state.offsets]
    assert history == [("offset_fetched", "tills", 0, 812)]
    assert [(m["generation"], m["member_id"]) for m in r.memberships] == [(4, M)]
