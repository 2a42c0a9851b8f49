import { isIP } from 'node:net';
import { Agent, buildConnector, fetch, type Response } from 'undici';
import { LIMITS } from '../../src/contract/limits.js';
import { bareHost } from '../net/address-policy.js';
import { urlPort, type OutboundGuard } from '../net/outbound.js';
import { SNIFF_BYTES, sniffImage, type ImageKind } from './sniff.js';

export type DownloadOutcome = { ok: true; kind: ImageKind; bytes: number } | { ok: false; error: string };

const TOO_LARGE = 'La imagen supera el máximo de 5 MB (5.000.000 bytes).';

/**
 * Downloads `url` and checks it is a JPEG, PNG or WebP of at most 5 MB (spec: Limits, product
 * image). Reading stops as soon as the body passes 5 MB. `signal` aborts it (10 s timeout, reset).
 * Every connection, first hop and redirects alike, goes through `guard` (see emulator/net): a
 * refused address fails with the same message as a closed port, so an image URL cannot be used to
 * learn which private ports are open.
 */
export async function downloadImage(url: string, signal: AbortSignal, guard: OutboundGuard): Promise<DownloadOutcome> {
  let response: Response;
  const dispatcher = guardedAgent(guard);
  try {
    const fetched = await fetchFollowing(url, signal, dispatcher);
    if (!('status' in fetched)) return fetched;
    response = fetched;
  } catch (error) {
    return { ok: false, error: failure(error, signal) };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: `El servidor de la imagen respondió con el estado HTTP ${response.status}.` };
  }
  if (Number(response.headers.get('content-length') ?? 0) > LIMITS.imageBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, error: TOO_LARGE };
  }
  try {
    const { head, total } = await readCapped(response, LIMITS.imageBytes);
    if (total > LIMITS.imageBytes) return { ok: false, error: TOO_LARGE };
    const kind = sniffImage(head);
    if (!kind) return { ok: false, error: 'El archivo no es una imagen JPEG, PNG ni WebP.' };
    return { ok: true, kind, bytes: total };
  } catch (error) {
    return { ok: false, error: failure(error, signal) };
  } finally {
    void dispatcher.close().catch(() => undefined);
  }
}

/**
 * An undici Agent whose every connection is checked by the guard: an IP literal before connecting,
 * a name on each address it resolves to (the socket's `lookup`). One per download (downloads are
 * rare), so the port of the hop being made is the one checked.
 */
function guardedAgent(guard: OutboundGuard): Agent {
  return new Agent({
    connect: (options, callback) => {
      const port = urlPort(new URL(`${options.protocol}//x:${options.port || ''}`));
      const refused = guard.refusalOf(options.hostname, port);
      if (refused) return callback(refused, null);
      const host = bareHost(options.hostname);
      const connector = buildConnector(isIP(host) ? {} : { lookup: guard.lookupFor(port) } as buildConnector.BuildOptions);
      connector(options, callback);
    },
  });
}

const MAX_REDIRECTS = 5;
const CONTROL_REFUSED = 'La dirección apunta a la API de control del emulador (/_emulator); no se descarga.';

/**
 * True when `url` names a control route: the fetcher must never call the emulator's own `/_emulator`
 * API (a GET there reads state of every store, and could be aimed at with an image URL). Any host is
 * refused, since the emulator cannot tell all the names it is reachable by.
 */
export function isControlUrl(url: URL): boolean {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    /* left encoded */
  }
  return /^\/+_emulator(\/|$)/i.test(path);
}

/** GET with redirects followed by hand, so that every hop (not only the first) is checked. */
async function fetchFollowing(url: string, signal: AbortSignal, dispatcher: Agent): Promise<Response | { ok: false; error: string }> {
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    if (isControlUrl(current)) return { ok: false, error: CONTROL_REFUSED };
    const response = await fetch(current, { signal, dispatcher, redirect: 'manual', headers: { accept: 'image/jpeg, image/png, image/webp' } });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || location === null) return response;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) return { ok: false, error: 'La imagen redirige demasiadas veces.' };
    current = new URL(location, current);
    if (current.protocol !== 'http:' && current.protocol !== 'https:') return { ok: false, error: 'La imagen redirige a una dirección que no es http(s).' };
  }
}

/** Reads until the end or until `cap` is passed; keeps only the first bytes (for the magic number). */
async function readCapped(response: Response, cap: number): Promise<{ head: Uint8Array; total: number }> {
  const head = new Uint8Array(SNIFF_BYTES);
  let headLength = 0;
  let total = 0;
  if (!response.body) return { head: head.subarray(0, 0), total };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (headLength < SNIFF_BYTES) {
      const take = value.subarray(0, SNIFF_BYTES - headLength);
      head.set(take, headLength);
      headLength += take.length;
    }
    total += value.length;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return { head: head.subarray(0, headLength), total };
}

function failure(error: unknown, signal: AbortSignal): string {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || (signal.aborted && (signal.reason as { name?: string })?.name === 'TimeoutError')) {
    return 'La descarga de la imagen superó el límite de 10 segundos.';
  }
  if (signal.aborted) return 'La descarga de la imagen se canceló.';
  return 'No se pudo descargar la imagen (error de conexión o dirección inválida).';
}
