// The docs runner's pure parts (test/docs): which fenced blocks of a Markdown file run, and how a
// block is adapted to a fresh emulator. The convention is written in docs/contributing.md.

export interface ShellBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** Fences that run: ```sh only. Everything else (console, text, json, bash-norun, ts…) is not run. */
const RUN_INFO = 'sh';
export const NOT_RUN_MARK = '<!-- not-run -->';

/**
 * The ```sh blocks of a Markdown text, in order, except those whose previous non-blank line is
 * `<!-- not-run -->`. Fences may be indented (inside list items); the indentation is removed.
 */
export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^\\s*${fence[0]}{${fence.length},}\\s*$`).test(lines[j]); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    const marked = k >= 0 && lines[k].trim() === NOT_RUN_MARK;
    if (info === RUN_INFO && !marked) blocks.push({ line: i + 1, code: body.join('\n') });
    i = j;
  }
  return blocks;
}

const SKIPPED = /^npm (install|ci|start|test)\b/;

/** Drops the `npm install`, `npm ci`, `npm start`, `npm test` parts of a line (`npm install && npm start`). */
function dropNpmLifecycle(line: string): string {
  const [command, ...comment] = line.split(/(?<=\s)#/);
  const parts = command.split('&&').map((p) => p.trim());
  if (!parts.some((p) => SKIPPED.test(p))) return line;
  const kept = parts.filter((p) => p !== '' && !SKIPPED.test(p));
  return kept.length ? `${kept.join(' && ')}${comment.length ? ` #${comment.join('#')}` : ''}` : '';
}

export interface Target {
  /** `127.0.0.1:54321`: the emulator's real host and port. */
  hostPort: string;
  testCredential: string;
  liveCredential: string;
}

/**
 * A block as it runs against `target`: the documented address (`127.0.0.1:4010`, `localhost:4010`)
 * and the credential placeholders of the ready line replaced, npm lifecycle commands dropped.
 */
export function adaptBlock(code: string, target: Target): string {
  return code
    .split('\n')
    .map(dropNpmLifecycle)
    .join('\n')
    .replace(/(?:127\.0\.0\.1|localhost):4010\b/g, target.hostPort)
    .replaceAll('svk_test_….svs_test_…', target.testCredential)
    .replaceAll('svk_live_….svs_live_…', target.liveCredential);
}

export const BLOCK_MARK = '__DOCS_BLOCK__';

/**
 * One bash script for a whole file: the blocks in order in one session (variables and files carry
 * over), `set -e` so that any failing command fails its block, a marker line before each block.
 */
export function sessionScript(blocks: { code: string }[]): string {
  const parts = ['set -eo pipefail'];
  // A newline first: the previous command's output may not end with one (`curl -s`).
  blocks.forEach((b, i) => parts.push(`printf '\\n%s\\n' "${BLOCK_MARK} ${i}"`, b.code));
  parts.push(`printf '\\n%s\\n' "${BLOCK_MARK} end"`);
  return `${parts.join('\n')}\n`;
}

/** The index of the block that was running when the output stopped (the last marker), or null at the end. */
export function lastBlock(output: string): number | null {
  const marks = [...output.matchAll(new RegExp(`^${BLOCK_MARK} (\\d+|end)$`, 'gm'))];
  const last = marks.at(-1)?.[1];
  return last === undefined ? 0 : last === 'end' ? null : Number(last);
}
