"""Every game's rules object from its JSON form (a replay's or a hello's `rules`): the checks
that its keys are the rules' fields, which each game's `from_dict` makes alike."""

from __future__ import annotations

from dataclasses import fields
from typing import Any


def rules_values(cls: type, data: Any, *, unknown_allowed: bool = False) -> dict[str, Any]:
    """The values of `data` (a JSON object) for each field of the dataclass `cls`; ValueError
    when it is not an object, lacks a field, or (unless `unknown_allowed`) has other keys."""
    if not isinstance(data, dict):
        raise ValueError("rules must be a JSON object")
    names = [f.name for f in fields(cls)]
    missing = set(names) - data.keys()
    if missing:
        raise ValueError(f"rules lack {', '.join(sorted(missing))}")
    extra = data.keys() - set(names)
    if extra and not unknown_allowed:
        raise ValueError(f"unknown rules {', '.join(sorted(extra))}")
    return {name: data[name] for name in names}
