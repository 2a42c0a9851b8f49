import { ExitError, usageError } from '../errors.js';

/**
 * Asks on stderr and reads a line from the terminal without echoing it (for credentials).
 * Needs a TTY: without one the credential must come from `--credential-stdin`.
 */
export function promptHidden(question: string, stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (!stdin.isTTY) {
    return Promise.reject(usageError('error: no terminal to ask for the credential; pipe it with --credential-stdin'));
  }
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (result: string | Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done(value.trim());
        if (ch === '\u0003') return done(new ExitError('error: cancelled', 1));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}
