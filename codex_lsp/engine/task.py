"""The regular Task: Turns until the model answers without calling a tool.

Each Turn is one sampling request; its tool calls run in order and their outputs are the
next Turn's input. The task ends with `task_complete`, `turn_aborted` or an `error`.
"""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.engine import goal_turns
from codex_lsp.engine.base_instructions import base_instructions
from codex_lsp.engine.compact import maybe_compact
from codex_lsp.engine.editor_tasks import developer_note
from codex_lsp.engine.instructions import (
    context_update_message,
    contextual_user_message,
    developer_message,
)
from codex_lsp.engine.models import model_info
from codex_lsp.engine.notify import run_notify, turn_complete_payload
from codex_lsp.engine.sampling import run_sampling_request
from codex_lsp.engine.session import RunningTask, Session
from codex_lsp.engine.tools.base import ToolCall
from codex_lsp.engine.tools.config import TurnTools, turn_tools
from codex_lsp.engine.tools.router import output_item
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.engine.user_images import attached_image, pasted_image
from codex_lsp.model import ModelError, Prompt
from codex_lsp.protocol.core.events import (
    ErrorEvent,
    ProposedPlanEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    UserMessageEvent,
    WarningEvent,
)
from codex_lsp.protocol.core.inputs import (
    MAX_USER_INPUT_TEXT_CHARS,
    ImageInput,
    LocalImageInput,
    SkillInput,
    TextInput,
    UserInput,
)
from codex_lsp.protocol.core.response_items import (
    ContentItem,
    MessageItem,
    ResponseItem,
    response_item,
)


def build_user_item(
    items: list[UserInput], cwd: Path, model: str
) -> tuple[MessageItem, UserMessageEvent]:
    """The user's message as a history item (its images prepared for `model`), and as the
    `user_message` event shows it."""
    info = model_info(model)
    detail, budget = info.image_detail, info.image_budget
    numbered = 0
    content: list[ContentItem] = []
    texts: list[str] = []
    images: list[str] = []
    local_images: list[str] = []
    for entry in items:
        if isinstance(entry, TextInput):
            text = entry.text[:MAX_USER_INPUT_TEXT_CHARS]
            texts.append(text)
            content.append({"type": "input_text", "text": text})
        elif isinstance(entry, ImageInput):
            numbered += 1
            images.append(entry.image_url)
            content.append(pasted_image(entry.image_url, detail, budget))
        elif isinstance(entry, LocalImageInput):
            numbered += 1
            local_images.append(entry.path)
            content.extend(attached_image(numbered, entry.path, cwd, detail, budget))
        elif isinstance(entry, SkillInput):
            content.append(
                {"type": "input_text", "text": f"Use the skill `{entry.name}` ({entry.path})."}
            )
        else:
            content.append({"type": "input_text", "text": f"@{entry.name} ({entry.path})"})
    item: MessageItem = {"type": "message", "role": "user", "content": content}
    event = UserMessageEvent(
        message="\n".join(texts), images=images or None, local_images=local_images
    )
    return item, event


async def record_user_input(
    session: Session, sub_id: str, ctx: TurnContext, items: list[UserInput]
) -> None:
    """The user's input into the history, and shown as their message in the turn."""
    if any(isinstance(entry, ImageInput | LocalImageInput) for entry in items):
        # Decoding and scaling images takes a while: off the event loop.
        built = await anyio.to_thread.run_sync(build_user_item, items, ctx.cwd, ctx.model)
    else:
        built = build_user_item(items, ctx.cwd, ctx.model)
    user_item, user_event = built
    session.record_items([user_item])
    session.emit(sub_id, user_event)


