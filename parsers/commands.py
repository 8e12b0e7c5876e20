"""Shell command lines pasted above a dump or a describe table.

The dump and describe sniffers take the command that produced the output as proof of its format
("$ kubectl exec ... kafka-dump-log.sh --offsets-decoder", "$ kafka-consumer-groups ... --describe").
The same words in other text (a README or a TSV describing such files) prove nothing, so a line
counts only when it reads as a command: after an optional prompt ("$ ", "user@host:~$ ",
"[root@host x]# ", "C:\\kafka>") its first word runs a Kafka tool or a wrapper around one.
"""

from __future__ import annotations

import re

from parsers.build_cache import compile_regex

_COMMAND = compile_regex(
    r"^\s*(?:(?:\[[^\]\t]{0,80}\]|[^\s\"']{0,80})?[$#%>]\s*)?"      # the prompt, if any
    r"(?:\S*kafka\S*|docker(?:-compose)?|kubectl|podman|oc|sudo|ssh)\s",  # the first word
    re.IGNORECASE)


def is_command(line: str) -> bool:
    """Whether `line` reads as a shell command running a Kafka tool (see the module docstring)."""
    return _COMMAND.match(line) is not None
