"""Inventory of Kafka's group-coordinator tests against our KIP-848 conformance cases.

Lists the test methods of the consumer-protocol test classes at apache/kafka trunk 1eb7644349cb (the FORMAT-KIP848
commit) and sorts each into: covered by a case (its name is some case's `source.method`), expressible in the
format but not covered, or not expressible (with the reason). Writes docs/kip848-inventory.md.

Needs a git directory of apache/kafka holding that commit:
    python scripts/kip848_inventory.py /path/to/kafka.git
Only method names and our own classification are written (no Kafka code or prose).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMIT = "1eb7644349cb07139d6a3c1ad1986979647cac99"
TEST = "group-coordinator/src/test/java/org/apache/kafka/coordinator/group/"
CLASSES = {
    "GroupMetadataManagerTest": TEST + "GroupMetadataManagerTest.java",
    "OffsetMetadataManagerTest": TEST + "OffsetMetadataManagerTest.java",
    "ConsumerGroupTest": TEST + "modern/consumer/ConsumerGroupTest.java",
    "ConsumerGroupMemberTest": TEST + "modern/consumer/ConsumerGroupMemberTest.java",
    "CurrentAssignmentBuilderTest": TEST + "modern/consumer/CurrentAssignmentBuilderTest.java",
    "TargetAssignmentBuilderTest": TEST + "modern/TargetAssignmentBuilderTest.java",
    "AssignmentTest": TEST + "modern/AssignmentTest.java",
    "RangeAssignorTest": TEST + "assignor/RangeAssignorTest.java",
    "OptimizedUniformAssignmentBuilderTest": TEST + "assignor/OptimizedUniformAssignmentBuilderTest.java",
    "UniformHeterogeneousAssignmentBuilderTest": TEST + "assignor/UniformHeterogeneousAssignmentBuilderTest.java",
    "GroupSpecImplTest": TEST + "assignor/GroupSpecImplTest.java",
}
CASE_FILES = sorted((ROOT / "tests" / "coordinator" / "data").glob("kip848-*.json"))

# (regex on the method name, reason) for methods the format cannot express; first match wins
NOT_EXPRESSIBLE = [
    (r"Share|share", "share groups (KIP-932) are not in the format"),
    (r"ClassicGroup.*ToConsumer|ToClassicGroup|LastConsumerProtocolMember|LastStaticConsumerProtocolMember|"
     r"JoiningConsumerGroup|StaticMemberJoiningConsumerGroup|ReconciliationInJoiningConsumerGroup|"
     r"ConsumerGroupMemberUsingClassicProtocol|ClassicGroupLeaveToConsumerGroup|NoConversionWhenSize|"
     r"ConsumerGroupHeartbeatWith(Stable|PreparingRebalance|CompletingRebalance)ClassicGroup|"
     r"ClassicGroupJoinWithEmptyConsumerGroup|FromClassicGroup|ClassicMembersSupportedProtocols|"
     r"NumClassicProtocolMembers|CreateGroupTombstoneRecordsWithReplacedMember|ClassicProtocolList",
     "online migration between classic and consumer groups: no classic JoinGroup/SyncGroup op, seed_classic has "
     "no members, migration policy disabled"),
    (r"Replay|OnLoaded|onLoaded|Unloaded", "loading/replaying single records: a seed is a builder without timers"),
    (r"Describe|ListGroups|AsListedGroup|AsDescribedGroup|Delete|MaybeDelete|OffsetFetch|FetchOffsets|"
     r"FetchAllOffsets|ValidateOffsetFetch|ValidateDeleteGroup|Expir|CleanupExpired|OnPartitionsDeleted",
     "no op for describe, list, delete, fetch or offset expiry"),
    (r"Sensor|Metric|StateTransition|IsInStatesCaseInsensitive|GroupTypeFromString|UpdateClassicGroupSizeCounter",
     "metrics and internal state names are not observable"),
    (r"Transactional|TransactionEnd|PendingTransactional", "transactional offset commits are not in the format"),
    (r"MetadataTooLarge|RetentionTime", "commit metadata size / retention are not in the format"),
    (r"GenerateRecordsOnNewClassicGroup|AppendErrorConversion|FailingToPersist|PersistenceFailure|"
     r"AppendFailure|WriteFailure", "storage failures are not in the format"),
    (r"GroupIdsByTopics|UpdateInvertedAssignment|RemovePartitionEpochs|AddPartitionEpochs|"
     r"WaitingOnUnreleasedPartition|IsSubscribedToTopic|UpdatingMemberUpdatesPartitionEpochWhenPartitionIsNotReleased",
     "internal indexes and consistency checks (IllegalStateException) with no request-level effect of their own"),
    (r"^testEquals$|^testAttributes$|PartitionsCannotBeNull|FromTargetAssignmentRecord|^testFromRecord$|"
     r"CannotBeNull|^testMemberIds$|^testSubscriptionType$|^testIsPartitionAssigned$|^testMemberSubscription$|"
     r"^testMemberAssignment$|UpdateWithConsumerGroup|CreateMemberSubscriptionSpecImpl|^testEmpty$",
     "data-class plumbing (equals, builders, record conversion, spec objects)"),
    (r"JoinGroup|SyncGroup|Heartbeat(Unknown|Dead|Empty|During|Illegal|Expiration)|ValidHeartbeat|LeaveGroup|"
     r"LeaveDeadGroup|ValidLeaveGroup|StaticMember(Rejoin|Fence|Sync|Heartbeat|Follower|Leader|JoinAs|JoinWith|"
     r"ReJoin)|ReplaceStaticMemberIn|NewMember(Join|Timeout|Failure)|Rebalance(Completes|TimesOut|DoesNot)|"
     r"DelayInitialRebalance|ResetRebalanceDelay|DelayRebalanceUpto|CompleteJoin|GenerationIdIncrements|"
     r"ClassicGroupMember|SecondMemberPartiallyJoin|PendingMember|JoinedMemberPendingMember|StaticMembers(Valid|"
     r"Leave|Fenced|Unknown)|MembersJoinGroupWithMaxSize|LastJoiningMembersAreKickedOut|GroupStuckInRebalance|"
     r"GetDifferentStaticMemberId|GenericGroup|ClassicGroupDelete|ClassicGroupMaybeDelete|DescribeGroup|"
     r"LeaderFailureInSyncGroup|ClassicGroupJoinInconsistentProtocolType|MaxSizeWhileRebalancing|JoinDeadGroup",
     "classic protocol (JoinGroup/SyncGroup/Heartbeat/LeaveGroup of a classic group): FORMAT-AND-RULES.md's "
     "domain, not this format's"),
]


def methods(git_dir: str, path: str) -> list[str]:
    src = subprocess.run(["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"], capture_output=True, text=True,
                         check=True).stdout
    return re.findall(r"@(?:Test|ParameterizedTest)[^\n]*\n(?:\s*@[^\n]*\n)*\s*(?:public\s+)?void\s+(\w+)\s*\(", src)


def covered_methods() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in CASE_FILES:
        for case in json.loads(f.read_text()):
            for m in re.split(r"[,+/ ]+", str(case.get("source", {}).get("method", ""))):
                if m:
                    out.setdefault(m, []).append(f.name)
    return out


def classify(name: str, covered: dict[str, list[str]]) -> tuple[str, str]:
    if name in covered:
        return "covered", ", ".join(sorted(set(covered[name])))
    for pattern, reason in NOT_EXPRESSIBLE:
        if re.search(pattern, name):
            return "not expressible", reason
    return "expressible, not covered", ""


def main() -> None:
    git_dir = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/apache+kafka/repo"
    covered = covered_methods()
    lines = ["# KIP-848 conformance: inventory of Kafka's tests", "",
             f"Generated by `scripts/kip848_inventory.py` from apache/kafka `{COMMIT[:12]}` (the FORMAT-KIP848 commit) "
             "and `tests/coordinator/data/kip848-*.json`. A method is *covered* when some case names it in "
             "`source.method`; the reasons for *not expressible* are the format's limits (docs/coordinator.md).", "",
             "| test class | methods | covered | expressible, not covered | not expressible |", "|---|---|---|---|---|"]
    detail: list[str] = []
    totals = [0, 0, 0, 0]
    for cls, path in CLASSES.items():
        ms = methods(git_dir, path)
        rows = [(m, *classify(m, covered)) for m in ms]
        n_cov = sum(r[1] == "covered" for r in rows)
        n_exp = sum(r[1] == "expressible, not covered" for r in rows)
        n_not = sum(r[1] == "not expressible" for r in rows)
        totals = [totals[0] + len(ms), totals[1] + n_cov, totals[2] + n_exp, totals[3] + n_not]
        lines.append(f"| {cls} | {len(ms)} | {n_cov} | {n_exp} | {n_not} |")
        detail += ["", f"## {cls}", "", "| method | status | where / why |", "|---|---|---|"]
        detail += [f"| `{m}` | {st} | {why} |" for m, st, why in rows]
    lines.append(f"| **all** | {totals[0]} | {totals[1]} | {totals[2]} | {totals[3]} |")
    out = ROOT / "docs" / "kip848-inventory.md"
    out.write_text("\n".join(lines + detail) + "\n")
    print(f"{out}: {totals[0]} methods, {totals[1]} covered, {totals[2]} expressible not covered, "
          f"{totals[3]} not expressible")


if __name__ == "__main__":
    main()
