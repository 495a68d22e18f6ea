/**
 * Where a streaming answer's Markdown can be cut: the text before the cut no longer changes
 * how it renders as more arrives, so the page renders it once and re-renders only the rest.
 * A cut is at the start of a line that follows a blank line, outside any fenced code block,
 * and that starts a new block at the margin (an indented line may continue a list or code).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The offset in `text` of the last cut after `from` (a previous cut, or 0), or `from` when
 * there is none yet. Only whole lines count: the line being written may still change.
 */
export function lastCut(text: string, from: number): number {
  let cut = from;
  let fence = '';
  let blank = false;
  let at = from;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    // The last line, without its newline, is still being written: it decides nothing yet.
    if (end < 0) break;
    const line = text.slice(at, end);
    const opener = FENCE.exec(line);
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length && !line.trim().slice(opener[1].length).trim()) fence = '';
    } else {
      if (blank && line.trim() && !/^\s/.test(line)) cut = at;
      if (opener) fence = opener[1];
    }
    blank = !fence && !line.trim();
    at = end + 1;
  }
  return cut;
}
