/**
 * The script a command line runs, for display: `/bin/bash -lc 'ls -la'` is shown as `ls -la`.
 *
 * The server sends a command as its argv joined with POSIX shell quoting; the rule for which
 * argv is a shell running a script is the server's (`SHELL -c SCRIPT`, `-lc`, `-cl`, `-l -c`).
 */

const SCRIPT_SHELLS = new Set(['bash', 'zsh', 'sh', 'dash', 'ksh']);
const SCRIPT_FLAGS = new Set(['-c', '-lc', '-cl']);

/** The words of a POSIX-quoted command line, or undefined when its quoting is not closed. */
export function splitShellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '$`"\\\n'.includes(line[j + 1])) j++;
        word += line[j];
      }
      if (j >= line.length) return undefined;
      inWord = true;
      i = j;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) return undefined;
      word += line[++i];
      inWord = true;
    } else if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The SCRIPT of `SHELL -c SCRIPT` (and its login forms), else undefined. */
export function shellScript(argv: readonly string[]): string | undefined {
  if (argv.length < 3) return undefined;
  const shell = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  if (!SCRIPT_SHELLS.has(shell)) return undefined;
  const flags = argv.slice(1, -1);
  if ((flags.length === 2 && flags[0] === '-l' && flags[1] === '-c') || (flags.length === 1 && SCRIPT_FLAGS.has(flags[0]))) {
    return argv[argv.length - 1];
  }
  return undefined;
}

/** A command line as a user reads it: the script alone when it is a shell running one. */
export function displayCommand(command: string): string {
  const words = splitShellWords(command);
  return (words && shellScript(words)) ?? command;
}
