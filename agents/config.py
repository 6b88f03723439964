"""What the training and balance configs share: a YAML reader that refuses what may cost more than
the file's size, pydantic's strict field types and its validation errors turned into one (dotted
key, reason) line per problem, so a file's every problem is reported at once, each named where it
sits ("ppo.gamma", "forbid[0]")."""
from __future__ import annotations

from typing import Annotated, Any, get_args

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, StrictFloat, StrictInt, ValidationError


MAX_CONFIG_BYTES = 1_000_000


class _NoAliases(yaml.SafeLoader):
    """PyYAML's safe loader without anchors and aliases: an alias repeats a whole node, so a few hundred
    bytes of nested aliases expand to gigabytes (and a key that is one aborts the interpreter). No
    config needs them."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.composer.ComposerError(None, None, "anchors and aliases (&name, *name) are not allowed in "
                                              "a config", event.start_mark)
        return super().compose_node(parent, index)


def read_yaml(text: str):
    """The YAML `text` parsed (yaml.YAMLError naming the line if it is not YAML, holds an anchor or alias,
    or is over MAX_CONFIG_BYTES)."""
    if len(text) > MAX_CONFIG_BYTES:
        raise yaml.YAMLError(f"{len(text)} characters, more than a config may hold ({MAX_CONFIG_BYTES})")
    try:
        return yaml.load(text, Loader=_NoAliases)  # noqa: S506 (a SafeLoader)
    except RecursionError:
        raise yaml.YAMLError("nested too deeply") from None


def yaml_problem(err: yaml.YAMLError) -> str:
    """A YAML error on one line: its problem and where."""
    mark = getattr(err, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
    return f"{getattr(err, 'problem', None) or err}{where}"


class Section(BaseModel):
    """A config table: unknown keys are errors, ints are not bools, values are checked when set."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def _yaml_float(value):
    """YAML 1.1 reads 3e-4 (no dot) as a string; take it as the number it is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            pass
    return value


Int = StrictInt
Float = Annotated[StrictFloat, BeforeValidator(_yaml_float)]


def problems(err: ValidationError, data: Any, model: type[BaseModel]) -> list[tuple[str, str]]:
    """(key, reason) per error: list positions as [i], unknown keys with the known ones."""
    out = []
    for e in err.errors(include_url=False):
        key, node = "", data
        for part in e["loc"]:
            if isinstance(node, list) and isinstance(part, int):
                key += f"[{part}]"
            else:
                key += f".{part}" if key else str(part)
            node = node[part] if isinstance(node, (dict, list)) and _has(node, part) else None
        reason = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            reason = f"unknown key (known here: {', '.join(_parent_fields(model, e['loc']))})"
        elif e["type"] not in ("value_error", "missing"):
            reason += f", got {e['input']!r}"
        out.append((key or "<file>", reason))
    return out


def _has(node, part) -> bool:
    return part in node if isinstance(node, dict) else isinstance(part, int) and -len(node) <= part < len(node)


def _submodel(model, part):
    """The model class of field `part` of `model` (also when optional), else None."""
    field = getattr(model, "model_fields", {}).get(part) if isinstance(part, str) else None
    for kind in (field.annotation, *get_args(field.annotation)) if field else ():
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            return kind
    return None


def _parent_fields(model, loc) -> list[str]:
    for part in loc[:-1]:
        if not isinstance(part, int):            # a list position keeps the list's item model
            model = _submodel(model, part)
    return sorted(getattr(model, "model_fields", {}))
