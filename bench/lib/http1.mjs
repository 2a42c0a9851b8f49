// The mixed bench's HTTP/1.1 client: keep-alive connections to one origin, one request at a time on
// each, with the dispatch interface of undici's Pool (`dispatch(opts, handler)`, the handler's
// onConnect, onHeaders, onData, onComplete and onError; `close()`). It writes the bytes undici writes
// (request line, host, `connection: keep-alive`, the headers as given, content-length) and reads
// answers with a content-length or a chunked body. Why not undici: on a 2-core machine the bench shares
// the cores with the emulator and PostgreSQL, and undici's request objects, header validation,
// parser callbacks and stream plumbing were most of what the bench still spent per request.
import net from 'node:net';

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** A connection lost with a request on it: its code, as undici's socket errors have one. */
function lost(code, message) {
  return Object.assign(new Error(message), { code });
}

/** How long an answer may take, as undici's headers and body timeouts (300 s each by default). */
const ANSWER_TIMEOUT_MS = 300_000;

export class Origin {
  /** `answerTimeoutMs`: a request whose answer is not read whole by then fails (its connection is closed). */
  constructor(url, { connections, answerTimeoutMs = ANSWER_TIMEOUT_MS }) {
    const { hostname, port, host } = new URL(url);
    this.hostname = hostname;
    this.port = Number(port) || 80;
    this.hostHeader = host;
    this.max = connections;
    this.idle = [];
    this.queue = [];
    this.open = 0;
    this.closed = false;
    this.answerTimeoutMs = answerTimeoutMs;
    this.busy = new Set();
    // One timer for the origin, not one a request: a hung (not dead) server fails its requests, as
    // undici's timeouts did, instead of holding the bench until Ctrl+C.
    this.watch = setInterval(() => this.expire(), Math.min(1000, Math.max(10, answerTimeoutMs / 4)));
    this.watch.unref();
  }

  expire() {
    const limit = Date.now() - this.answerTimeoutMs;
    for (const connection of this.busy) {
      if (connection.since <= limit) connection.end(lost('UND_ERR_HEADERS_TIMEOUT', `no whole answer in ${this.answerTimeoutMs} ms`));
    }
  }

  /** Sends `{ method, path, headers, body }` (body a string or undefined) when a connection is free. */
  dispatch(opts, handler) {
    if (this.closed) throw lost('UND_ERR_CLOSED', 'the client is closed');
    const request = { head: this.head(opts), handler };
    let connection = this.idle.pop();
    while (connection && !connection.usable()) connection = this.idle.pop();
    if (connection) connection.send(request);
    else if (this.open < this.max) new Connection(this).send(request);
    else this.queue.push(request);
    return true;
  }

  /** The request's bytes: the same head undici writes, then the body. */
  head({ method, path, headers, body }) {
    let text = `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\nconnection: keep-alive\r\n`;
    for (const key in headers) if (headers[key] !== undefined) text += `${key}: ${headers[key]}\r\n`;
    if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    else text += '\r\n';
    return text;
  }

  /** A connection is free: the next request waiting, or the idle list. */
  free(connection) {
    const next = this.queue.shift();
    if (next) connection.send(next);
    else if (this.closed) connection.end(null);
    else this.idle.push(connection);
  }

  gone(connection) {
    this.open--;
    this.busy.delete(connection);
    if (this.closed && this.open === 0) clearInterval(this.watch);
    const i = this.idle.indexOf(connection);
    if (i >= 0) this.idle.splice(i, 1);
    // Requests waiting for a connection get a new one (the server closed an idle one, say).
    if (this.queue.length && !this.closed) new Connection(this).send(this.queue.shift());
  }

  /** Closes the idle connections at once, the busy ones once their answer is read. */
  async close() {
    this.closed = true;
    if (this.open === 0) clearInterval(this.watch);
    for (const request of this.queue.splice(0)) request.handler.onError(lost('UND_ERR_CLOSED', 'the client is closed'));
    for (const connection of [...this.idle]) connection.end(null);
  }
}

