/**
 * The end-to-end journeys, run inside the real extension host (`extensionTestsPath`). They use
 * the VS Code API for what an extension can see (buffers, diagnostics, tabs, undo) and ask the
 * driver (e2e/driver.mjs) for what a user does: type in the chat panel, click its buttons, use
 * the context menu, read the Problems panel and the status bar. The model is the scripted
 * server; each journey enqueues its scripts (built by tests/vscode/test_vscode.py).
 *
 * Journeys of a later phase run after a real window reload, which the suite asks for itself.
 */

import * as vscode from 'vscode';
import type { CodexApi } from '../../src/extension';
import { approvalJourneys } from './journeys/approvals';
import { changeJourneys } from './journeys/changes';
import { chatJourneys } from './journeys/chat';
import { editorJourneys } from './journeys/editor';
import { editorContextJourneys } from './journeys/editorContext';
import { hunkReviewJourneys } from './journeys/hunkReview';
import { imageJourneys, imageReloadJourneys } from './journeys/images';
import { inlineJourneys } from './journeys/inline';
import { longThreadJourneys } from './journeys/longThread';
import { modeJourneys } from './journeys/modes';
import { narrowJourneys } from './journeys/narrow';
import { panelJourneys } from './journeys/panel';
import { renderJourneys } from './journeys/render';
import { reviewJourneys } from './journeys/review';
import { sessionApprovalJourneys } from './journeys/sessionApprovals';
import { firstStartJourneys } from './journeys/firstStart';
import { startupJourneys } from './journeys/startup';
import { threadJourneys } from './journeys/threads';
import { type Context, getConfig, log, post, setDriverUrl, ui, waitFor, type Journey } from './support';

const journeys: Journey[] = [
  ...firstStartJourneys,
  ...startupJourneys,
  ...chatJourneys,
  ...modeJourneys,
  ...narrowJourneys,
  ...editorJourneys,
  ...editorContextJourneys,
  ...inlineJourneys,
  ...hunkReviewJourneys,
  ...approvalJourneys,
  ...sessionApprovalJourneys,
  ...changeJourneys,
  ...threadJourneys,
  ...reviewJourneys,
  ...renderJourneys,
  ...longThreadJourneys,
  ...imageJourneys,
  // Last: its first half leaves the Explorer shown for the window reload.
  ...panelJourneys,
  ...imageReloadJourneys,
];

interface Result {
  name: string;
  ok: boolean;
  ms: number;
  screenshot?: string;
  error?: string;
}

/** Every file of the workspace (but `.git`), by path, as the phase starts. */
async function snapshot(root: vscode.Uri, files = new Map<string, Uint8Array>()): Promise<Map<string, Uint8Array>> {
  for (const [name, type] of await vscode.workspace.fs.readDirectory(root)) {
    const uri = vscode.Uri.joinPath(root, name);
    if (type === vscode.FileType.Directory && name !== '.git') await snapshot(uri, files);
    if (type === vscode.FileType.File) files.set(uri.fsPath, await vscode.workspace.fs.readFile(uri));
  }
  return files;
}

/**
 * The pickers each journey starts with: the default mode (Agent), approvals asked for every
 * change and command (journeys answer them), model and effort as configured.
 */
export const BASELINE = { model: '', effort: '', approvalPolicy: 'untrusted', mode: 'agent' } as const;

/**
 * After a failed journey, put back what journeys share, so that one failure is reported once
 * rather than as every journey after it: no running turn, the pickers and settings as
 * configured, the workspace's files and buffers as the phase began, no editor open, and the
 * model's queue empty.
 */
async function recover(api: CodexApi, ctx: Context, files: Map<string, Uint8Array>): Promise<void> {
  await api.controller.interrupt().catch(() => false);
  api.controller.select({ ...BASELINE });
  await vscode.workspace.getConfiguration('codexChat').update('hunkReview', undefined, vscode.ConfigurationTarget.Workspace);
  await vscode.commands.executeCommand('refactorPreview.discard').then(undefined, () => undefined);
  for (const [path, content] of files) {
    const uri = vscode.Uri.file(path);
    const now = await vscode.workspace.fs.readFile(uri).then(undefined, () => undefined);
    if (!now || Buffer.compare(Buffer.from(now), Buffer.from(content)) !== 0) await vscode.workspace.fs.writeFile(uri, content);
  }
  for (const doc of vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === 'file')) {
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('workbench.action.files.revert');
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  await fetch(`${ctx.modelControl}/_control/reset`, { method: 'POST' });
  await waitFor('the turn to stop', () => !api.store.state.conversation?.runningTurnId, 30000);
}

export async function run(): Promise<void> {
  setDriverUrl(process.env.CODEX_E2E_DRIVER || vscode.workspace.getConfiguration('codexE2E').get<string>('driverUrl') || '');
  const results: Result[] = [];
  let reload = false;
  try {
    const ctx = await getConfig();
    const extension = vscode.extensions.getExtension<CodexApi>('codex-lsp.codex-lsp-vscode');
    if (!extension) throw new Error('the Codex extension is not installed');
    const api = await extension.activate();
    if (!ctx.fresh) {
      log(`phase ${ctx.phase}: waiting for the server`);
      await waitFor('the Codex server to start', () => api.store.state.server.state === 'ready', 120000);
      if (ctx.phase === 1) api.controller.select({ ...BASELINE });
    }
    const workspace = await snapshot(vscode.Uri.file(ctx.workspace));
    const parts = (ctx.only ?? '').split('|').filter(Boolean);
    const chosen = journeys
      .filter((j) => Boolean(j.fresh) === Boolean(ctx.fresh))
      .filter((j) => !parts.length || parts.some((part) => j.name.includes(part)));
    for (const journey of chosen.filter((j) => (j.phase ?? 1) === ctx.phase)) {
      const start = Date.now();
      log(`start: ${journey.name}`);
      try {
        await journey.run(api, ctx);
        results.push({ name: journey.name, ok: true, ms: Date.now() - start, screenshot: journey.screenshot });
        log(`pass: ${journey.name}`);
      } catch (err) {
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        results.push({ name: journey.name, ok: false, ms: Date.now() - start, error });
        log(`FAIL: ${journey.name}\n${error}`);
        await ui('screenshot', { name: `failed-${journey.screenshot}` }).catch(() => undefined);
        await recover(api, ctx, workspace).catch((cause) => log(`recovery after the failure: ${cause}`));
      }
    }
    reload = chosen.some((j) => (j.phase ?? 1) > ctx.phase);
  } catch (err) {
    results.push({ name: 'suite set-up', ok: false, ms: 0, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
  await post('/done', { tests: results, reload });
  if (reload) {
    // Unsaved buffers would hold the reload at a dialog.
    await vscode.commands.executeCommand('workbench.action.files.saveAll');
    await vscode.commands.executeCommand('workbench.action.reloadWindow');
    // The reload ends this extension host; returning would close the window instead.
    await new Promise<never>(() => undefined);
  }
}
