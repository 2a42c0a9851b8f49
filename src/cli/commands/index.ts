import type { Command } from 'commander';
import { registerEmulatorCommands } from './emulator/index.js';
import { registerOpenApiCommands } from './openapi/index.js';
import { registerListenCommands } from './listen/index.js';
import { register as profile } from './profile/index.js';
import { register as me } from './me/index.js';
import { register as store } from './store/index.js';
import { register as catalog } from './catalog/index.js';
import { register as orders } from './orders/index.js';
import { register as webhook } from './webhook/index.js';
import { register as entregas } from './entregas/index.js';
import { register as simulate } from './simulate/index.js';
import { register as panel } from './panel/index.js';
import { register as feed } from './feed/index.js';
import { register as homologate } from './homologate/index.js';
import { register as proxy } from './proxy/index.js';
import { register as replay } from './replay/index.js';
import { register as completion } from './completion/index.js';
import { register as certificate } from './certificate/index.js';

/**
 * Every command group, in the order `--help` lists them. Each group registers its commands from its
 * own folder and imports its actions lazily, so `--help` never loads fastify or SQLite.
 */
export const COMMAND_GROUPS: ((program: Command) => void)[] = [
  registerEmulatorCommands,
  profile,
  me,
  store,
  catalog,
  orders,
  webhook,
  entregas,
  simulate,
  panel,
  registerListenCommands,
  feed,
  homologate,
  certificate,
  proxy,
  replay,
  registerOpenApiCommands,
  completion,
];
