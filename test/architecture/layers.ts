import type { Layer } from './imports.js';

/**
 * The layers of the toolkit as the emulator's tree shows them, lowest first: a module may import
 * from its own layer and the ones below; an import up the list is a back-arrow. A module takes the
 * layer of the longest path that names it.
 */
export const LAYERS: Layer[] = [
  // The contract and what every part shares: the API's schemas and values, text, logging, files, signing.
  { name: 'contract', paths: ['src/contract/', 'src/text/', 'src/logging/', 'src/files/', 'src/server/', 'src/webhooks/', 'src/certificates/'] },
  // Outside the emulator, beneath it: the typed client and the homologation checks (the observer grades with them).
  { name: 'client and checks', paths: ['src/client/', 'src/index.ts', 'checks/'] },
  // The emulator's kernel: the clock, the ids' random bytes, the environment context, the object every route receives, the network policy, the storage port.
  { name: 'kernel', paths: ['emulator/clock.ts', 'emulator/id-source.ts', 'emulator/context.ts', 'emulator/emulator.ts', 'emulator/faults.ts', 'emulator/net/', 'emulator/store/'] },
  // The route kit: how an API or control route is written and answered (the route wrapper, replies, bodies, idempotency); it knows no aggregate.
  { name: 'route kit', paths: ['emulator/http/'] },
  // The aggregates, each with its rules, commands, presenters, routes and repository interface.
  { name: 'aggregates', paths: ['emulator/stores/', 'emulator/catalog/', 'emulator/orders/', 'emulator/webhooks/', 'emulator/entregas/', 'emulator/images/', 'emulator/access/', 'emulator/certificates/'] },
  // Delivery: each environment's request pipeline (api/), the control API's, the panel, the homologation observer, state bundles.
  { name: 'delivery', paths: ['emulator/api/', 'emulator/control/', 'emulator/panel/', 'emulator/homologation/', 'emulator/bundle/'] },
  // The storage adapters, beside the root: they implement the port and may read the aggregates' records.
  { name: 'adapters', paths: ['emulator/adapters/'] },
  // The composition root: what picks an adapter, lists the aggregates and starts the app (every other file of emulator/).
  { name: 'root', paths: ['emulator/'] },
  // The CLI, over everything: it starts the emulator and reaches its data folder.
  { name: 'cli', paths: ['src/cli/'] },
];

/** Where the graph is read: the emulator and the parts outside it. */
export const SCANNED = ['emulator', 'src', 'checks'];

/** The only modules outside emulator/adapters/ that may import an adapter. */
export const COMPOSITION_ROOT = ['emulator/open.ts', 'emulator/data-folder.ts'];
