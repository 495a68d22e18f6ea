"""Samples of the method families beyond the core thread and turn methods (threads' history,
config edits, files, search, MCP servers, providers, settings, feedback), merged into the
request and notification samples that are checked against the reference schema."""

from __future__ import annotations

from pydantic import BaseModel

from codex_lsp.protocol import common as com
from codex_lsp.protocol.config import write as cw
from codex_lsp.protocol.core import policy
from codex_lsp.protocol.feedback import models as fb
from codex_lsp.protocol.file_search import models as se
from codex_lsp.protocol.fs import models as fs
from codex_lsp.protocol.mcp import models as mcp
from codex_lsp.protocol.providers import models as pr
from codex_lsp.protocol.settings import models as st
from codex_lsp.protocol.threads import (
    attachments as at,
    goals as gl,
    ops as to,
    read_state as rs,
    sections as sc,
)
from codex_lsp.protocol.turns import items as it
from tests.protocol.test_v2_items import item_variants, thread, turn

_CURSOR = '{"threadId":"t1","turnId":"turn1","includeAnchor":false}'
_TEXT = it.TextUserInput(text="also this", text_elements=[])
_MATCH = se.FuzzyFileSearchResult(
    root="/repo",
    path="src/config.py",
    match_type="file",
    file_name="config.py",
    score=9,
    indices=[4, 5, 6, 7],
)

REQUEST_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "thread/turns/list": [
        (
            to.ThreadTurnsListParams(thread_id="t1", limit=1, sort_direction="asc"),
            to.ThreadTurnsListResponse(
                data=[turn(items=item_variants(), items_view="full")],
                next_cursor=_CURSOR,
                backwards_cursor=_CURSOR,
            ),
        ),
        (to.ThreadTurnsListParams(thread_id="t1"), to.ThreadTurnsListResponse(data=[])),
    ],
    "thread/items/list": [
        (
            to.ThreadItemsListParams(
                thread_id="t1",
                turn_id="turn1",
                cursor=to.ItemThreadItemsListAnchor(item_id="u1"),
                sort_direction="desc",
            ),
            to.ThreadItemsListResponse(
                data=[to.ThreadItemEntry(turn_id="turn1", item=item_variants()[0])],
                backwards_cursor=_CURSOR,
            ),
        ),
        (
            to.ThreadItemsListParams(thread_id="t1", cursor=_CURSOR, limit=5),
            to.ThreadItemsListResponse(data=[]),
        ),
    ],
    "thread/loaded/list": [
        (to.ThreadLoadedListParams(), to.ThreadLoadedListResponse(data=["t1", "t2"]))
    ],
    "thread/unsubscribe": [
        (
            to.ThreadUnsubscribeParams(thread_id="t1"),
            to.ThreadUnsubscribeResponse(status="unsubscribed"),
        )
    ],
    "thread/delete": [(to.ThreadDeleteParams(thread_id="t1"), to.ThreadDeleteResponse())],
    "thread/metadata/update": [
        (
            to.ThreadMetadataUpdateParams(
                thread_id="t1", git_info=to.ThreadMetadataGitInfoUpdateParams(branch="feat")
            ),
            to.ThreadMetadataUpdateResponse(thread=thread(git_info=com.GitInfo(branch="feat"))),
        )
    ],
    "thread/compact/start": [
        (to.ThreadCompactStartParams(thread_id="t1"), to.ThreadCompactStartResponse())
    ],
    "thread/inject_items": [
        (
            to.ThreadInjectItemsParams(
                thread_id="t1",
                items=[{"type": "message", "role": "user", "content": []}],
            ),
            to.ThreadInjectItemsResponse(),
        )
    ],
    "thread/revert": [
        (
            to.ThreadRevertParams(thread_id="t1", before_turn_id="turn2"),
            to.ThreadRevertResponse(
                thread=thread(), turns_backwards_cursor=_CURSOR, items_backwards_cursor=_CURSOR
            ),
        )
    ],
    "turn/steer": [
        (
            to.TurnSteerParams(thread_id="t1", input=[_TEXT], expected_turn_id="turn1"),
            to.TurnSteerResponse(turn_id="turn1"),
        )
    ],
    "config/value/write": [
        (
            cw.ConfigValueWriteParams(key_path="model", value="gpt-5", merge_strategy="replace"),
            cw.ConfigWriteResponse(
                status="ok", version="sha256:00", file_path="/home/u/.codex-lsp/config.toml"
            ),
        )
    ],
    "config/batchWrite": [
        (
            cw.ConfigBatchWriteParams(
                edits=[
                    cw.ConfigEdit(key_path="a.b", value={"c": 1}, merge_strategy="upsert"),
                    cw.ConfigEdit(key_path="model", value=None, merge_strategy="replace"),
                ],
                expected_version="sha256:00",
            ),
            cw.ConfigWriteResponse(status="ok", version="sha256:11", file_path="/h/config.toml"),
        )
    ],
    "config/mcpServer/reload": [(cw.McpServerRefreshParams(), cw.McpServerRefreshResponse())],
    "configRequirements/read": [
        (cw.ConfigRequirementsReadParams(), cw.ConfigRequirementsReadResponse())
    ],
    "fs/readFile": [(fs.FsReadFileParams(path="/a"), fs.FsReadFileResponse(data_base64="aGk="))],
    "fs/writeFile": [
        (fs.FsWriteFileParams(path="/a", data_base64="aGk="), fs.FsWriteFileResponse())
    ],
    "fs/createDirectory": [
        (fs.FsCreateDirectoryParams(path="/d", recursive=False), fs.FsCreateDirectoryResponse())
    ],
    "fs/getMetadata": [
        (
            fs.FsGetMetadataParams(path="/a"),
            fs.FsGetMetadataResponse(
                is_directory=False,
                is_file=True,
                is_symlink=False,
                created_at_ms=0,
                modified_at_ms=1,
            ),
        )
    ],
    "fs/readDirectory": [
        (
            fs.FsReadDirectoryParams(path="/d"),
            fs.FsReadDirectoryResponse(
                entries=[fs.FsReadDirectoryEntry(file_name="a", is_directory=False, is_file=True)]
            ),
        )
    ],
    "fs/remove": [(fs.FsRemoveParams(path="/d", force=False), fs.FsRemoveResponse())],
    "fs/copy": [
        (
            fs.FsCopyParams(source_path="/a", destination_path="/b", recursive=True),
            fs.FsCopyResponse(),
        )
    ],
    "fs/watch": [(fs.FsWatchParams(watch_id="w", path="/a"), fs.FsWatchResponse(path="/a"))],
    "fs/unwatch": [(fs.FsUnwatchParams(watch_id="w"), fs.FsUnwatchResponse())],
    "fuzzyFileSearch": [
        (
            se.FuzzyFileSearchParams(query="conf", roots=["/repo"]),
            se.FuzzyFileSearchResponse(files=[_MATCH]),
        )
    ],
}

