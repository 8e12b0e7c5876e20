"""JSON text written by orjson (C) where it is exactly what `json.dumps` writes, by json.dumps otherwise.

orjson writes most values as json.dumps(ensure_ascii=False) does (same separators with or without
`indent=2`, same string escapes, same integers and most floats); it differs on a few, which are
detected first and left to json.dumps:
* floats: NaN/Infinity (orjson: null) and magnitudes in (0, 1e-4) (json: 2.5e-05, orjson: 0.000025);
* types json.dumps hands to `default` but orjson writes itself (dataclasses, datetimes, enums,
  UUIDs, float subclasses such as numpy.float64): for documents, only exact JSON types take the fast
  path (`plain_json`); for events, orjson is called without `default` and refuses what it cannot
  write, which also falls back;
* what orjson refuses: integers beyond 64 bits, non-string keys, lone surrogates;
* ensure_ascii=True (json.dumps's default): orjson writes UTF-8; its text is kept only when ASCII.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import orjson

_SCALARS = frozenset((str, int, bool, type(None)))


def floats_alike(value: Any) -> bool:
    """False when `value` holds a float that orjson writes otherwise than json.dumps (NaN, Infinity,
    a magnitude in (0, 1e-4)); containers (dict, list, tuple) are searched."""
    if isinstance(value, float):
        return math.isfinite(value) and (value == 0.0 or abs(value) >= 1e-4)
    if isinstance(value, dict):
        return all(floats_alike(v) for v in value.values())
    if isinstance(value, list | tuple):
        return all(floats_alike(v) for v in value)
    return True


def plain_json(value: Any) -> bool:
    """True when `value` is made of exact JSON types only (str, int, bool, None, float, dict with
    string keys, list, tuple) and orjson writes every float of it as json.dumps does."""
    t = type(value)
    if t in _SCALARS:
        return True
    if t is float:
        return math.isfinite(value) and (value == 0.0 or abs(value) >= 1e-4)
    if t is dict:
        return all(type(k) is str and plain_json(v) for k, v in value.items())
    if t is list or t is tuple:
        return all(plain_json(v) for v in value)
    return False


def dumps(value: Any, *, indent: int | None = None, ensure_ascii: bool = True,
          default: Callable[[Any], Any] | None = None) -> str:
    """`json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, default=default)`, the same text;
    written by orjson for documents (indent=2) when that gives the same text."""
    if indent == 2 and plain_json(value):
        try:
            text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")
        except (orjson.JSONEncodeError, TypeError):  # an int beyond 64 bits, a lone surrogate
            text = None
        if text is not None and (not ensure_ascii or text.isascii()):
            return text
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, default=default)


__all__ = ["dumps", "floats_alike", "plain_json"]
