import { LIMITS } from '../../src/contract/limits.js';
import { SNIFF_BYTES, sniffImage, type ImageKind } from './sniff.js';

export type DownloadOutcome = { ok: true; kind: ImageKind; bytes: number } | { ok: false; error: string };

const TOO_LARGE = 'La imagen supera el máximo de 5 MB.';

/**
 * Downloads `url` and checks it is a JPEG, PNG or WebP of at most 5 MB (spec: Limits, product
 * image). Reading stops as soon as the body passes 5 MB. `signal` aborts it (10 s timeout, reset).
 */
export async function downloadImage(url: string, signal: AbortSignal): Promise<DownloadOutcome> {
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow', headers: { accept: 'image/jpeg, image/png, image/webp' } });
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
