"""Classic group states and their allowed transitions, as data.

Mirrors kafka.coordinator.group.GroupState.validPreviousStates (GroupMetadata.scala, 3.8.0) and
org.apache.kafka.coordinator.group.classic.ClassicGroupState (trunk 2024-10-25); both agree.
"""

from __future__ import annotations

EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
STABLE = "Stable"
DEAD = "Dead"

ALL_STATES: tuple[str, ...] = (EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD)

# target state -> states it may be entered from (GroupState.validPreviousStates)
VALID_PREVIOUS_STATES: dict[str, frozenset[str]] = {
    PREPARING_REBALANCE: frozenset({STABLE, COMPLETING_REBALANCE, EMPTY}),
    COMPLETING_REBALANCE: frozenset({PREPARING_REBALANCE}),
    STABLE: frozenset({COMPLETING_REBALANCE}),
    DEAD: frozenset({STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD}),
    EMPTY: frozenset({PREPARING_REBALANCE}),
}


class IllegalStateTransition(RuntimeError):
    """A transition Kafka's assertValidTransition would reject: a bug in the model, never user input."""


def check_transition(current: str, target: str) -> None:
    """GroupMetadata.assertValidTransition (Scala 3.8.0) / ClassicGroup.assertValidTransition (Java)."""
    if current not in VALID_PREVIOUS_STATES[target]:
        raise IllegalStateTransition(f"group cannot transition from {current} to {target}")


def can_rebalance(state: str) -> bool:
    """GroupMetadata.canRebalance: PreparingRebalance may be entered from the current state."""
    return state in VALID_PREVIOUS_STATES[PREPARING_REBALANCE]
