"""Questions to the user: the `request_user_input` tool.

The model asks one to three short questions; the engine checks them against the tool's schema,
shows them to the UI as a `request_user_input` event and waits for the `user_input_answer` op of
the same turn. The answers go back to the model as `{"answers": {<id>: {"selected": [...],
"other": str | null}}}`. Interrupting the turn drops the pending question.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codex_lsp.engine.extensions import Extension, ToolHandler
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.core.events import RequestUserInputEvent

if TYPE_CHECKING:
    from codex_lsp.engine.session import Session
    from codex_lsp.engine.turn_context import TurnContext

TOOL_NAME = "request_user_input"
FEATURE = "request_user_input"
MIN_QUESTIONS, MAX_QUESTIONS = 1, 3
MIN_OPTIONS, MAX_OPTIONS = 2, 3
MAX_HEADER_CHARS = 12

_QUESTION_KEYS = frozenset({"id", "header", "question", "options"})
_OPTION_KEYS = ("value", "label", "description")
# Codex's own tool has no `value`: a model trained on it sends label and description only,
# and the label then stands for the value.
_REQUIRED_OPTION_KEYS = ("label", "description")

REQUEST_USER_INPUT_TOOL: dict[str, Any] = {
    "type": "function",
    "name": TOOL_NAME,
    "description": "Ask the user one to three short questions and wait for the answers. Use it "
    "only when a decision you cannot make yourself blocks progress; otherwise keep working.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "description": "The questions to show (1-3). Ask one unless several "
                "independent decisions block you.",
                "minItems": MIN_QUESTIONS,
                "maxItems": MAX_QUESTIONS,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {
                            "type": "string",
                            "description": "Stable snake_case id; the answers are keyed by it.",
                        },
                        "header": {
                            "type": "string",
                            "description": "A label for the UI, 12 characters at most.",
                        },
                        "question": {
                            "type": "string",
                            "description": "The question itself, in one sentence.",
                        },
                        "options": {
                            "type": "array",
                            "description": "Two or three mutually exclusive choices, the "
                            'recommended one first with "(Recommended)" after its label. The '
                            "user can always type a free-form answer instead, so do not add an "
                            '"Other" choice. Leave options out for an open question.',
                            "minItems": MIN_OPTIONS,
                            "maxItems": MAX_OPTIONS,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "value": {
                                        "type": "string",
                                        "description": "Machine-readable snake_case value "
                                        "(the label when left out).",
                                    },
                                    "label": {
                                        "type": "string",
                                        "description": "What the user sees (1-5 words).",
                                    },
                                    "description": {
                                        "type": "string",
                                        "description": "One sentence on what choosing it means.",
                                    },
                                },
                                "required": list(_REQUIRED_OPTION_KEYS),
                                "additionalProperties": False,
                            },
                        },
                    },
                    "required": ["id", "header", "question"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["questions"],
        "additionalProperties": False,
    },
}


@dataclass(frozen=True, slots=True)
class Option:
    value: str
    label: str
    description: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    header: str
    question: str
    options: tuple[Option, ...] | None

    def to_event(self) -> dict[str, Any]:
        """The question as the UI gets it; `isOther` lets it offer a free-form answer."""
        return {
            "id": self.id,
            "header": self.header,
            "question": self.question,
            "isOther": True,
            "isSecret": False,
            "options": (
                [
                    {"value": o.value, "label": o.label, "description": o.description}
                    for o in self.options
                ]
                if self.options is not None
                else None
            ),
        }


# -- validation ---------------------------------------------------------------------------------


def parse_questions(payload: str) -> list[Question]:
    """The questions in the tool's arguments; every schema violation becomes one `ToolError`."""
    try:
        args = json.loads(payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"{TOOL_NAME}: the arguments are not valid JSON ({err.msg})") from None
    problems: list[str] = []
    questions: list[Question] = []
    if not isinstance(args, dict):
        raise ToolError(f"{TOOL_NAME}: the arguments must be a JSON object with `questions`")
    problems += [f"unknown field `{key}`" for key in args if key != "questions"]
    raw = args.get("questions")
    if not isinstance(raw, list):
        problems.append("`questions` is required and must be an array")
    elif not MIN_QUESTIONS <= len(raw) <= MAX_QUESTIONS:
        problems.append(
            f"`questions` has {len(raw)} entries; ask between {MIN_QUESTIONS} and "
            f"{MAX_QUESTIONS} questions"
        )
    else:
        seen: set[str] = set()
        for index, entry in enumerate(raw):
            question = _question(entry, f"questions[{index}]", problems)
            if question is None:
                continue
            if question.id in seen:
                problems.append(f"questions[{index}].id {question.id!r} is used twice")
            seen.add(question.id)
            questions.append(question)
    if problems:
        raise ToolError(
            f"{TOOL_NAME}: invalid arguments, nothing was shown to the user:\n"
            + "\n".join(f"- {problem}" for problem in problems)
        )
    return questions