def record_turn_context(session: Session, ctx: TurnContext, turn_id: str) -> None:
    """Give the model its context on the first turn, and what changed on later ones."""
    previous = session.context_seen
    if previous is None:
        sections = session.services.instruction_sections(session, ctx)
        session.record_items(
            [developer_message(ctx, extra_sections=sections), contextual_user_message(ctx)]
        )
    else:
        update = context_update_message(previous, ctx)
        if update is not None:
            session.record_items([update])
    session.context_seen = ctx
    session.record_line("turn_context", ctx.to_rollout(turn_id))


def build_prompt(
    session: Session, ctx: TurnContext, *, tools: bool = True, offered: TurnTools | None = None
) -> Prompt:
    """The request for one sampling; `offered` is the turn's built-in tools (by default what
    `turn_tools` gives the context)."""
    info = model_info(ctx.model)
    reasoning = None
    if info.supports_reasoning and ctx.provider.wire_api == "responses":
        reasoning = {"effort": ctx.effort or info.default_effort, "summary": ctx.summary or "auto"}
        if reasoning["summary"] == "none":
            del reasoning["summary"]
    built_in = offered or turn_tools(ctx)
    specs: list[dict[str, Any]] = []
    if tools:
        specs = [*built_in.specs(), *session.services.tool_specs(session, ctx)]
    else:
        built_in = dataclasses.replace(built_in, shell="none", apply_patch=None, update_plan=False)
    return Prompt(
        model=ctx.model,
        instructions=ctx.base_instructions or base_instructions(built_in),
        input=session.history.for_prompt(),
        tools=specs,
        parallel_tool_calls=False,
        reasoning=reasoning,
        output_schema=ctx.output_schema,
        verbosity=ctx.verbosity if ctx.provider.wire_api == "responses" else None,
        prompt_cache_key=session.thread_id,
    )


async def run_regular_task(
    session: Session,
    task: RunningTask,
    ctx: TurnContext,
    items: list[UserInput],
    previous_response_id: str | None = None,
    instructions: str | None = None,
    opening: list[ResponseItem] | None = None,
    root_turn_id: str | None = None,
) -> None:
    """Run a turn on the user's `items`; `instructions` (an editor request's) follow the
    user's message as a developer note the transcript does not show. A turn the engine starts
    on its own opens with `opening` instead of a user message."""
    sub_id = task.sub_id
    started = time.monotonic()
    task.goal_counted = ctx.collaboration_mode != "plan"
    if previous_response_id:
        if session.history.has_bookmark(previous_response_id):
            session.history.rewind_to(previous_response_id)
            # The rollout holds the abandoned branch too: a replacement history makes a resumed
            # thread continue from the bookmark, as this session does, not from the branch.
            session.record_line(
                "compacted", {"message": "", "replacement_history": session.history.items}
            )
        else:
            session.emit(
                sub_id,
                WarningEvent(
                    message=f"unknown response id {previous_response_id!r}: "
                    "continuing from the latest turn"
                ),
            )
    session.emit(
        sub_id,
        TaskStartedEvent(
            turn_id=sub_id,
            root_turn_id=root_turn_id,
            started_at=session.now(),
            model_context_window=ctx.context_window,
        ),
    )
    record_turn_context(session, ctx, sub_id)
    # A history already past the limit is compacted before the new input joins it.
    failure: ModelError | None = None
    try:
        await maybe_compact(session, task, ctx)
    except ModelError as err:
        failure = err
    if opening is None:
        await record_user_input(session, sub_id, ctx, items)
    else:
        session.record_items(opening)
    if instructions:
        session.record_items([developer_note(instructions)])
    for extension in session.services.extensions:
        session.record_items(await extension.extra_user_items(session, ctx, sub_id, items))
    last_message = None
    if failure is None:
        last_message = await run_turns(session, task, ctx)
        plan = proposed_plan(last_message) if ctx.collaboration_mode == "plan" else None
        if plan is not None:
            session.emit(sub_id, ProposedPlanEvent(item_id=f"{sub_id}-plan", text=plan))
    else:  # the input is kept; the turn ends with why the history could not be compacted
        goal_turns.turn_failed(session, task)
        session.emit(
            sub_id, ErrorEvent(message=failure.message, codex_error_info=failure.codex_error_info)
        )
    goal_turns.end_goal_turn(session, task)
    session.emit(
        sub_id,
        TaskCompleteEvent(
            turn_id=sub_id,
            last_agent_message=last_message,
            response_id=task.last_response_id,
            completed_at=session.now(),
            duration_ms=int((time.monotonic() - started) * 1000),
        ),
    )
    notify = getattr(session.services.config, "notify", None)
    if notify:
        inputs = [text for item in items if isinstance(text := getattr(item, "text", None), str)]
        payload = turn_complete_payload(session.thread_id, sub_id, ctx.cwd, inputs, last_message)
        run_notify(notify, payload, ctx.cwd)


