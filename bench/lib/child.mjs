// The child-process side shared by the benchmarks: the servers under test live here, the load
// generator in the parent, so the two never share an event loop.
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Fastify from 'fastify';

/**
 * A bare fastify server answering `body` at `path`: no auth, no validation, no database. A string
 * body is sent as is, as JSON (the same bytes as a page the emulator sends as text).
 */
export async function bareServer(path, body) {
  const bare = Fastify({ logger: false });
  if (typeof body === 'string') bare.get(path, (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  else bare.get(path, async () => body);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  return bare;
}

/**
 * Tells the parent where the servers are (`info`), answers its `cpu` requests with this process's
 * CPU time (steadier than req/s on a busy machine) and closes every server on `close` or disconnect.
 * `{ profile: 'start' }` and `{ profile: 'stop', file }` take a CPU profile (the same V8 sampler as
 * `node --cpu-prof`) of one phase only, so each measurement has a profile of its own.
 * `{ tick: true | false }` turns `onTick` on or off: it runs when any server here starts a request
 * (Node's `http.server.request.start` channel, with `{ server }`), before the server's own listeners.
 */
export function serveParent(servers, info, { onTick } = {}) {
  const close = async () => {
    await Promise.allSettled(servers.map((s) => s.close()));
    process.exit(0);
  };
  let session;
  const channel = diagnostics.channel('http.server.request.start');
  process.on('message', async (m) => {
    if (m === 'close') close();
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
    if (m?.tick !== undefined && onTick) {
      if (m.tick) channel.subscribe(onTick);
      else channel.unsubscribe(onTick);
      process.send({ ticked: m.tick });
    }
    if (m?.profile === 'start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 500 });
      await session.post('Profiler.start');
      process.send({ profiling: true });
    }
    if (m?.profile === 'stop') {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      writeFileSync(m.file, JSON.stringify(profile));
      process.send({ profiled: m.file });
    }
  });
  process.on('disconnect', close);
  process.send(info);
}

/** The parent's side of `serveParent`: sends a message and waits for the child's answer. */
export function ask(child, message) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send(message);
  });
}

/** The median of numbers. */
export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length / 2;
  return s.length % 2 ? s[Math.floor(mid)] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * The bench-only way to measure "limits on": the emulator runs with its limits, but the allowance of
 * the per-integration request counter is raised so that a load of thousands of requests a second is
 * admitted (at 120 a minute it would measure 429s). The same code runs: counting, headers, checks.
 */
export function raiseRequestAllowance(emulator, allowance = 1_000_000_000) {
  // The embedded storage's per-integration counter (emulator/adapters/sqlite/local/windows.ts); a bench on
  // another storage has no such counter to raise and says so rather than measuring 429s.
  const counter = emulator.storage.coordination.windows.counters?.requests;
  if (!counter) throw new Error('raiseRequestAllowance: this storage keeps its rate windows elsewhere (the bench raises the embedded one only)');
  Object.defineProperty(counter, 'limit', { value: allowance });
}
