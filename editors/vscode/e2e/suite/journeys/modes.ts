/**
 * The panel's modes: Agent (the default) lands an in-project patch without asking; Chat is
 * read-only and says so in the approval it asks; with "never" a refused patch shows in the
 * transcript with its reason; Plan changes nothing and shows its plan as a checklist that
 * updates, then Agent carries the plan out.
 */

import * as vscode from 'vscode';
import { ACCEPT, assert, enqueue, freshThread, type Journey, modelRequests, readDisk, turnFinished, ui, waitFor, workspaceFile } from '../support';

async function exists(uri: vscode.Uri): Promise<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

export const modeJourneys: Journey[] = [
  {
    name: 'modes: Agent (the default) lands an in-project patch unasked; Chat asks saying the sandbox is read-only; "never" shows the refusal',
    screenshot: 'modes-refused',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      // As a fresh profile has it: approvals by mode.
      await ui('chat.select', { selector: '#policy', value: '' });
      const chosen = await ui<boolean>('chat.eval', { expression: 'document.getElementById("mode").value === "agent"' });
      assert(chosen, 'Agent is the mode a fresh panel starts in');
      await ui('chat.waitFor', { selector: '#policy option:checked', text: 'Approvals: on-request (Agent mode)' });

      await enqueue(ctx, 'modeAgent');
      await ui('chat.send', { text: 'Write agent notes' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '#log', text: 'Done with agent_notes.txt.' });
      assert(api.store.state.requests.length === 0, 'Agent asked for nothing');
      assert((await readDisk(workspaceFile(ctx, 'agent_notes.txt'))) === 'written in this mode\n', 'the patch landed');
      await ui('screenshot', { name: 'modes-agent' });

      await ui('chat.select', { selector: '#mode', value: 'chat' });
      await ui('chat.waitFor', { selector: '#policy option:checked', text: 'Approvals: on-request (Chat mode)' });
      await enqueue(ctx, 'modeChat');
      await ui('chat.send', { text: 'Write chat notes' });
      await ui('chat.waitFor', { selector: '.request.approval .reason', text: 'the sandbox is read-only; the patch writes' });
      const reasons = (await ui<string[]>('chat.query', { selector: '.request.approval .reason' })).join(' ');
      assert(!reasons.includes('outside'), `no "outside" for a file in the project, got ${reasons}`);
      await ui('screenshot', { name: 'modes-chat-asks' });
      await ui('chat.click', { selector: ACCEPT });
      await turnFinished(api, threadId, 2);
      assert(await exists(workspaceFile(ctx, 'chat_notes.txt')), 'the approved patch landed');

      await ui('chat.select', { selector: '#policy', value: 'never' });
      await enqueue(ctx, 'modeNever');
      await ui('chat.send', { text: 'Write never notes' });
      await turnFinished(api, threadId, 3);
      await ui('chat.waitFor', { selector: '.files.status-declined .files-out', text: 'writing is blocked by read-only sandbox' });
      await ui('chat.waitFor', { selector: '.files.status-declined', text: 'never_notes.txt' });
      assert(!(await exists(workspaceFile(ctx, 'never_notes.txt'))), 'nothing was written');
      await ui('screenshot', { name: 'modes-refused' });
      await ui('chat.select', { selector: '#policy', value: 'untrusted' });
      await ui('chat.select', { selector: '#mode', value: 'agent' });
      for (const name of ['agent_notes.txt', 'chat_notes.txt']) await vscode.workspace.fs.delete(workspaceFile(ctx, name));
    },
  },
  {
    name: 'plan mode: nothing is changed, the plan is a checklist that updates and the proposed plan shows; Agent then carries it out',
    screenshot: 'plan-mode',
    async run(api, ctx) {
      const threadId = await freshThread(api);
      await ui('chat.select', { selector: '#policy', value: '' });
      await ui('chat.select', { selector: '#mode', value: 'plan' });
      await enqueue(ctx, 'modePlan');
      await ui('chat.send', { text: 'Plan the notes file' });
      await turnFinished(api, threadId);
      await ui('chat.waitFor', { selector: '.plan-steps .step-completed', text: 'Read calc.py' });
      await ui('chat.waitFor', { selector: '.plan-steps .step-inProgress', text: 'Write planned.txt' });
      await ui('chat.waitFor', { selector: '.plan-item', text: 'Add planned.txt with one line' });
      await ui('chat.waitFor', { selector: '#log .msg.agent', text: 'Here is the plan.' });
      const answers = await ui<string[]>('chat.query', { selector: '#log .msg.agent' });
      assert(!answers.some((a) => a.includes('proposed_plan') || a.includes('Add planned.txt')), `the plan shows once, got ${JSON.stringify(answers)}`);
      await ui('chat.waitFor', { selector: '.files.status-declined .files-out', text: 'Plan mode is read-only' });
      assert(!(await exists(workspaceFile(ctx, 'planned.txt'))), 'Plan mode wrote nothing');
      const told = JSON.stringify((await modelRequests(ctx))[2]?.body.input ?? []);
      assert(told.includes('Plan mode is read-only'), 'the model was told the patch was refused');
      await ui('screenshot', { name: 'plan-mode' });

      await ui('chat.select', { selector: '#mode', value: 'agent' });
      await enqueue(ctx, 'modeAgainAgent');
      await ui('chat.send', { text: 'Do it' });
      await turnFinished(api, threadId, 2);
      assert(api.store.state.requests.length === 0, 'Agent asked for nothing');
      assert((await readDisk(workspaceFile(ctx, 'planned.txt'))) === 'written in this mode\n', 'Agent carried the plan out');
      await ui('chat.select', { selector: '#policy', value: 'untrusted' });
      await vscode.workspace.fs.delete(workspaceFile(ctx, 'planned.txt'));
    },
  },
  {
    name: 'modes: the chosen mode holds over config.toml\'s approval_policy: Agent lands an in-project patch unasked with "untrusted" configured',
    screenshot: 'modes-over-config',
    async run(api, ctx) {
      const client = api.server.client;
      assert(client, 'the server is running');
      const setPolicy = async (value: string | null) => {
        await client.sendRequest('codex/config/value/write', { keyPath: 'approval_policy', value, mergeStrategy: 'replace' });
        await api.controller.loadConfig();
      };
      await setPolicy('untrusted');
      try {
        await waitFor('the configured policy to be read', () => api.store.state.configured.approvalPolicy === 'untrusted');
        const threadId = await freshThread(api);
        await ui('chat.select', { selector: '#policy', value: '' });
        await ui('chat.select', { selector: '#mode', value: 'agent' });
        await enqueue(ctx, 'modeAgent');
        await ui('chat.send', { text: 'Write agent notes' });
        await waitFor('the turn to start', () => api.store.state.conversation?.turns.length);
        await waitFor('the turn to end, or an approval', () => !api.store.state.conversation?.runningTurnId || api.store.state.requests.length > 0, 90000);
        assert(api.store.state.requests.length === 0, 'Agent asked for nothing');
        await turnFinished(api, threadId);
        await ui('chat.waitFor', { selector: '#log', text: 'Done with agent_notes.txt.' });
        assert((await readDisk(workspaceFile(ctx, 'agent_notes.txt'))) === 'written in this mode\n', 'the patch landed');
        // The effective policy is the mode's, and the picker says so.
        await ui('chat.waitFor', { selector: '#policy option:checked', text: 'Approvals: on-request (Agent mode)' });
        const tip = await ui<string>('chat.eval', { expression: 'document.getElementById("policy").title' });
        assert(tip.includes("replaces config.toml's approval_policy (untrusted)"), `the picker names the config it overrides, got ${tip}`);
        await ui('screenshot', { name: 'modes-over-config' });
      } finally {
        await setPolicy(null);
        await ui('chat.select', { selector: '#policy', value: 'untrusted' });
        await vscode.workspace.fs.delete(workspaceFile(ctx, 'agent_notes.txt')).then(undefined, () => undefined);
      }
    },
  },
];
