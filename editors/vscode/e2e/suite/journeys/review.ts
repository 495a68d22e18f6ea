/**
 * Code review: findings in the Problems panel, Fix / Explain / Dismiss, the summary in the chat,
 * and findings that stay true across a fix and a window reload.
 */

import { execFileSync } from 'node:child_process';
import * as vscode from 'vscode';
import { ACCEPT, assert, enqueue, findings, type Journey, modelRequests, textsByRole, ui, waitFor, workspaceFile } from '../support';

type Action = vscode.CodeAction | vscode.Command;

async function codeActions(uri: vscode.Uri, range: vscode.Range): Promise<Action[]> {
  return waitFor('the server code actions on the finding', async () => {
    const list = await vscode.commands.executeCommand<Action[]>('vscode.executeCodeActionProvider', uri, range);
    return list && list.length ? list : undefined;
  });
}

async function runAction(action: Action): Promise<void> {
  const command = 'command' in action && typeof action.command === 'object' ? action.command : (action as vscode.Command);
  await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
}

export const reviewJourneys: Journey[] = [
  // First: a review replaces the last one's findings, and the findings journeys below must
  // leave theirs as the last review for the window reload.
  {
    name: 'review branch: the pick offers the repository\'s default branch first (master, from origin/HEAD) and reviews against it',
    screenshot: 'review-branch-default',
    async run(api, ctx) {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: ctx.workspace, stdio: 'ignore' });
      // A repository whose remote's default branch is master (the workspace works on main).
      git('branch', 'master');
      git('update-ref', 'refs/remotes/origin/master', 'HEAD');
      git('symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/master');
      try {
        await vscode.commands.executeCommand('codexChat.chatView.focus');
        await enqueue(ctx, 'reviewClean');
        const started = vscode.commands.executeCommand('codexChat.reviewBranch');
        const rows = '.quick-input-widget .quick-input-list .monaco-list-row';
        await ui('page.waitFor', { selector: rows, text: 'master' });
        const offered = await ui<string[]>('page.query', { selector: rows });
        assert(offered[0]?.includes('master') && offered[0].includes('default branch'), `master offered first as the default, got ${JSON.stringify(offered)}`);
        assert(offered.some((row) => row.includes('main')), `the other branches are offered too, got ${JSON.stringify(offered)}`);
        await ui('screenshot', { name: 'review-branch-default' });
        await ui('page.press', { key: 'Enter' });
        await started;
        const sent = await waitFor('the review request', async () => (await modelRequests(ctx))[0], 60000);
        const prompt = JSON.stringify(sent.body.input ?? []);
        assert(prompt.includes("against the base branch 'master'"), 'the review ran against master');
        await waitFor('the review turn to end', () => !api.store.state.conversation?.runningTurnId, 60000);
      } finally {
        git('symbolic-ref', '--delete', 'refs/remotes/origin/HEAD');
        git('update-ref', '-d', 'refs/remotes/origin/master');
        git('branch', '-D', 'master');
      }
    },
  },
  {
    name: 'review: findings land in Problems; Fix makes its finding go; the summary links to the files; nothing says "Reviewing" after the end',
    screenshot: 'review-fixed',
    async run(api, ctx) {
      const main = workspaceFile(ctx, 'review_me.py');
      const other = workspaceFile(ctx, 'stats.py');
      await vscode.commands.executeCommand('codexChat.chatView.focus');
      await enqueue(ctx, 'review');
      const started = await vscode.commands.executeCommand<{ error?: string } | undefined>('codexChat.reviewUncommitted');
      assert(!started?.error, `the review did not start: ${started?.error}`);
      const found = await waitFor('codex diagnostics on review_me.py', () => (findings(main).length ? findings(main) : undefined), 120000);
      await waitFor('codex diagnostics on stats.py', () => findings(other).length > 0, 30000);
      assert(found.some((d) => d.message.includes('Division by zero')), `finding text, got ${found.map((d) => d.message)}`);
      assert(found[0].range.start.line === 1, `finding on line 2, got line ${found[0].range.start.line + 1}`);
      await waitFor('the review turn to end', () => !api.store.state.conversation?.runningTurnId, 60000);

      // The chat: no "Reviewing…" left, and the findings' places are links to the files.
      await ui('chat.waitFor', { selector: '#log', text: 'The new parameter can be zero.' });
      // The server repeats the review as an agent message: the chat shows it once.
      const answers = await ui<string[]>('chat.query', { selector: '#log .msg.agent .md' });
      const repeats = answers.filter((a) => a.includes('The new parameter can be zero.'));
      assert(repeats.length === 1, `the review text once, got ${repeats.length} times`);
      const notes = await ui<string[]>('chat.query', { selector: '#log .review-note' });
      assert(notes.length && notes.every((n) => !n.includes('Reviewing')), `the review note after the end, got ${JSON.stringify(notes)}`);
      await ui('chat.waitFor', { selector: 'a.file-link', text: 'review_me.py:2' });
      await ui('chat.click', { selector: 'a.file-link:has-text("review_me.py:2")' });
      const opened = await waitFor('the file opened at the finding', () => {
        const ed = vscode.window.activeTextEditor;
        return ed?.document.uri.fsPath === main.fsPath ? ed : undefined;
      });
      assert(opened.selection.active.line === 1, `the cursor on line 2, got ${opened.selection.active.line + 1}`);

      // Fix with Codex: the change is approved, and the finding it fixed leaves Problems.
      await enqueue(ctx, 'fix');
      const actions = await codeActions(main, found[0].range);
      const titles = actions.map((a) => a.title);
      for (const word of [/fix/i, /explain/i, /dismiss/i]) {
        assert(titles.some((t) => word.test(t)), `a ${word} code action, got ${JSON.stringify(titles)}`);
      }
      await runAction(actions.find((a) => /fix/i.test(a.title))!);
      await ui('chat.waitFor', { selector: '.request.approval', text: 'Apply this change?' });
      await ui('chat.click', { selector: `.request.approval ${ACCEPT}` });
      await waitFor('the fix in the buffer', async () => (await vscode.workspace.openTextDocument(main)).getText().includes('if count == 0'));
      await waitFor('the fixed finding to leave Problems', () => findings(main).length === 0, 60000);
      assert(findings(other).length === 1, 'the other finding stays');
      await ui('chat.waitFor', { selector: '#log .msg.user .text', text: 'Division by zero' });
      const users = (await ui<string[]>('chat.query', { selector: '#log .msg.user .text' })).map((t) => t.trim());
      assert(users.some((u) => u.startsWith('Fix') && u.includes('Division by zero')), `the fix request as the user asked it, got ${JSON.stringify(users)}`);
      assert(!users.some((u) => /apply_patch/.test(u)), `no instructions in the chat, got ${JSON.stringify(users)}`);
      const [fixRequest] = await modelRequests(ctx);
      assert(/apply_patch/.test(textsByRole(fixRequest, 'developer').join('\n')), 'the fix instructions reached the model');
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      await ui('page.waitFor', { selector: '.markers-panel', text: 'Average of an empty list' });
      // A P3 nit is listed too (a Hint would not be).
      await ui('page.waitFor', { selector: '.markers-panel', text: 'alpha.txt could say what it is for' });
      await ui('screenshot', { name: 'review-fixed' });
    },
  },
  {
    name: 'review: after a window reload, the findings still open are back in the Problems panel, the fixed one is not',
    screenshot: 'review-after-reload',
    phase: 2,
    async run(_api, ctx) {
      const main = workspaceFile(ctx, 'review_me.py');
      const other = workspaceFile(ctx, 'stats.py');
      await waitFor('the remaining finding after the reload', () => findings(other).some((d) => d.message.includes('Average of an empty list')), 120000);
      assert(findings(main).length === 0, `the fixed finding stays fixed, got ${findings(main).map((d) => d.message)}`);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      await ui('page.waitFor', { selector: '.markers-panel', text: 'Average of an empty list' });
      await ui('screenshot', { name: 'review-after-reload' });
    },
  },
];
