"""JSON schemas cleaned into the subset Gemini's function declarations accept (pydantic and MCP schemas)."""

from __future__ import annotations

from typing import Any

# Keys of Gemini's Schema object; anything else is dropped.
_ALLOWED = {
    "type", "format", "description", "nullable", "enum", "items", "properties", "required",
    "minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "anyOf",
    "default", "title", "minProperties", "maxProperties", "propertyOrdering",
}
_MAX_DEPTH = 24


class SchemaError(ValueError):
    """A schema that cannot be turned into a Gemini declaration (a recursive reference, a broken $ref)."""


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline `$ref`s, fold `Optional[X]` into `X` + nullable, drop unsupported keys and titles."""
    defs = {**schema.get("$defs", {}), **schema.get("definitions", {})}
    cleaned = _clean(schema, defs, 0, ())
    cleaned.pop("title", None)
    if cleaned.get("type") is None and "properties" in cleaned:
        cleaned["type"] = "object"
    return cleaned


def _clean(node: Any, defs: dict[str, Any], depth: int, seen: tuple[str, ...]) -> Any:
    if depth > _MAX_DEPTH:
        raise SchemaError("schema nests too deeply")
    if isinstance(node, list):
        return [_clean(item, defs, depth + 1, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        name = ref.rsplit("/", 1)[-1]
        if name in seen:
            raise SchemaError(f"recursive reference {ref}")
        if name not in defs:
            raise SchemaError(f"unresolved reference {ref}")
        merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs, depth + 1, (*seen, name))
    node = dict(node)
    for combiner in ("anyOf", "oneOf"):
        options = node.get(combiner)
        if isinstance(options, list):
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            if len(non_null) < len(options):
                node["nullable"] = True
            node.pop(combiner)
            if len(non_null) == 1:
                node = {**non_null[0], **node}
            elif non_null:
                node["anyOf"] = non_null
    if "allOf" in node and isinstance(node["allOf"], list):
        for part in node.pop("allOf"):
            if isinstance(part, dict):
                node = {**part, **node}
    if isinstance(node.get("type"), list):  # ["string", "null"] style
        types = [t for t in node["type"] if t != "null"]
        if len(types) < len(node["type"]):
            node["nullable"] = True
        node["type"] = types[0] if len(types) == 1 else "string"
    if "const" in node and "enum" not in node:
        node["enum"] = [node["const"]]
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key not in _ALLOWED:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _clean(sub, defs, depth + 1, seen) for name, sub in value.items()}
        elif key in ("items", "anyOf"):
            out[key] = _clean(value, defs, depth + 1, seen)
        elif key == "title":
            continue
        elif key == "enum" and isinstance(value, list):
            out[key] = [str(v) for v in value]
            out.setdefault("type", "string")
        else:
            out[key] = value
    if out.get("type") == "string" and out.get("format") not in (None, "enum", "date-time"):
        out.pop("format")
    if "default" in out and out["default"] is None:
        out.pop("default")
    return out