/** One socket: a request is written, its answer parsed (head, then a content-length or chunked body). */
class Connection {
  constructor(origin) {
    this.origin = origin;
    origin.open++;
    this.request = null;
    this.buffer = null; // bytes of the answer's head (or of a chunk's size line) not parsed yet
    this.state = 'head'; // head | body | chunk-size | chunk | chunk-end | trailers
    this.left = 0; // bytes of the body (or of the chunk) still to come
    this.close = false; // the server said `connection: close`
    this.ended = false;
    this.socket = net.connect({ host: origin.hostname, port: origin.port, noDelay: true });
    this.socket.on('data', (data) => this.read(data));
    this.socket.on('end', () => this.end(lost('UND_ERR_SOCKET', 'the server closed the connection')));
    this.socket.on('error', (error) => this.end(error));
    this.socket.on('close', () => this.end(lost('UND_ERR_SOCKET', 'the connection closed')));
  }

  usable() {
    return !this.ended && !this.socket.destroyed;
  }

  send(request) {
    this.request = request;
    this.since = Date.now();
    this.origin.busy.add(this);
    this.state = 'head';
    this.buffer = null;
    this.socket.write(request.head);
    request.handler.onConnect(() => this.socket.destroy());
  }

  end(error) {
    if (this.ended) return;
    this.ended = true;
    this.socket.destroy();
    const request = this.request;
    this.request = null;
    this.origin.gone(this);
    request?.handler.onError(error);
  }

  read(data) {
    if (!this.request) return this.end(lost('UND_ERR_SOCKET', 'bytes came with no request'));
    let at = 0;
    if (this.buffer) {
      data = Buffer.concat([this.buffer, data]);
      this.buffer = null;
    }
    while (at < data.length && this.request) {
      if (this.state === 'head') {
        const end = data.indexOf(CRLF_CRLF, at);
        if (end < 0) return this.keep(data, at);
        const head = data.toString('latin1', at, end);
        at = end + 4;
        this.head(head);
      } else if (this.state === 'body' || this.state === 'chunk') {
        const n = Math.min(this.left, data.length - at);
        this.request.handler.onData(data.subarray(at, at + n));
        at += n;
        this.left -= n;
        if (this.left === 0) {
          if (this.state === 'body') this.complete();
          else this.state = 'chunk-end';
        }
      } else {
        // A chunk's size line, the CRLF after a chunk, or the trailers' lines up to an empty one.
        const end = data.indexOf(CRLF, at);
        if (end < 0) return this.keep(data, at);
        const line = data.toString('latin1', at, end);
        at = end + 2;
        if (this.state === 'chunk-end') this.state = 'chunk-size';
        else if (this.state === 'trailers') {
          if (line === '') this.complete();
        } else {
          this.left = parseInt(line, 16);
          if (!Number.isFinite(this.left)) return this.end(lost('UND_ERR_SOCKET', 'a chunk size that is not one'));
          this.state = this.left === 0 ? 'trailers' : 'chunk';
        }
      }
    }
    if (at < data.length) this.end(lost('UND_ERR_SOCKET', 'bytes after the answer'));
  }

  keep(data, at) {
    this.buffer = data.subarray(at);
  }

  /** The status line and the headers the framing needs (content-length, transfer-encoding, connection). */
  head(text) {
    const status = Number(text.slice(9, 12));
    if (status >= 100 && status < 200) return; // an interim answer (100 Continue): the real one follows
    let length = 0;
    let chunked = false;
    this.close = false;
    let from = text.indexOf('\r\n') + 2;
    while (from > 1 && from < text.length) {
      const to = text.indexOf('\r\n', from);
      const line = to < 0 ? text.slice(from) : text.slice(from, to);
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).toLowerCase();
      if (name === 'content-length') length = Number(line.slice(colon + 1).trim());
      else if (name === 'transfer-encoding') chunked = line.slice(colon + 1).trim().toLowerCase() === 'chunked';
      else if (name === 'connection') this.close = line.slice(colon + 1).trim().toLowerCase() === 'close';
      from = to < 0 ? text.length : to + 2;
    }
    this.request.handler.onHeaders(status);
    if (status === 204 || status === 304) length = 0;
    if (chunked) this.state = 'chunk-size';
    else if (length > 0) {
      this.state = 'body';
      this.left = length;
    } else this.complete();
  }

  complete() {
    const { handler } = this.request;
    this.request = null;
    this.origin.busy.delete(this);
    this.state = 'head';
    if (this.close) this.end(null);
    else this.origin.free(this);
    handler.onComplete([]);
  }
}
