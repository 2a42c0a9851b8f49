import type { Socket } from 'node:net';
import { ApiError } from '../../src/contract/errors.js';

const TIMEOUT_MESSAGE = 'La solicitud no llegó completa a tiempo (encabezados o cuerpo); se cerró la conexión.';

/**
 * Errors of the connection, before or while a request is read (Node's `clientError`): a request that
 * took longer than the request timeout, a malformed request line or headers. Answered in the spec's
 * error body where nothing was sent yet, then the socket is closed. The spec has no 408: a request
 * whose body never arrived whole is `400 malformed_json` (docs/emulator.md, Decisions).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket, nextId: () => string): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const overflow = error.code === 'HPE_HEADER_OVERFLOW';
    const apiError = overflow
      ? ApiError.of('payload_too_large', undefined, 'Los encabezados de la solicitud superan el tamaño permitido.')
      : ApiError.of('malformed_json', undefined, error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? TIMEOUT_MESSAGE : 'La solicitud HTTP está mal formada.');
    const id = nextId();
    const body = JSON.stringify(apiError.toBody(id));
    // end() flushes the answer before closing; a peer that never reads is cut off a second later.
    socket.end(
      `HTTP/1.1 ${apiError.status} ${apiError.status === 400 ? 'Bad Request' : 'Payload Too Large'}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
    setTimeout(() => socket.destroy(), 1000).unref();
    return;
  }
  socket.destroy();
}
