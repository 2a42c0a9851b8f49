import type { FastifyInstance } from 'fastify';
import type { Emulator } from '../emulator.js';

/** DESIGN: GET /_emulator/export — the whole state as a versioned, checksummed bundle (gzip JSON). */
export function exportControl(app: FastifyInstance, emulator: Emulator): void {
  app.get('/export', async (_request, reply) => {
    // Loaded with the first export, not at every start.
    const { exportBundle } = await import('../bundle/export.js');
    const { bytes, sha256 } = await exportBundle(emulator);
    return reply
      .header('content-type', 'application/gzip')
      .header('content-disposition', 'attachment; filename="merchant-kit-state.json.gz"')
      .header('x-bundle-sha256', sha256)
      .header('cache-control', 'no-store')
      .send(bytes);
  });
}
