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

/** A command group's registrar, with the name of the one top-level command it registers. */
export type CommandGroup = ((program: Command) => void) & { readonly command: string };

const group = (command: string, register: (program: Command) => void): CommandGroup => Object.assign((program: Command) => register(program), { command });

/**
 * Every command group, in the order `--help` lists them. Each group registers its commands from its
 * own folder and imports its actions lazily, so `--help` never loads fastify or SQLite. A command
 * registers its own group alone (main.ts; test/cli/program.test.ts checks each name).
 */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  group('emulator', registerEmulatorCommands),
  group('profile', profile),
  group('me', me),
  group('store', store),
  group('catalog', catalog),
  group('orders', orders),
  group('webhook', webhook),
  group('entregas', entregas),
  group('simulate', simulate),
  group('panel', panel),
  group('listen', registerListenCommands),
  group('feed', feed),
  group('homologate', homologate),
  group('certificate', certificate),
  group('proxy', proxy),
  group('replay', replay),
  group('openapi', registerOpenApiCommands),
  group('completion', completion),
];
