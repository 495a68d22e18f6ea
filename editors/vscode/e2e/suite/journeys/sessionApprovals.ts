/** What was allowed for the session: offered on the approval, listed in the panel, revoked there. */

import * as vscode from 'vscode';
import type { Action } from '../../../src/shared/state';
import { assert, enqueue, freshThread, type Journey, turnFinished, ui, waitFor } from '../support';

const ALWAYS = 'button[data-action="decide"][data-decision="acceptWithExecpolicyAmendment"]';

export const sessionApprovalJourneys: Journey[] = [
  {
    name: 'session approvals: "Always allow commands starting with …" lets the next one run unasked; revoked in the panel, it asks again',
    screenshot: 'session-approvals',
    async run(api, ctx) {
      const asked: string[] = [];
      const count = (): number => asked.length;
      const watch = api.store.onDidChange(({ action }: { action: Action }) => {
        if (action.type === 'request') asked.push(action.key);
      });
      try {
        const threadId = await freshThread(api);
        await enqueue(ctx, 'allowedCommand');
        await ui('chat.send', { text: 'Touch the allowed file' });
        await ui('chat.waitFor', { selector: ALWAYS, text: 'Always allow commands starting with “touch allowed.txt”' });
        await ui('chat.click', { selector: ALWAYS });
        await turnFinished(api, threadId);
        assert(count() === 1, `asked once, got ${count()}`);
        await ui('chat.waitFor', { selector: '.session-approvals', text: 'touch allowed.txt' });

        // The next matching command runs without asking.
        await vscode.workspace.fs.delete(vscode.Uri.file(`${ctx.workspace}/allowed.txt`));
        await enqueue(ctx, 'allowedCommand');
        await ui('chat.send', { text: 'Touch it again' });
        await turnFinished(api, threadId, 2);
        assert(count() === 1, `not asked again, got ${count()} approvals`);
        await waitFor('the command to have run unasked', async () => (await vscode.workspace.fs.stat(vscode.Uri.file(`${ctx.workspace}/allowed.txt`))).type === vscode.FileType.File);
        await ui('screenshot', { name: 'session-approvals' });

        // Revoked: gone from the list, and the next one asks.
        await ui('chat.click', { selector: '.session-approvals button[data-action="revokeApproval"]' });
        await ui('chat.waitFor', { absent: '.session-approvals' });
        await enqueue(ctx, 'allowedCommand');
        await ui('chat.send', { text: 'And once more' });
        await ui('chat.waitFor', { selector: '.request.approval', text: 'Run this command?' });
        assert(count() === 2, `asked again after the revoke, got ${count()}`);
        await ui('screenshot', { name: 'session-approvals-revoked' });
        await ui('chat.click', { selector: '.request.approval button[data-action="decide"][data-decision="decline"]' });
        await turnFinished(api, threadId, 3);
      } finally {
        watch.dispose();
        await vscode.workspace.fs.delete(vscode.Uri.file(`${ctx.workspace}/allowed.txt`)).then(undefined, () => undefined);
      }
    },
  },
];
