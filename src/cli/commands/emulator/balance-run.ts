import { isLoopbackHost } from '../../../contract/hosts.js';
import { redactSecrets } from '../../../logging/redact.js';
import { ExitError } from '../../errors.js';
import { note, printLine } from '../../output.js';
import type { BalanceOptions } from './balance.js';
import { startBalancer, type BalancerEvent } from './balance-server.js';
import { probeEmulator } from './control-call.js';

/** An `--to` value as an origin (`http://host:port`), or a usage error that says what is wrong. */
export function upstreamOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ExitError(`--to is not a URL: ${raw}`, 2);
  }
  if (url.protocol !== 'http:') throw new ExitError(`--to must be an emulator's http:// address (the balancer speaks plain HTTP to the processes): ${raw}`, 2);
  if (url.username || url.password) throw new ExitError('--to takes no user or password: the emulators are reached without one.', 2);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ExitError(`--to is an emulator's address without a path (http://HOST:PORT): requests keep their own path (${raw})`, 2);
  }
  return url.origin;
}

/** The `--to` list checked: at least one, no repeats. */
function upstreamOrigins(given: string[] | undefined): string[] {
  const origins = (given ?? []).map(upstreamOrigin);
  if (origins.length === 0) throw new ExitError('Give each emulator process with --to http://HOST:PORT.', 2);
  const repeated = origins.find((o, i) => origins.indexOf(o) !== i);
  if (repeated) throw new ExitError(`--to lists ${repeated} twice.`, 2);
  return origins;
}

/**
 * Served on a non-loopback address, the balancer opens the emulators to the network: each must ask for
 * a token on its control API (DESIGN: a non-loopback emulator requires --admin-token), checked here
 * with one unauthenticated GET /_emulator/health each.
 */
async function checkExposure(host: string, origins: string[]): Promise<void> {
  if (isLoopbackHost(host)) return;
  for (const root of origins) {
    const answer = await probeEmulator({ root, admin: `${root}/_emulator`, json: false }, 3_000);
    if (answer === 'needs_token') continue;
    if (answer === 'emulator') {
      throw new ExitError(`${root} serves its control API without a token: start it with --admin-token before the balancer serves it on ${host}.`);
    }
    const why = answer === 'nothing' ? 'nothing answered' : 'it is not a merchant-kit emulator';
    throw new ExitError(`Cannot check ${root} (${why}): on ${host} the balancer starts only once every emulator behind it answers and asks for a token.`);
  }
}

function logEvent(event: BalancerEvent, verbose: boolean): void {
  if (event.kind === 'down') return note(`${event.upstream} is down (${event.cause}): skipped for a few seconds`);
  if (event.kind === 'up') return note(`${event.upstream} answers again`);
  if (!verbose) return;
  // The path only: no query string, no header (Authorization never reaches a log).
  note(`${event.method} ${redactSecrets(event.path)} → ${event.upstream ?? 'none'} ${event.status} ${Math.round(event.durationMs)} ms`);
}

/** Runs the balancer until SIGINT/SIGTERM. */
export async function balanceAction(options: BalanceOptions): Promise<void> {
  const origins = upstreamOrigins(options.to);
  await checkExposure(options.host, origins);
  const balancer = await startBalancer({
    to: origins,
    port: options.port,
    host: options.host,
    onEvent: (event) => logEvent(event, Boolean(options.verbose)),
  }).catch((error: NodeJS.ErrnoException) => {
    throw new ExitError(`Cannot listen on ${options.host}:${options.port}: ${error.code ?? error.message}`);
  });
  const own = new URL(balancer.url);
  if (origins.some((o) => new URL(o).port === own.port && (isLoopbackHost(new URL(o).hostname) || new URL(o).hostname === own.hostname))) {
    await balancer.close();
    throw new ExitError(`--to names the balancer's own address (${balancer.url}): give the emulators' addresses.`, 2);
  }
  // Before the ready line: a supervisor may send a signal as soon as it reads it.
  const stopped = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  if (options.json) printLine(JSON.stringify({ event: 'ready', url: balancer.url, upstreams: origins, pid: process.pid }));
  else {
    printLine(`Balancing ${balancer.url} → ${origins.join(', ')} (round-robin, pid ${process.pid}).`);
    printLine('Point your ERP, the CLI and the panel at that address. Ctrl-C to stop.');
  }
  const signal = await stopped;
  note(`${signal}: stopping the balancer…`);
  await balancer.close();
}
