"""DeclaredTool: a tool whose parameters come from someone else's JSON-schema declaration (a discovery command
or an MCP server), not from a pydantic model of ours."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ConfigDict

from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind
from gemini_tui.core.tooling.tool import BaseTool, ToolKind, ToolParams


class DeclaredParams(ToolParams):
    """Whatever the declaration's schema allows: checked against its `required` list, passed on as JSON."""

    model_config = ConfigDict(extra="allow")


class DeclaredTool(BaseTool[DeclaredParams]):
    """The schema is the declaration's (cleaned for Gemini); the arguments go on as the JSON the model sent."""

    Params = DeclaredParams
    kind = ToolKind.other

    def __init__(self, schema: dict[str, Any]) -> None:
        self._schema = schema

    @property
    def parameter_schema(self) -> dict[str, Any]:
        return self._schema

    def check_params(self, params: DeclaredParams) -> ToolError | None:
        given = params.model_dump()
        missing = [name for name in self._schema.get("required", []) if name not in given]
        if missing:
            return ToolError(ToolErrorKind.invalid_params,
                             f"Invalid parameters for {self.name}: missing required {', '.join(missing)}.")
        return None

    @staticmethod
    def arguments_json(params: DeclaredParams, indent: int | None = None) -> str:
        return json.dumps(params.model_dump(), indent=indent, ensure_ascii=False)
