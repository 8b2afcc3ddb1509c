"""A project's tool-discovery script speaking Gemini CLI's discovery protocol: `discover [mode]` prints
declarations, `call NAME` reads JSON arguments on stdin. Modes: ok, bare, badjson, fail, hang, badname, slow (ok
after 2 s), jsonschema."""

from __future__ import annotations

import json
import sys
import time

DECLARATIONS = [
    {"name": "add", "description": "Adds two numbers.",
     "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]}},
    {"name": "shout", "description": "Upper-cases text; fails on 'fail', writes stderr on 'warn'.",
     "parameters": {"type": "object", "properties": {"text": {"type": "string", "title": "Text"}},
                    "required": ["text"], "additionalProperties": False}},
]


def discover(mode: str) -> int:
    match mode:
        case "ok":
            print(json.dumps([{"functionDeclarations": DECLARATIONS[:1]},
                              {"function_declarations": DECLARATIONS[1:]}]))
        case "bare":
            print(json.dumps(DECLARATIONS))
        case "badjson":
            print("[{not json")
        case "fail":
            print("cannot discover: no config", file=sys.stderr)
            return 3
        case "hang":
            time.sleep(60)
        case "slow":
            time.sleep(2)
            print(json.dumps(DECLARATIONS))
        case "jsonschema":  # Gemini CLI's own form: parametersJsonSchema, passed on as declared
            print(json.dumps([{"name": "lookup", "description": "Looks a record up.", "parametersJsonSchema": {
                "type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
                                                 "when": {"type": "string", "format": "date"}},
                "required": ["id"], "additionalProperties": False}}]))
        case "badname":
            print(json.dumps([{"name": "bad name!", "parameters": {}}, DECLARATIONS[0]]))
    return 0


def call(name: str) -> int:
    args = json.load(sys.stdin)
    if name == "add":
        print(args["a"] + args["b"])
        return 0
    if name == "shout":
        if args["text"] == "fail":
            print("partial")
            print("it failed", file=sys.stderr)
            return 2
        if args["text"] == "warn":
            print("ok-ish")
            print("a warning", file=sys.stderr)
            return 0
        if args["text"] == "sleep":
            time.sleep(60)
        print(args["text"].upper(), end="")
        return 0
    print(f"unknown tool {name}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    command = sys.argv[1]
    sys.exit(discover(sys.argv[2] if len(sys.argv) > 2 else "ok") if command == "discover" else call(sys.argv[2]))
