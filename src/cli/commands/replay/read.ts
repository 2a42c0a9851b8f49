import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ExitError } from '../../errors.js';
import type { Exchange } from '../proxy/record.js';
import { replayablePath } from './path.js';

/** The exchanges of a record file written by `merchant-kit proxy --record`, in file order. */
export async function readRecording(file: string): Promise<Exchange[]> {
  const out: Exchange[] = [];
  const input = createReadStream(file);
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new ExitError(`error: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 2);
  }
  let line = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line++;
    if (!text.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ExitError(`error: ${file}:${line}: not a JSON line.`, 2);
    }
    if (!isExchange(parsed)) throw new ExitError(`error: ${file}:${line}: not an exchange recorded by "merchant-kit proxy --record".`, 2);
    const path = replayablePath(parsed.request.path);
    if (path === undefined) {
      const shown = parsed.request.path.length > 200 ? `${parsed.request.path.slice(0, 200)}…` : parsed.request.path;
      throw new ExitError(`error: ${file}:${line}: refused ${JSON.stringify(shown)}: replay sends only calls of the API (/v1/… and /sandbox/v1/…); nothing was sent.`, 2);
    }
    parsed.request.path = path;
    out.push(parsed);
  }
  return out;
}

/** Header names to text values, as the recorder writes them (replay maps ids inside the values). */
function isHeaderBag(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

function isExchange(value: unknown): value is Exchange {
  const e = value as Partial<Exchange> | null;
  return (
    !!e &&
    e.format === 'merchant-kit.exchange' &&
    e.version === 1 &&
    typeof e.seq === 'number' &&
    typeof e.request?.method === 'string' &&
    typeof e.request.path === 'string' &&
    e.request.path.startsWith('/') &&
    isHeaderBag(e.request.headers) &&
    e.request.body !== undefined &&
    typeof e.response?.status === 'number' &&
    e.response.body !== undefined
  );
}
