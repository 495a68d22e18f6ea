/** The command line that starts the language server, from the extension's settings. */

export interface ServerSettings {
  pythonPath?: string;
  serverCommand?: string[];
  serverArgs?: string[];
  serverEnv?: Record<string, string>;
}

export interface ServerCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Python run by the start-up check with `-c`: it fails when codex_lsp cannot be imported, and
 * prints the warm launcher's command line (JSON), or `null` from a codex-lsp without one.
 */
export const LAUNCHER_PROBE = [
  'import json, codex_lsp',
  'try:',
  '    from codex_lsp.appserver.attach import launcher',
  'except ImportError:',
  '    print("null")',
  'else:',
  '    print(json.dumps(launcher(["serve"])))',
].join('\n');

/** The launcher's command line from what `LAUNCHER_PROBE` printed; undefined when there is none. */
export function parseLauncher(stdout: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(stdout.trim().split('\n').pop() ?? '');
    if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string')) {
      return value as string[];
    }
  } catch {
    // not JSON: no launcher
  }
  return undefined;
}

/**
 * The warm start: the launcher (`<python> -I -S .../attach.py serve`), which connects to the
 * per-user server and is served by a session forked from it, then `serverArgs`.
 */
export function warmServerCommand(settings: ServerSettings, launcher: string[]): ServerCommand {
  return {
    command: launcher[0],
    args: [...launcher.slice(1), ...(settings.serverArgs ?? [])],
    env: settings.serverEnv ?? {},
  };
}

/** `serverCommand` when set, else `<pythonPath or python3> -m codex_lsp serve`; then `serverArgs`. */
export function serverCommand(settings: ServerSettings): ServerCommand {
  const custom = (settings.serverCommand ?? []).filter((s) => s.trim());
  const extra = settings.serverArgs ?? [];
  const env = settings.serverEnv ?? {};
  if (custom.length) return { command: custom[0], args: [...custom.slice(1), ...extra], env };
  const python = (settings.pythonPath ?? '').trim() || 'python3';
  return { command: python, args: ['-m', 'codex_lsp', 'serve', ...extra], env };
}

/** How the command reads in the log and in error messages. */
export function describeCommand(cmd: ServerCommand): string {
  return [cmd.command, ...cmd.args].map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(' ');
}