_PROPOSED_PLAN = re.compile(r"<proposed_plan>\s*(.*?)\s*</proposed_plan>", re.DOTALL)


def proposed_plan(message: str | None) -> str | None:
    """The plan a Plan mode answer ends with: its last complete `<proposed_plan>` block."""
    found = _PROPOSED_PLAN.findall(message or "")
    return found[-1] if found and found[-1].strip() else None


async def run_turns(session: Session, task: RunningTask, ctx: TurnContext) -> str | None:
    """Sample and run tools until the model stops calling them; the last agent message."""
    sub_id = task.sub_id
    client = session.model_client(ctx)
    last_message: str | None = None
    offered = turn_tools(ctx)
    steering = task.steering
    first = True
    while True:
        for steered in steering.take():
            await record_user_input(session, sub_id, ctx, steered)
        session.record_items(steering.take_items())
        if session.arrivals:
            arrived, session.arrivals = session.arrivals, []
            session.record_items([response_item(item) for item in arrived])
        try:
            # The turn's start already compacted what needed it; later requests may need it
            # again once tool output has filled the window.
            if not first:
                await maybe_compact(session, task, ctx)
            first = False
            with steering.request() as request:
                result = await run_sampling_request(
                    session,
                    sub_id,
                    client,
                    build_prompt(session, ctx, offered=offered),
                    on_output=steering.output_started,
                )
            if request.cancelled_caught:
                continue  # abandoned for steered input: ask again with it
        except ModelError as err:
            goal_turns.turn_failed(session, task)
            session.emit(
                sub_id, ErrorEvent(message=err.message, codex_error_info=err.codex_error_info)
            )
            steering.closed = True
            return last_message
        session.record_items(result.items)
        if result.response_id:
            session.history.mark_response(result.response_id)
            task.last_response_id = session.last_response_id = result.response_id
        session.record_usage(result.usage)
        goal_turns.note_usage(session, result.usage)
        last_message = result.last_agent_message or last_message
        calls = result.tool_calls
        if not calls:
            session.emit(sub_id, session.token_count_event())
            if steering.pending or steering.items:
                continue  # the model has not seen what the user added yet
            steering.closed = True
            return last_message
        for item in calls:
            call = ToolCall(
                session=session,
                task=task,
                ctx=ctx,
                call_id=str(item.get("call_id") or item.get("id") or ""),
                name=str(item.get("name") or ""),
                kind="custom" if item.get("type") == "custom_tool_call" else "function",
                payload=str(
                    item.get("input")
                    if item.get("type") == "custom_tool_call"
                    else item.get("arguments") or ""
                ),
                tools=offered,
            )
            # An `abort` answer raises TurnAbortRequested: the session ends the turn.
            output = await session.services.router.dispatch(call)
            session.record_items([output_item(item, output)])
            # A prefix rule the user saved while answering is told after the call's output.
            for note in session.exec_rules.take_notes():
                session.record_items([developer_note(note)])
        # Codex counts a response against the goal once its tools are done.
        goal_turns.account(session, sub_id, task)
        session.emit(sub_id, session.token_count_event())
