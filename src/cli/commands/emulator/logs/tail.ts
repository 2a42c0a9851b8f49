import type { Command } from 'commander';
import type { EmulatorControl } from '../../../../client/emulator-control.js';
import type { RequestLogEntry, RequestLogPage } from '../../../../contract/control.js';
import { REQUEST_LOG_SIZE } from '../../../../contract/limits.js';
import { colors, note, printLine, printNdjson, printReadyJson } from '../../../output.js';
import { controlTarget, withControl, type ControlTarget } from '../control-call.js';
import type { LogsTailOptions } from './index.js';
import { plural } from '../../../../text/plural.js';

/** How long one long poll waits for a matching request (under the control client's 30 s timeout). */
const WAIT_MS = 20_000;

/** `10:30:01.123  409  POST   /sandbox/v1/orders/ord_…/status  invalid_status_transition  3.2 ms  req_…  int_…` */
export function formatEntry(e: RequestLogEntry): string {
  const c = colors();
  const paint = e.status >= 500 ? c.red : e.status >= 400 ? c.yellow : c.green;
  const parts = [
    c.dim(e.time.slice(11, 23)),
    paint(String(e.status)),
    e.method.padEnd(6),
    e.path,
    ...(e.error_code ? [paint(e.error_code)] : []),
    `${e.duration_ms} ms`,
    c.dim(e.request_id),
    ...(e.integration_id ? [c.dim(e.integration_id)] : []),
  ];
  return parts.join('  ');
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  return `/logs?${search}`;
}

/**
 * `emulator logs tail`: the newest `--last` entries, then (unless `--no-follow`) every new one as the
 * emulator answers it, by long polls from the last id seen. Ctrl+C ends it with exit code 0.
 */
export async function logsTailAction(options: LogsTailOptions, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const print = target.json ? printNdjson : (e: RequestLogEntry) => printLine(formatEntry(e));
  const filters = { status: options.status, path: options.path };
  await withControl(target, async (control) => {
    const first = await read(control, query({ ...filters, tail: options.last }));
    // Following runs until stopped: the ready line (with the pid) comes before anything else.
    if (options.follow && target.json) printReadyJson({ url: target.root });
    first.entries.forEach(print);
    if (!options.follow) return;
    await follow(target, first.next_after, filters, print);
  });
}

async function read(control: EmulatorControl, path: string): Promise<RequestLogPage> {
  return (await control.request<RequestLogPage>('GET', path)).data;
}

/**
 * The long polls, on a connection pool of their own: Ctrl+C destroys it, which ends the poll in flight
 * at once (closing a pool waits for its requests), and the loop returns quietly.
 */
async function follow(target: ControlTarget, after: number, filters: { status?: string; path?: string }, print: (e: RequestLogEntry) => void): Promise<void> {
  const { Agent } = await import('undici');
  const { EmulatorControl } = await import('../../../../client/emulator-control.js');
  const pool = new Agent();
  const control = new EmulatorControl(target.root, { adminToken: target.adminToken, dispatcher: pool });
  let stopped = false;
  const stop = () => {
    stopped = true;
    void pool.destroy();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // On stderr, so that --json output stays one object per line.
  note(`Waiting for requests to ${target.root} (pid ${process.pid}; Ctrl+C to stop)…`);
  try {
    while (!stopped) {
      let page: RequestLogPage;
      try {
        page = await read(control, query({ ...filters, after, wait_ms: WAIT_MS, limit: REQUEST_LOG_SIZE }));
      } catch (error) {
        if (stopped) return;
        throw error;
      }
      if (page.missed > 0 && !target.json) note(`note: ${plural(page.missed, 'request')} left the log before they were read (it keeps the last ${REQUEST_LOG_SIZE})`);
      page.entries.forEach(print);
      after = page.next_after;
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await control.close();
    if (!stopped) await pool.close();
  }
}
