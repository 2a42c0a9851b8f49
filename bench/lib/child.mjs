// The child-process side shared by the benchmarks: the servers under test live here, the load
// generator in the parent, so the two never share an event loop.
import Fastify from 'fastify';

/** A bare fastify server answering `body` at `path`: no auth, no validation, no database. */
export async function bareServer(path, body) {
  const bare = Fastify({ logger: false });
  bare.get(path, async () => body);
  await bare.listen({ port: 0, host: '127.0.0.1' });
  return bare;
}

/**
 * Tells the parent where the servers are (`info`), answers its `cpu` requests with this process's
 * CPU time (steadier than req/s on a busy machine) and closes every server on `close` or disconnect.
 */
export function serveParent(servers, info) {
  const close = async () => {
    await Promise.allSettled(servers.map((s) => s.close()));
    process.exit(0);
  };
  process.on('message', (m) => {
    if (m === 'close') close();
    if (m === 'cpu') process.send({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', close);
  process.send(info);
}