_SECTION = sc.ThreadSection(
    id="01984de2-8f74-7c91-a3b2-5c5e937cf318",
    name="Work",
    appearance=sc.ThreadSectionAppearance(color="red"),
)
SECTION_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "threadSection/list": [
        (
            sc.ThreadSectionListParams(limit=1, cursor="c"),
            sc.ThreadSectionListResponse(data=[_SECTION], next_cursor="c2"),
        ),
        (sc.ThreadSectionListParams(), sc.ThreadSectionListResponse(data=[])),
    ],
    "threadSection/create": [
        (
            sc.ThreadSectionCreateParams(name="Work", appearance=_SECTION.appearance),
            sc.ThreadSectionCreateResponse(section=_SECTION),
        ),
        (
            sc.ThreadSectionCreateParams(name="Home"),
            sc.ThreadSectionCreateResponse(section=sc.ThreadSection(id="s2", name="Home")),
        ),
    ],
    "threadSection/update": [
        (
            sc.ThreadSectionUpdateParams(section_id="s1", name="Job"),
            sc.ThreadSectionUpdateResponse(section=_SECTION),
        )
    ],
    "threadSection/delete": [
        (sc.ThreadSectionDeleteParams(section_id="s1"), sc.ThreadSectionDeleteResponse())
    ],
    "thread/section/move": [
        (
            sc.ThreadSectionMoveParams(thread_id="t1", section_id="s1", before_thread_id="t2"),
            sc.ThreadSectionMoveResponse(),
        ),
        (
            sc.ThreadSectionMoveParams(thread_id="t1", section_id=None),
            sc.ThreadSectionMoveResponse(),
        ),
    ],
}
REQUEST_SAMPLES.update(SECTION_SAMPLES)

