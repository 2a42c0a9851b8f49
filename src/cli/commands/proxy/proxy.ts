import { chmodSync, closeSync, openSync } from 'node:fs';
import { isLoopbackHost } from '../../../contract/hosts.js';
import { ExitError } from '../../errors.js';
import { colors, note, printLine, printNdjson, printReadyJson } from '../../output.js';
import type { ProxyCommandOptions } from './index.js';
import { startProxy, type ExchangeSummary } from './server.js';

function targetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ExitError(`--to is not a URL: ${raw}`, 2);
  }
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
    throw new ExitError('--to must use https:// (http:// only to localhost, 127.0.0.0/8 or [::1]).', 2);
  }
  if (url.search || url.hash) throw new ExitError('--to is a base address: no query or fragment.', 2);
  return url;
}

/** The record file is opened (created owner-only) before the proxy listens: a path it cannot write is one clear line. */
function checkRecordFile(file: string): void {
  try {
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600); // an existing file keeps its mode otherwise
  } catch (error) {
    throw new ExitError(`Cannot write the record file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function printExchange(e: ExchangeSummary, json: boolean | undefined): void {
  if (json) {
    printNdjson({ request_id: e.requestId ?? null, method: e.method, path: e.path, status: e.status, duration_ms: Math.round(e.durationMs), violations: e.violations });
    return;
  }
  const c = colors();
  const status = e.status >= 500 ? c.red(e.status) : e.status >= 400 ? c.yellow(e.status) : c.green(e.status);
  const mark = e.violations.length ? c.red('✖') : c.green('✓');
  printLine(`${mark} ${status} ${e.method} ${e.path} ${c.dim(`${Math.round(e.durationMs)} ms ${e.requestId ?? ''}`)}`);
  for (const v of e.violations) printLine(`    ${c.red(v.rule)} ${v.message} ${c.dim(`(spec: ${v.spec}; ${e.requestId ?? 'no request id'})`)}`);
}

/** Runs the proxy until SIGINT/SIGTERM, printing each exchange and its violations of the contract. */
export async function proxyAction(options: ProxyCommandOptions): Promise<void> {
  const to = targetUrl(options.to);
  if (options.record) checkRecordFile(options.record);
  let violations = 0;
  const proxy = await startProxy({
    to: to.href,
    port: options.port,
    host: options.host,
    allowedHosts: options.allowedHost,
    forwardControl: options.forwardControl ?? false,
    record: options.record,
    timeoutMs: options.timeout * 1000,
    onExchange(summary) {
      violations += summary.violations.length;
      printExchange(summary, options.json);
    },
  }).catch((error: NodeJS.ErrnoException) => {
    throw new ExitError(`Cannot listen on ${options.host}:${options.port}: ${error.code ?? error.message}`);
  });
  // The pid stops it from a script: under npx, `$!` is npx's own pid (docs/support.md).
  note(`Proxy listening on ${proxy.url} → ${to.href.replace(/\/$/, '')} (pid ${process.pid}${options.record ? `, recording to ${options.record}` : ''})`);
  if (options.json) printReadyJson({ url: proxy.url, to: to.href.replace(/\/$/, ''), record: options.record ?? null });
  note('Point your ERP at the proxy address. Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await proxy.close();
  note(`Proxy stopped: ${violations} violation${violations === 1 ? '' : 's'} of the contract seen.`);
}
