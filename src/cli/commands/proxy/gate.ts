import type { IncomingMessage } from 'node:http';
import { createHostPolicy } from '../../../../emulator/http/host-check.js';
import { ERROR_CATALOGUE } from '../../../contract/errors.js';
import { LIMITS } from '../../../contract/limits.js';

/** An answer the proxy gives itself, before reading the body, instead of forwarding. */
export interface Refusal {
  status: number;
  code: string;
  message: string;
}

export interface GateOptions {
  /** The address the proxy listens on (`--host`). */
  host: string;
  /** More names the proxy answers to (`--allowed-host`). */
  allowedHosts: readonly string[];
  /** Forward the emulator's control API (`--forward-control`). */
  forwardControl: boolean;
  /** The path prefix of `--to`, without a trailing slash. */
  prefix: string;
}

/** A path of the emulator's control API and panel: `/_emulator` and below (any case: never guess a router's). */
export function isControlPath(pathname: string): boolean {
  const p = pathname.toLowerCase();
  return p === '/_emulator' || p.startsWith('/_emulator/');
}

/** Whether `pathname` is `prefix` or below it. */
export function underPrefix(pathname: string, prefix: string): boolean {
  return pathname === prefix || pathname.startsWith(`${prefix}/`) || (prefix === '' && pathname.startsWith('/'));
}

/**
 * What the proxy refuses before it reads a body: the checks the emulator itself makes, so that the
 * proxy is not a way around them.
 * - DNS rebinding: a page on a name of its own that resolves to 127.0.0.1 reaches the proxy with its
 *   own name as `Host`; the proxy answers only to the emulator's names (its bound address,
 *   `localhost`, `127.0.0.1`, `[::1]`, `--allowed-host`), with the emulator's own policy.
 * - The control API (state, export with every customer's data, panel) is not forwarded unless asked.
 * - A body over the API's 5,000,000 bytes is refused by its Content-Length, unread.
 */
export function createGate(options: GateOptions): (req: IncomingMessage, pathname: string) => Refusal | undefined {
  const hosts = createHostPolicy(options.host, options.allowedHosts);
  return (req, pathname) => {
    if (!hosts.hostAllowed(req.headers.host)) {
      return {
        status: 403,
        code: 'host_not_allowed',
        message: 'La solicitud no viene de un nombre de este proxy (Host); use localhost o 127.0.0.1, o agregue el nombre con --allowed-host.',
      };
    }
    if (!underPrefix(pathname, options.prefix)) {
      return { status: 404, code: 'not_found', message: `El proxy solo reenvía rutas bajo ${options.prefix || '/'}.` };
    }
    if (isControlPath(pathname) && !options.forwardControl) {
      return { status: 404, code: 'not_found', message: 'El proxy no reenvía la API de control del emulador (/_emulator); inícielo con --forward-control si la necesita.' };
    }
    const length = Number(req.headers['content-length'] ?? 0);
    if (length > LIMITS.bodyBytes) return { status: 413, code: 'payload_too_large', message: ERROR_CATALOGUE.payload_too_large.message };
    return undefined;
  };
}
