import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server of the toolkit (`proxy`, `emulator balance`) once it listens. */
export interface Listening {
  /** `http://127.0.0.1:4030`, `http://[::1]:4030`: the address it is reached at. */
  origin: string;
  /** Stops listening and ends the open connections (kept-alive ones, event streams). */
  close(): Promise<void>;
}

/** Listens on `host:port` (0: any free port); rejects with the listen error (EADDRINUSE…). */
export async function listenOn(server: Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
