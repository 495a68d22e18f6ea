"""The method families the `ApiServer` serves besides its core thread and turn methods.

Each is a module with `handlers(ctx: ApiContext) -> Routes`; its methods and wire types live
in the folder of the same name under `codex_lsp.protocol`.
"""

from __future__ import annotations

from types import ModuleType

from codex_lsp.api.account import accounts
from codex_lsp.api.catalog import model_list, skills
from codex_lsp.api.commands import background_terminals, exec as commands
from codex_lsp.api.config import read as config_read, write as config_write
from codex_lsp.api.feedback import save as feedback
from codex_lsp.api.file_search import sessions as fuzzy_search
from codex_lsp.api.fs import files as fs
from codex_lsp.api.mcp import servers as mcp_servers
from codex_lsp.api.providers import listing as providers
from codex_lsp.api.settings import features as settings, skills as skills_settings
from codex_lsp.api.threads import (
    attachments as thread_attachments,
    goals as thread_goals,
    ops as thread_ops,
    pages as thread_pages,
    read_state,
    records as thread_records,
    search as thread_search,
    sections as thread_sections,
    session_approvals as thread_session_approvals,
    settings as thread_settings,
)

API_FAMILIES: tuple[ModuleType, ...] = (
    accounts,
    model_list,
    skills,
    config_read,
    commands,
    background_terminals,
    thread_records,
    thread_pages,
    thread_ops,
    thread_settings,
    config_write,
    fs,
    fuzzy_search,
    mcp_servers,
    providers,
    read_state,
    thread_goals,
    thread_search,
    thread_sections,
    thread_attachments,
    thread_session_approvals,
    skills_settings,
    settings,
    feedback,
)
