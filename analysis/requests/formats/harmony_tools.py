"""Harmony's tool declarations: JSON-schema function definitions as TypeScript-like types.

Unlike `harmony`, which places messages, this module only writes the text of the "functions"
namespace that gpt-oss reads in its developer message. The rules are openai-harmony's (its
`json_schema_to_typescript` and tools section, read from the package's source and checked
against the installed package id for id): object properties become `name?: type,` lines with
their descriptions, titles, examples and defaults as `//` comments; string enums become unions
of literals; `oneOf` becomes a `|` list; integers are numbers; anything else is `any`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..request import ToolDef


def declarations(tools: Sequence[ToolDef]) -> str:
    """The "functions" namespace section for `tools`.

    >>> print(declarations([ToolDef("now", "The time.")]))
    ## functions
    <BLANKLINE>
    namespace functions {
    <BLANKLINE>
    // The time.
    type now = () => any;
    <BLANKLINE>
    } // namespace functions
    """
    lines = ["## functions\n", "namespace functions {\n"]
    for tool in tools:
        lines += [f"// {line}" for line in _lines(tool.description or "")]
        if tool.parameters:
            lines.append(f"type {tool.name} = (_: {typescript(tool.parameters, '')}) => any;\n")
        else:
            lines.append(f"type {tool.name} = () => any;\n")
    lines.append("} // namespace functions")
    return "\n".join(lines)


def _lines(text: str) -> list[str]:
    """Lines as Rust's `str::lines` gives them: split on LF, a CR before it dropped, no last empty line."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return [p[:-1] if p.endswith("\r") else p for p in parts]


def _json(value: Any) -> str:
    """A JSON value the way serde_json displays it: compact, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _is_enum(schema: Mapping[str, Any]) -> bool:
    values = schema.get("enum")
    return isinstance(values, list) and bool(values)


def _str(schema: Mapping[str, Any], key: str) -> str | None:
    value = schema.get(key)
    return value if isinstance(value, str) else None


def _default_comment(schema: Mapping[str, Any], *, bare_enum_string: bool) -> str:
    """'default: ...' for a schema's default. Property-level defaults show an enum's string bare."""
    default = schema["default"]
    if isinstance(default, str) and not _is_enum(schema):
        return f'default: "{default}"'
    if isinstance(default, str) and bare_enum_string:
        return f"default: {default}"
    return f"default: {_json(default)}"


def _nullable(schema: Any, type_text: str) -> str:
    if isinstance(schema, Mapping) and schema.get("nullable") is True and "null" not in type_text:
        return f"{type_text} | null"
    return type_text


def typescript(schema: Any, indent: str) -> str:
    """The TypeScript-like type of one JSON schema, at `indent`.

    >>> typescript({"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}, "")
    '"a" | "b"[]'
    """
    if not isinstance(schema, Mapping):
        return "any"
    one_of = schema.get("oneOf")
    if isinstance(one_of, list):
        out = ""
        for variant in one_of:
            out += f"\n{indent} | " + _nullable(variant, typescript(variant, indent + "   "))
            comments = []
            if isinstance(variant, Mapping):
                if (desc := _str(variant, "description")) is not None:
                    comments.append(desc)
                if "default" in variant:
                    comments.append(_default_comment(variant, bare_enum_string=False))
            if comments:
                out += " // " + " ".join(comments)
        return out
    kind = schema.get("type")
    if isinstance(kind, list):
        names = ["number" if k == "integer" else k for k in kind if isinstance(k, str)]
        if names:
            return " | ".join(names)
    if not isinstance(kind, str):
        return "any"
    if kind == "object":
        return _object(schema, indent)
    if kind == "string":
        literals = [f'"{v}"' for v in schema.get("enum") or () if isinstance(v, str)] if isinstance(schema.get("enum"), list) else []
        return " | ".join(literals) if literals else "string"
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "array":
        return typescript(schema["items"], indent) + "[]" if "items" in schema else "Array<any>"
    return "any"


def _object(schema: Mapping[str, Any], indent: str) -> str:
    out = f"{indent}// {desc}\n" if (desc := _str(schema, "description")) is not None else ""
    out += "{\n"
    props = schema.get("properties")
    if isinstance(props, Mapping):
        req = schema.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
        for key, val in props.items():
            out += _property(key, val if isinstance(val, Mapping) else {}, key in required, indent)
    return out + f"{indent}}}"


def _property(key: str, val: Mapping[str, Any], required: bool, indent: str) -> str:
    mark = "" if required else "?"
    out = ""
    if (title := _str(val, "title")) is not None:
        out += f"{indent}// {title}\n{indent}//\n"
    if "oneOf" not in val and (desc := _str(val, "description")) is not None:
        out += f"{indent}// {desc}\n"
    examples = val.get("examples")
    if isinstance(examples, list) and examples:
        out += f"{indent}// Examples:\n" + "".join(f'{indent}// - "{ex}"\n' for ex in examples if isinstance(ex, str))
    one_of = val.get("oneOf")
    if isinstance(one_of, list):
        prop_desc = _str(val, "description")
        first = one_of[0] if one_of and isinstance(one_of[0], Mapping) else {}
        above = prop_desc is not None and _str(first, "description") != prop_desc
        if above:
            out += f"{indent}// {prop_desc}\n"
        if "default" in val:
            out += f"{indent}// {_default_comment(val, bare_enum_string=True)}\n"
        out += f"{indent}{key}{mark}:\n"
        for i, variant in enumerate(one_of):
            out += f"{indent} | " + _nullable(variant, typescript(variant, indent + "   "))
            comments = []
            if isinstance(variant, Mapping):
                desc = _str(variant, "description")
                if not (i == 0 and above) and desc is not None and desc != prop_desc:
                    comments.append(desc)
                if "default" in variant:
                    comments.append(_default_comment(variant, bare_enum_string=True))
            if comments:
                out += " // " + " ".join(comments)
            out += "\n"
        return out + f"{indent},\n"
    out += f"{indent}{key}{mark}: " + _nullable(val, typescript(val, indent + "    ")) + ","
    if "oneOf" not in val and "default" in val:
        out += " // " + _default_comment(val, bare_enum_string=True)
    return out + "\n"
