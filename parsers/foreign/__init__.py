"""Consumer-group lines of clients that are not Java: librdkafka (and its bindings), KafkaJS,
kafka-python and aiokafka (issue 22).

`parse_line(line, logger, state)` offers one line to each client's parser and returns the first
answer: a `Match` (an event of the shared vocabulary, `client_library` set), `IGNORE` (a known line
of such a client with no event), `UNRECOGNISED` (a coordinator line of such a client that no rule
knows: the reader keeps it as unparsed) or None (not a line of these clients). The reader offers it
only the lines no Java rule took. `state` is a small dict per input file (library versions seen,
which Python client the file's logger names showed). Client defaults per version:
parsers/foreign/defaults.py.
"""

from __future__ import annotations

from typing import Any

from parsers.foreign import kafkajs, librdkafka, pyclients
from parsers.foreign.common import IGNORE, UNRECOGNISED

__all__ = ["CANDIDATE_WORDS", "IGNORE", "UNRECOGNISED", "claims", "parse_line"]

_RD_GATE = ("#consumer-", "[thrd:", "fac", "Application maximum poll interval", "JoinGroup failed: ", "response error: ")
_JS_GATE = ("kafkajs", "[ConsumerGroup]", "[Consumer]", "[Runner]", "[Connection]", "[Cluster]")


_CLAIM_WORDS = ("TopicPartition(", "[thrd:", "#consumer-", '"logger":"kafkajs"')
_CLAIMED_LOGGERS: dict[str, bool] = {}


def claims(line: str, logger: str | None) -> bool:
    """Is this line surely a non-Java client's, even where a Java rule reads its words? (its logger
    is a kafka-python/aiokafka module, or it shows a Python TopicPartition repr, librdkafka's
    instance name or thread prefix, or KafkaJS's logger field)"""
    if logger:
        known = _CLAIMED_LOGGERS.get(logger)
        if known is None:
            known = pyclients.is_client_logger(logger)
            if len(_CLAIMED_LOGGERS) < 4096:
                _CLAIMED_LOGGERS[logger] = known
        if known:
            return True
    return any(w in line for w in _CLAIM_WORDS)


def parse_line(line: str, logger: str | None = None, state: dict[str, Any] | None = None) -> Any:
    if any(w in line for w in _RD_GATE):
        res = librdkafka.parse(line, state)
        if res is not None:
            return res
    if any(w in line for w in _JS_GATE):
        res = kafkajs.parse(line, state)
        if res is not None:
            return res
    return pyclients.parse(line, logger, state)


CANDIDATE_WORDS: tuple[str, ...] = tuple(sorted(set(librdkafka.CANDIDATE_WORDS) | set(kafkajs.CANDIDATE_WORDS)
                                                | set(pyclients.CANDIDATE_WORDS)))
