import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';

// Ports a test names before something listens there. A port taken from `listen(0)` and closed again
// is in the range the system hands out to every `listen(0)` and outgoing connection of the machine, so
// under load another server or client of the run could take it before the test used it (issue 27:
// a 404 where ECONNREFUSED was awaited, "port … is in use" at a restart). These are chosen below
// that range, where nothing takes a port unless it names it.

/** The system's range of ports for `listen(0)` and outgoing connections (Linux), else the IANA one. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low! > 1024 && high! >= low!) return [low!, high!];
  } catch {
    // Not Linux.
  }
  return [49152, 65535];
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/**
 * A loopback port that refuses connections for the whole test: port 1, which nothing of the run
 * listens on. Checked once, so that a machine where something does serve it fails with that reason.
 */
export async function refusedPort(): Promise<number> {
  if (await connects(1)) throw new Error('the tests need port 1 on 127.0.0.1 to refuse connections, and something accepted one there');
  return 1;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port free now and outside the range the system hands out, for a process the test starts
 * with `--port N` (or restarts on the port it had): drawn at random below that range, so two tests
 * drawing at once almost never meet, and checked free.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = Math.min(20_000, low - 1000);
  for (let tries = 0; tries < 200; tries++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free loopback port found between ${from} and ${low}`);
}
