import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliProcess } from './cli.js';

/** A scratch folder for reports and an empty config home (no profile of the machine leaks in). */
export function homologationScratch(): { dir: string; reports: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'mk-homologate-'));
  return { dir, reports: join(dir, 'reports'), env: { XDG_CONFIG_HOME: join(dir, 'config'), HOME: dir, CI: '1' } };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the CLI to its end. */
export async function runToEnd(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult & { process: CliProcess }> {
  const started = Date.now();
  const cli = runCli(args, env);
  const { code } = await cli.exited;
  return { code, stdout: cli.lines.join('\n'), stderr: cli.stderr(), ms: Date.now() - started, process: cli };
}

/** Every file under `dir` with its text. */
export function filesIn(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path, text: readFileSync(path, 'utf8') };
    });
}

/**
 * A fake API that is up but wrong: `garbage` answers HTML 200 to everything, `hang` never answers,
 * `reset` closes each connection without an answer. `requests` lists the paths asked so far.
 */
export async function startBadTarget(kind: 'garbage' | 'hang' | 'reset'): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (kind === 'hang') return;
    if (kind === 'reset') return void req.socket.destroy();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>');
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox/v1`,
    requests,
    close: () => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/**
 * A stand-in for a real environment: forwards the API under `/sandbox/v1` to an emulator and hides
 * its control API (`/_emulator` answers 404), so the CLI cannot tell it is an emulator.
 */
export async function startRealEnvironmentProxy(emulatorUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const proxy = await forwardTo(emulatorUrl, '/sandbox/v1');
  return { url: `${proxy.url}/sandbox/v1`, close: proxy.close };
}

/**
 * A load balancer in front of an emulator: forwards every request (the API and the control API) to
 * it, so that the address the CLI is given is not the emulator process's own.
 */
export function startBalancer(emulatorUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  return forwardTo(emulatorUrl, '/');
}

/** A server that forwards the requests under `prefix` to the emulator, and answers 404 to the others. */
async function forwardTo(emulatorUrl: string, prefix: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(emulatorUrl);
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (!req.url?.startsWith(prefix)) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"No encontrado.","request_id":"req_proxy"}}');
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}
