import { connect } from 'node:net';

/**
 * A loopback port that refuses connections for the whole test: port 1, below the range the system
 * hands out for `listen(0)` (32768 and up on Linux), so no other test's or process's server can take it
 * between the choice and the connection. A port that was merely free a moment ago could be: under
 * load, another server of the run listened there and the test met a 404 instead of ECONNREFUSED
 * (issue 27). Checked once, so that a machine where something does serve port 1 fails with that reason.
 */
export const REFUSED_PORT = 1;

export async function refusedPort(): Promise<number> {
  const refused = await new Promise<boolean>((resolve) => {
    const socket = connect(REFUSED_PORT, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
  if (!refused) throw new Error(`the tests need port ${REFUSED_PORT} on 127.0.0.1 to refuse connections, and something accepted one there`);
  return REFUSED_PORT;
}
