/**
 * Answers the server's questions about the editor (`codex/editor/*`), which back the model's
 * `editor_*` tools: the open files, a file's text as the editor holds it (unsaved changes
 * included), the selection and cursor of the file being worked on, and the diagnostics every
 * extension reported. The server asks only because the client declared
 * `experimental.codex.editorContext` in `initialize`.
 *
 * Positions are LSP's, 0-based in UTF-16 code units: the same as VS Code's own.
 */

import * as vscode from 'vscode';
import type { LspPosition as Position, LspRange as Range } from '../shared/protocol';

export const EDITOR_REQUESTS = {
  openBuffers: 'codex/editor/openBuffers',
  readBuffer: 'codex/editor/readBuffer',
  selection: 'codex/editor/selection',
  diagnostics: 'codex/editor/diagnostics',
} as const;

export interface OpenBuffer {
  uri: string;
  languageId?: string;
  modified: boolean;
}

export interface ReadBufferResult extends OpenBuffer {
  text: string;
}

export interface SelectionResult {
  uri: string;
  languageId?: string;
  selections: { range: Range; text: string }[];
  cursor?: Position;
}

export interface EditorDiagnostic {
  range: Range;
  message: string;
  severity?: number;
  source?: string;
  code?: number | string;
}

export interface DiagnosticsResult {
  files: { uri: string; diagnostics: EditorDiagnostic[] }[];
}

/** The schemes whose documents are files the server can name by path. */
const FILE_SCHEMES = new Set(['file']);

function isFile(uri: vscode.Uri): boolean {
  return FILE_SCHEMES.has(uri.scheme);
}

/** The same file, however each side spelled its URI (VS Code escapes `:` in drive letters, say). */
function sameFile(a: vscode.Uri, b: vscode.Uri): boolean {
  return a.scheme === b.scheme && a.fsPath === b.fsPath;
}

function parseUri(uri: unknown): vscode.Uri | undefined {
  if (typeof uri !== 'string' || !uri) return undefined;
  try {
    return vscode.Uri.parse(uri, true);
  } catch {
    return undefined;
  }
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((doc) => !doc.isClosed && sameFile(doc.uri, uri));
}

function position(p: vscode.Position): Position {
  return { line: p.line, character: p.character };
}

function range(r: vscode.Range): Range {
  return { start: position(r.start), end: position(r.end) };
}

/**
 * The files the user has open: every text tab, then any document with unsaved changes that no
 * tab shows. `workspace.textDocuments` alone would also list files extensions opened unseen.
 */
export function openBuffers(): { buffers: OpenBuffer[] } {
  const uris: vscode.Uri[] = [];
  const add = (uri: vscode.Uri) => {
    if (isFile(uri) && !uris.some((seen) => sameFile(seen, uri))) uris.push(uri);
  };
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputText) add(tab.input.uri);
    }
  }
  for (const doc of vscode.workspace.textDocuments) if (doc.isDirty) add(doc.uri);
  return {
    buffers: uris.map((uri) => {
      const doc = openDocument(uri);
      return { uri: uri.toString(), languageId: doc?.languageId, modified: doc?.isDirty ?? false };
    }),
  };
}

/** The text of the open document `uri` names, unsaved changes and all; null when it is not open. */
export function readBuffer(params: { uri?: unknown }): ReadBufferResult | null {
  const uri = parseUri(params?.uri);
  const doc = uri && openDocument(uri);
  if (!uri || !doc) return null;
  return { uri: String(params.uri), text: doc.getText(), languageId: doc.languageId, modified: doc.isDirty };
}

/**
 * The editor of the file being worked on: the active one, else the first visible file editor
 * (the chat panel having the focus leaves no active editor in some layouts).
 */
function focusedEditor(): vscode.TextEditor | undefined {
  const active = vscode.window.activeTextEditor;
  if (active && isFile(active.document.uri)) return active;
  return vscode.window.visibleTextEditors.find((editor) => isFile(editor.document.uri));
}

/** The focused file's selections (the empty ones left out) and its cursor; null when none. */
export function selection(): SelectionResult | null {
  const editor = focusedEditor();
  if (!editor) return null;
  const doc = editor.document;
  return {
    uri: doc.uri.toString(),
    languageId: doc.languageId,
    selections: editor.selections
      .filter((sel) => !sel.isEmpty)
      .map((sel) => ({ range: range(sel), text: doc.getText(sel) })),
    cursor: position(editor.selection.active),
  };
}

/** VS Code's severities count from Error = 0; LSP's from Error = 1. */
function severity(value: vscode.DiagnosticSeverity): number {
  return value + 1;
}

function diagnostic(d: vscode.Diagnostic): EditorDiagnostic {
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  return {
    range: range(d.range),
    message: d.message,
    severity: severity(d.severity),
    source: d.source,
    code,
  };
}

/** What every extension reports, for the file `uri` names or, without one, for every file. */
export function diagnostics(params: { uri?: unknown } | null | undefined): DiagnosticsResult {
  const files: DiagnosticsResult['files'] = [];
  if (params?.uri !== undefined && params.uri !== null) {
    const uri = parseUri(params.uri);
    if (!uri) return { files };
    const found = vscode.languages.getDiagnostics(uri);
    if (found.length) files.push({ uri: String(params.uri), diagnostics: found.map(diagnostic) });
    return { files };
  }
  for (const [uri, found] of vscode.languages.getDiagnostics()) {
    if (isFile(uri) && found.length) files.push({ uri: uri.toString(), diagnostics: found.map(diagnostic) });
  }
  files.sort((a, b) => a.uri.localeCompare(b.uri));
  return { files };
}
