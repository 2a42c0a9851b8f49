// A bench's options, as node:util's parseArgs reads them, with the answers a person expects of a
// command: `--help` prints the bench's header comment (what it measures and its usage line) and
// exits 0; an unknown option or a missing value prints one `error:` line and the usage line, exit 2,
// never a stack trace.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** The leading `//` comment of the bench's file, without the slashes. */
function headerOf(url) {
  const lines = [];
  for (const line of readFileSync(fileURLToPath(url), 'utf8').split('\n')) {
    if (!line.startsWith('//')) break;
    lines.push(line.replace(/^\/\/ ?/, ''));
  }
  return lines;
}

/** parseArgs(config) for the bench at `url` (its import.meta.url), with --help and clear usage errors. */
export function benchArgs(url, config) {
  const args = config.args ?? process.argv.slice(2);
  const header = headerOf(url);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(header.join('\n').trim());
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args });
  } catch (err) {
    const usage = header.find((line) => /^\s*node bench\//.test(line));
    console.error(`error: ${err.message}${usage ? `\nusage: ${usage.trim()}` : ''}\n(--help says more)`);
    process.exit(2);
  }
}
