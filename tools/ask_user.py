"""ask_user: the model asks the user one to four questions mid-turn, multiple choice, yes/no or free text
(declared and answered as Gemini CLI 0.61 does; never declared headless, where it is refused with a reason the
model can act on)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from gemini_tui.core.approvals.plan_folder import ASK_USER, offered
from gemini_tui.core.ground.abort import AbortSignal
from gemini_tui.core.ground.confirmation import ConfirmationOutcome, InfoConfirmation, Question, QuestionOption
from gemini_tui.core.ground.tool_result import ToolError, ToolErrorKind, ToolResult
from gemini_tui.core.tooling.needs import CallNeeds
from gemini_tui.core.tooling.tool import BaseTool, CallContext, ToolKind, ToolParams

DECLARATION: dict[str, Any] = {
    "name": ASK_USER,
    "description": "Ask the user one or more questions to gather preferences, clarify requirements, or make "
                   "decisions.",
    "parametersJsonSchema": {
        "type": "object",
        "required": ["questions"],
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "required": ["question", "header", "type"],
                    "properties": {
                        "question": {"type": "string", "description": "The complete question to ask the user. "
                                     "Should be clear, specific, and end with a question mark."},
                        "header": {"type": "string", "description": 'Very short label displayed as a chip/tag. '
                                   'Use abbreviations: "Auth" not "Authentication", "Config" not "Configuration". '
                                   'Examples: "Auth method", "Library", "Approach", "Database".'},
                        "type": {"type": "string", "enum": ["choice", "text", "yesno"], "default": "choice",
                                 "description": "Question type: 'choice' (default) for multiple-choice with "
                                 "options, 'text' for free-form input, 'yesno' for Yes/No confirmation with "
                                 "optional 'Other' feedback."},
                        "options": {
                            "type": "array",
                            "description": "The selectable choices for 'choice' type questions. Provide 2-4 "
                                           "options. An 'Other' option is automatically added for 'choice' and "
                                           "'yesno' types. Not needed for 'text' or 'yesno'.",
                            "items": {
                                "type": "object",
                                "required": ["label", "description"],
                                "properties": {
                                    "label": {"type": "string", "description": "The display text for this option "
                                              '(1-5 words). Example: "OAuth 2.0"'},
                                    "description": {"type": "string", "description": "Brief explanation of this "
                                                    'option. Example: "Industry standard, supports SSO"'},
                                },
                            },
                        },
                        "multiSelect": {"type": "boolean", "description": "Only applies when type='choice'. Set "
                                        "to true to allow selecting multiple options."},
                        "placeholder": {"type": "string", "description": "Hint text shown in the input field. For "
                                        "type='text', shown in the main input. For type='choice' and 'yesno', "
                                        "shown in the 'Other' custom input."},
                    },
                },
            },
        },
    },
}


class OptionParams(BaseModel):
    label: str
    description: str = ""


class QuestionParams(BaseModel):
    question: str
    header: str = ""
    type: Literal["choice", "text", "yesno"] = "choice"
    options: list[OptionParams] = Field(default_factory=list)
    multiSelect: bool = False
    placeholder: str = ""


class AskUserParams(ToolParams):
    questions: list[QuestionParams] = Field(description="One to four questions.")


def _unescaped(text: str) -> str:
    return text.replace("\\r\\n", "\n").replace("\\n", "\n")  # a model that wrote "\n" meant a new line


class AskUserTool(BaseTool[AskUserParams]):
    name = ASK_USER
    display_name = "Ask User"
    description = DECLARATION["description"]
    Params = AskUserParams
    kind = ToolKind.other
    answers_when_dismissed = True

    def function_declaration(self) -> dict[str, Any]:
        return DECLARATION

    def offered(self, mode: str, interactive: bool) -> bool:
        return offered(self.name, mode, interactive)

    def check_params(self, params: AskUserParams) -> ToolError | None:
        if not params.questions:
            return ToolError(ToolErrorKind.invalid_params, "At least one question is required.")
        for n, question in enumerate(params.questions, 1):
            if question.type == "choice" and not 2 <= len(question.options) <= 4:
                return ToolError(ToolErrorKind.invalid_params,
                                 f"Question {n}: type='choice' requires 'options' array with 2-4 items.")
            for m, option in enumerate(question.options, 1):
                if not option.label.strip():
                    return ToolError(ToolErrorKind.invalid_params, f"Question {n}, option {m}: 'label' is "
                                     "required and must be a non-empty string.")
        return None

    def needs(self, params: AskUserParams) -> CallNeeds:
        return CallNeeds()  # the plan-mode rules decide: asked in the app, refused headless

    def questions(self, params: AskUserParams) -> tuple[Question, ...]:
        return tuple(Question(
            _unescaped(q.question), _unescaped(q.header), q.type,
            tuple(QuestionOption(_unescaped(o.label), _unescaped(o.description.strip())) for o in q.options),
            q.multiSelect, _unescaped(q.placeholder)) for q in params.questions)

    def get_description(self, params: AskUserParams) -> str:
        return f"Asking user: {', '.join(q.question for q in params.questions)}"

    async def should_confirm_execute(self, params: AskUserParams,
                                     abort_signal: AbortSignal) -> InfoConfirmation | None:
        questions = self.questions(params)
        prompt = "\n\n".join(f"**{q.header or f'Q{n}'}**: {q.question}" for n, q in enumerate(questions))
        return InfoConfirmation(title="Ask User", prompt=prompt, questions=questions)

    async def _execute(self, params: AskUserParams, abort_signal: AbortSignal, context: CallContext) -> ToolResult:
        answer = context.answer
        if answer is None or answer.outcome is ConfirmationOutcome.cancel:
            return ToolResult("User dismissed ask_user dialog without answering.", "User dismissed dialog")
        answers = answer.answers or {}
        if not answers:
            return ToolResult(json.dumps({"answers": {}}), "User submitted without answering questions.")
        lines = []
        for index, text in answers.items():
            question = params.questions[int(index)] if index.isdigit() and int(index) < len(params.questions) else None
            lines.append(f"  {question.header if question and question.header else f'Q{index}'} → {text}")
        return ToolResult(json.dumps({"answers": answers}), "**User answered:**\n" + "\n".join(lines))