def _question(entry: Any, where: str, problems: list[str]) -> Question | None:
    if not isinstance(entry, dict):
        problems.append(f"{where} must be an object with id, header and question")
        return None
    before = len(problems)
    problems += [f"{where} has unknown field `{key}`" for key in entry if key not in _QUESTION_KEYS]
    texts = {key: _text(entry, key, where, problems) for key in ("id", "header", "question")}
    header = texts["header"]
    if header is not None and len(header) > MAX_HEADER_CHARS:
        problems.append(
            f"{where}.header {header!r} is {len(header)} characters; the limit is "
            f"{MAX_HEADER_CHARS}"
        )
    options = _options(entry.get("options"), f"{where}.options", problems)
    if len(problems) > before:
        return None
    return Question(
        id=texts["id"] or "",
        header=header or "",
        question=texts["question"] or "",
        options=options,
    )


def _text(entry: dict[str, Any], key: str, where: str, problems: list[str]) -> str | None:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}.{key} is required and must be a non-empty string")
        return None
    return value.strip()


def _options(raw: Any, where: str, problems: list[str]) -> tuple[Option, ...] | None:
    # An open question simply leaves the options out.
    if raw is None:
        return None
    if not isinstance(raw, list):
        problems.append(f"{where} must be an array of choices")
        return None
    if not MIN_OPTIONS <= len(raw) <= MAX_OPTIONS:
        problems.append(
            f"{where} has {len(raw)} entries; give {MIN_OPTIONS} or {MAX_OPTIONS} choices, "
            "or leave options out for an open question"
        )
        return None
    options: list[Option] = []
    for index, entry in enumerate(raw):
        at = f"{where}[{index}]"
        if not isinstance(entry, dict):
            problems.append(f"{at} must be an object with label and description")
            continue
        problems += [f"{at} has unknown field `{key}`" for key in entry if key not in _OPTION_KEYS]
        label, description = (_text(entry, key, at, problems) for key in _REQUIRED_OPTION_KEYS)
        value = label if entry.get("value") is None else _text(entry, "value", at, problems)
        if value is not None and label is not None and description is not None:
            options.append(Option(value, label, description))
    chosen = [option.value for option in options]
    if len(set(chosen)) != len(chosen):
        problems.append(f"{where} repeats a value; each choice needs its own")
    return tuple(options)


# -- answers ------------------------------------------------------------------------------------


def tool_output(questions: list[Question], reply: dict[str, Any]) -> dict[str, Any]:
    """The answers in the tool's output schema, one entry per question asked.

    Clients may send an option's label instead of its value (Codex-style UIs show labels),
    and may send typed text among the selections: labels are mapped back to values, and text
    matching no option becomes the free-form `other` answer.
    """
    given = reply.get("answers") or {}
    answers: dict[str, Any] = {}
    for question in questions:
        entry = given.get(question.id) or {}
        by_text: dict[str, str] = {}
        for option in question.options or ():
            by_text[option.label] = option.value
            by_text[option.value] = option.value
        selected: list[str] = []
        typed: list[str] = []
        for text in entry.get("selected") or []:
            value = by_text.get(text)
            if value is not None:
                selected.append(value)
            elif text.strip():
                typed.append(text.strip())
        other = entry.get("other")
        if isinstance(other, str) and other.strip():
            typed.append(other.strip())
        answers[question.id] = {"selected": selected, "other": "\n".join(typed) or None}
    return {"answers": answers}


def _is_root(session: Session) -> bool:
    """Whether `session` is a root thread: only a root has a user at hand to answer."""
    return session.agent_id == 0


async def handle_request_user_input(call: ToolCall) -> ToolOutput:
    session = call.session
    if not _is_root(session):
        raise ToolError(f"{TOOL_NAME} can only be used by the root thread")
    questions = parse_questions(call.payload)
    turn_id = call.sub_id
    session.emit(
        turn_id,
        RequestUserInputEvent(
            call_id=call.call_id,
            turn_id=turn_id,
            questions=[question.to_event() for question in questions],
        ),
    )
    # Answers are keyed by turn: calls in one turn run one after another, so a second
    # question waits under the same key only after the first was answered.
    reply = await session.answers.ask(turn_id)
    return ToolOutput(json.dumps(tool_output(questions, reply), ensure_ascii=False))


class QuestionsExtension(Extension):
    """Offers `request_user_input` to the root thread unless `[features]` turns it off."""

    name = "questions"

    def tool_specs(self, session: Session, ctx: TurnContext) -> list[dict[str, Any]]:
        if not ctx.features.get(FEATURE, True) or not _is_root(session):
            return []
        return [REQUEST_USER_INPUT_TOOL]

    def tool_handlers(self) -> dict[str, ToolHandler]:
        return {TOOL_NAME: handle_request_user_input}