_ATTACHMENT = at.ThreadAttachment(
    id="a1", attachment_type="pr", identity_key="k1", payload={"n": 1}, created_at=1
)
ATTACHMENT_SAMPLES: dict[str, list[tuple[BaseModel, BaseModel]]] = {
    "thread/attachment/add": [
        (
            at.ThreadAttachmentAddParams(
                thread_id="t1", attachment_type="pr", identity_key="k1", payload={"n": 1}
            ),
            at.ThreadAttachmentAddResponse(attachment=_ATTACHMENT, outcome="created"),
        ),
        (
            at.ThreadAttachmentAddParams(
                thread_id="t1", attachment_type="pr", identity_key="k1", payload=None
            ),
            at.ThreadAttachmentAddResponse(attachment=_ATTACHMENT, outcome="existing"),
        ),
    ],
    "thread/attachment/list": [
        (
            at.ThreadAttachmentListParams(thread_id="t1", limit=1, cursor="a0"),
            at.ThreadAttachmentListResponse(data=[_ATTACHMENT], next_cursor="a1"),
        ),
        (at.ThreadAttachmentListParams(thread_id="t1"), at.ThreadAttachmentListResponse(data=[])),
    ],
    "thread/attachment/remove": [
        (
            at.ThreadAttachmentRemoveParams(
                thread_id="t1", attachment_type="pr", identity_key="k1"
            ),
            at.ThreadAttachmentRemoveResponse(),
        )
    ],
    "thread/attachmentOwner/list": [
        (
            at.ThreadAttachmentOwnerListParams(
                attachment_type="pr", identity_key="k1", archived=False, limit=2, cursor="t0"
            ),
            at.ThreadAttachmentOwnerListResponse(
                data=[at.ThreadAttachmentOwner(thread_id="t1", archived=False)],
                next_cursor="t1",
            ),
        ),
        (
            at.ThreadAttachmentOwnerListParams(attachment_type="pr", identity_key="k1"),
            at.ThreadAttachmentOwnerListResponse(data=[]),
        ),
    ],
}
REQUEST_SAMPLES.update(ATTACHMENT_SAMPLES)

_TOOL = {"name": "add", "description": "Add.", "inputSchema": {"type": "object"}}
_GATEWAY = pr.ModelProviderSummary(
    id="gw",
    name="Gateway",
    can_edit=True,
    base_url="https://gw.example/v1",
    settings=pr.CustomGatewayProviderSettings(
        auth=pr.EnvironmentVariableGatewayAuth(env_key="GW_KEY")
    ),
)

_GOAL = gl.ThreadGoal(
    thread_id="t1",
    objective="Ship the parser",
    status="active",
    token_budget=5000,
    tokens_used=38,
    time_used_seconds=4,
    created_at=1795931492,
    updated_at=1795931493,
)

