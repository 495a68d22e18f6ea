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
