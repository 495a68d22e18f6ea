/**
 * The branches a "Review branch" offers, the repository's default one first: the remote's
 * default (origin/HEAD), else main or master (whichever exists), else the current branch's
 * upstream. Read with git in the workspace folder; a folder that is not a repository offers
 * nothing, and the user types a name.
 */

import { execFile } from 'node:child_process';

function git(cwd: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10000 }, (err, stdout) => resolve(err ? undefined : stdout.trim()));
  });
}

export interface BaseBranches {
  /** The repository's default branch, as a name git resolves here. */
  fallback?: string;
  /** Every local branch, the default first. */
  branches: string[];
}

export async function baseBranches(cwd: string | undefined): Promise<BaseBranches> {
  if (!cwd) return { branches: [] };
  const local = ((await git(cwd, ['for-each-ref', '--format=%(refname:short)', 'refs/heads'])) ?? '').split('\n').filter(Boolean);
  let fallback: string | undefined;
  const remoteHead = await git(cwd, ['symbolic-ref', '--quiet', '--short', 'refs/remotes/origin/HEAD']);
  if (remoteHead) {
    const name = remoteHead.replace(/^origin\//, '');
    // The local branch when there is one, else the remote's, which git resolves either way.
    fallback = local.includes(name) ? name : remoteHead;
  }
  fallback ??= ['main', 'master'].find((name) => local.includes(name));
  fallback ??= await git(cwd, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']);
  const branches = fallback ? [fallback, ...local.filter((b) => b !== fallback)] : local;
  return { fallback, branches };
}