REQUEST_SAMPLES.update(
    {
        "thread/goal/get": [
            (gl.ThreadGoalGetParams(thread_id="t1"), gl.ThreadGoalGetResponse(goal=_GOAL)),
            (gl.ThreadGoalGetParams(thread_id="t1"), gl.ThreadGoalGetResponse(goal=None)),
        ],
        "thread/goal/set": [
            (
                gl.ThreadGoalSetParams(
                    thread_id="t1", objective="Ship the parser", token_budget=5000, origin="user"
                ),
                gl.ThreadGoalSetResponse(goal=_GOAL),
            ),
            (
                gl.ThreadGoalSetParams(thread_id="t1", status="paused"),
                gl.ThreadGoalSetResponse(goal=_GOAL.model_copy(update={"status": "paused"})),
            ),
        ],
        "thread/goal/clear": [
            (gl.ThreadGoalClearParams(thread_id="t1"), gl.ThreadGoalClearResponse(cleared=True))
        ],
        "mcpServerStatus/list": [
            (
                mcp.ListMcpServerStatusParams(thread_id="t1", detail="toolsAndAuthOnly", limit=1),
                mcp.ListMcpServerStatusResponse(
                    data=[
                        mcp.McpServerStatus(
                            name="tests",
                            auth_status="unsupported",
                            tools={"add": _TOOL},
                            resources=[{"uri": "memo://a", "name": "a"}],
                            resource_templates=[{"uriTemplate": "memo://{x}", "name": "x"}],
                            runtime_status="connected",
                            server_info=mcp.McpServerInfo(name="tests", version="1"),
                            server_capabilities={"tools": {}},
                        ),
                        mcp.McpServerStatus(
                            name="ghost",
                            auth_status="unsupported",
                            tools={},
                            resources=[],
                            resource_templates=[],
                            tools_error="command not found",
                        ),
                    ],
                    next_cursor="1",
                ),
            ),
            (mcp.ListMcpServerStatusParams(), mcp.ListMcpServerStatusResponse(data=[])),
        ],
        "mcpServer/tool/call": [
            (
                mcp.McpServerToolCallParams(
                    thread_id="t1", server="tests", tool="add", arguments={"a": 1}
                ),
                mcp.McpServerToolCallResponse(
                    content=[{"type": "text", "text": "1"}],
                    structured_content={"result": 1},
                    is_error=False,
                ),
            )
        ],
        "mcpServer/oauth/login": [
            (
                mcp.McpServerOauthLoginParams(name="docs", scopes=["read"], timeout_secs=60),
                mcp.McpServerOauthLoginResponse(
                    authorization_url="https://auth.example/authorize?state=s", login_id="l1"
                ),
            )
        ],
        "mcpServer/resource/read": [
            (
                mcp.McpResourceReadParams(server="tests", uri="memo://a"),
                mcp.McpResourceReadResponse(
                    contents=[
                        {"uri": "memo://a", "mimeType": "text/plain", "text": "hi"},
                        {"uri": "memo://b", "blob": "aGk="},
                    ]
                ),
            )
        ],
        "modelProvider/list": [
            (
                pr.ModelProviderListParams(),
                pr.ModelProviderListResponse(
                    data=[
                        pr.ModelProviderSummary(
                            id="openai",
                            name="OpenAI",
                            can_edit=False,
                            settings=pr.OpenaiProviderSettings(),
                        ),
                        _GATEWAY,
                        pr.ModelProviderSummary(
                            id="local",
                            name="Local",
                            can_edit=True,
                            settings=pr.CustomGatewayProviderSettings(
                                auth=pr.ExternallyConfiguredGatewayAuth()
                            ),
                        ),
                    ],
                    default_provider_id="gw",
                    can_change_default=True,
                ),
            )
        ],
        "modelProvider/capabilities/read": [
            (
                pr.ModelProviderCapabilitiesReadParams(),
                pr.ModelProviderCapabilitiesReadResponse(web_search=True, image_generation=False),
            )
        ],
        "modelProvider/config/write": [
            (
                pr.ModelProviderConfigWriteParams(
                    settings=pr.CustomGatewayProviderSettingsPatch(
                        type="customGateway", name="Gateway", base_url="https://gw.example/v1"
                    )
                ),
                pr.ModelProviderConfigWriteResponse(provider=_GATEWAY),
            )
        ],
        "modelProvider/default/set": [
            (
                pr.ModelProviderDefaultSetParams(provider_id="gw"),
                cw.ConfigWriteResponse(
                    status="ok", version="sha256:00", file_path="/h/config.toml"
                ),
            )
        ],
        "skills/config/write": [
            (
                st.SkillsConfigWriteParams(enabled=False, name="demo"),
                st.SkillsConfigWriteResponse(effective_enabled=False),
            )
        ],
        "skills/extraRoots/set": [
            (
                st.SkillsExtraRootsSetParams(extra_roots=["/opt/skills"]),
                st.SkillsExtraRootsSetResponse(),
            )
        ],
        "hooks/list": [
            (
                st.HooksListParams(cwds=["/repo"]),
                st.HooksListResponse(
                    data=[
                        st.HooksListEntry(
                            cwd="/repo",
                            hooks=[],
                            warnings=["hooks in /repo/.codex/hooks.json are not run"],
                            errors=[st.HookErrorInfo(path="/h/hooks.json", message="bad")],
                        )
                    ]
                ),
            )
        ],
        "experimentalFeature/list": [
            (
                st.ExperimentalFeatureListParams(limit=1),
                st.ExperimentalFeatureListResponse(
                    data=[
                        st.ExperimentalFeature(
                            name="subagent_tools",
                            stage="beta",
                            enabled=False,
                            default_enabled=False,
                            display_name="Subagents",
                            description="Spawn subagents.",
                            announcement="",
                        ),
                        st.ExperimentalFeature(
                            name="skills", stage="stable", enabled=True, default_enabled=True
                        ),
                    ],
                    next_cursor="1",
                ),
            )
        ],
        "experimentalFeature/enablement/set": [
            (
                st.ExperimentalFeatureEnablementSetParams(enablement={"skills": False}),
                st.ExperimentalFeatureEnablementSetResponse(enablement={"skills": False}),
            )
        ],
        "permissionProfile/list": [
            (
                st.PermissionProfileListParams(limit=1),
                st.PermissionProfileListResponse(
                    data=[
                        st.PermissionProfileSummary(id=":read-only", allowed=True),
                        st.PermissionProfileSummary(
                            id="locked", allowed=True, description="No writes"
                        ),
                    ],
                    next_cursor="1",
                ),
            )
        ],
        "feedback/save": [
            (
                fb.FeedbackSaveParams(
                    classification="bug",
                    save_path="/tmp/report.zip",
                    thread_id="t1",
                    include_logs=True,
                    tags={"editor": "vscode"},
                ),
                fb.FeedbackSaveResponse(saved_path="/tmp/report.zip", thread_id="t1"),
            )
        ],
    }
)

