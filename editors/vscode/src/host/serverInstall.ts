/**
 * The server shipped with the extension: the .vsix carries codex-lsp as a wheel (`server/`), and
 * one click installs it into a virtual environment in the extension's global storage with the
 * user's Python 3.11+ (pip fetches its dependencies, compiled ones included, for that Python).
 * The installed server is used whenever the User settings name no Python and no command.
 */

import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

const VENV = 'server';

/** Where the installed server's Python is, whether or not it is there yet. */
export function installedPython(storage: vscode.Uri): string {
  return path.join(storage.fsPath, VENV, 'bin', 'python');
}

export function hasInstalledServer(storage: vscode.Uri): boolean {
  return existsSync(installedPython(storage));
}

/** The wheel the .vsix carries, if this build has one. */
export function bundledWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, 'server');
  const wheel = existsSync(dir) ? readdirSync(dir).find((name) => /^codex_lsp-.*\.whl$/.test(name)) : undefined;
  return wheel ? path.join(dir, wheel) : undefined;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv, log: vscode.LogOutputChannel): Promise<string> {
  log.info(`$ ${[command, ...args].join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const said = `${stdout}${stderr}`.trim();
      if (said) log.info(said);
      if (error) reject(new Error(said.split('\n').slice(-3).join('\n') || error.message));
      else resolve(String(stdout));
    });
  });
}

/**
 * Install the bundled server with `python` (a Python 3.11+): a venv in global storage, then
 * `pip install` of the wheel. Rejects with what went wrong, in words for the panel.
 */
export async function installServer(
  python: string,
  extensionPath: string,
  storage: vscode.Uri,
  env: NodeJS.ProcessEnv,
  log: vscode.LogOutputChannel,
): Promise<string> {
  const wheel = bundledWheel(extensionPath);
  if (!wheel) throw new Error('this build of the extension carries no server to install.');
  const version = await run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], env, log).catch(() => {
    throw new Error(`no Python "${python}" could be run. Install Python 3.11 or later, or set "codexChat.pythonPath".`);
  });
  const [major, minor] = version.trim().split('.').map(Number);
  if (major !== 3 || minor < 11) {
    throw new Error(`${python} is Python ${version.trim()}; the Codex server needs Python 3.11 or later. Set "codexChat.pythonPath" to one.`);
  }
  await vscode.workspace.fs.createDirectory(storage);
  const venv = path.join(storage.fsPath, VENV);
  await run(python, ['-m', 'venv', '--clear', venv], env, log);
  const installed = installedPython(storage);
  await run(installed, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', wheel], env, log);
  return installed;
}