_SETTINGS = to.ThreadSettings(
    cwd="/repo",
    model="gpt-5",
    model_provider="openai",
    approval_policy="on-request",
    approvals_reviewer="user",
    sandbox_policy=com.sandbox_policy_to_v2(policy.ReadOnly()),
    collaboration_mode=to.CollaborationMode(
        mode="default", settings=to.CollaborationModeSettings(model="gpt-5")
    ),
    effort="high",
)

NOTIFICATION_SAMPLES: dict[str, list[BaseModel]] = {
    "thread/closed": [to.ThreadClosedNotification(thread_id="t1")],
    "thread/deleted": [to.ThreadDeletedNotification(thread_id="t1")],
    "thread/reverted": [to.ThreadRevertedNotification(thread_id="t1")],
    "thread/compacted": [to.ContextCompactedNotification(thread_id="t1", turn_id="turn1")],
    "thread/settings/updated": [
        to.ThreadSettingsUpdatedNotification(thread_id="t1", thread_settings=_SETTINGS)
    ],
    "configWarning": [
        cw.ConfigWarningNotification(
            summary="bad",
            details="why",
            path="/h/config.toml",
            range=cw.TextRange(
                start=cw.TextPosition(line=1, column=1), end=cw.TextPosition(line=1, column=2)
            ),
        ),
        cw.ConfigWarningNotification(summary="only a summary"),
    ],
    "fs/changed": [fs.FsChangedNotification(watch_id="w", changed_paths=["/a"])],
    "fuzzyFileSearch/sessionUpdated": [
        se.FuzzyFileSearchSessionUpdatedNotification(session_id="s", query="c", files=[_MATCH])
    ],
    "fuzzyFileSearch/sessionCompleted": [
        se.FuzzyFileSearchSessionCompletedNotification(session_id="s")
    ],
    "mcpServer/startupStatus/updated": [
        mcp.McpServerStatusUpdatedNotification(name="tests", status="starting", thread_id="t1"),
        mcp.McpServerStatusUpdatedNotification(
            name="ghost", status="failed", thread_id="t1", error="not found"
        ),
    ],
    "mcpServer/oauthLogin/completed": [
        mcp.McpServerOauthLoginCompletedNotification(name="docs", success=True, login_id="l1"),
        mcp.McpServerOauthLoginCompletedNotification(
            name="docs", success=False, error="the authorization server refused the code"
        ),
    ],
    "skills/changed": [st.SkillsChangedNotification()],
    "thread/goal/updated": [
        gl.ThreadGoalUpdatedNotification(thread_id="t1", turn_id="turn1", goal=_GOAL),
        gl.ThreadGoalUpdatedNotification(
            thread_id="t1", goal=_GOAL.model_copy(update={"token_budget": None})
        ),
    ],
    "thread/goal/cleared": [gl.ThreadGoalClearedNotification(thread_id="t1")],
    "thread/readState/changed": [
        rs.ThreadReadStateChangedNotification(
            thread_id="t1",
            read_state=rs.ThreadReadState(
                first_unread=rs.TurnUnreadPosition(turn_id="turn1"), revision="r2"
            ),
        ),
        rs.ThreadReadStateChangedNotification(
            thread_id="t1", read_state=rs.ThreadReadState(first_unread=None, revision="r3")
        ),
        rs.ThreadReadStateChangedNotification(
            thread_id="t1",
            read_state=rs.ThreadReadState(
                first_unread=rs.ThreadStartUnreadPosition(), revision="r4"
            ),
        ),
    ],
    "thread/section/changed": [
        sc.ThreadSectionChangedNotification(thread_id="t1", section_id="s1"),
        sc.ThreadSectionChangedNotification(thread_id="t1", section_id=None),
    ],
    "thread/attachment/updated": [
        at.ThreadAttachmentUpdatedNotification(
            thread_id="t1",
            attachment_type="pr",
            identity_key="k1",
            attachment_id="a1",
            operation=operation,
        )
        for operation in ("created", "deleted")
    ],
}
