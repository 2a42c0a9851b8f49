import type { ReadyInfo } from '../../../../emulator/server.js';
import { clockMode } from './clock/show.js';
import { formatDuration } from './duration.js';

/** What a menu loaded with `start --catalog` amounts to. */
export interface CatalogLoaded {
  file: string;
  categories: number;
  products: number;
}

/** Everything the human start-up text says beyond the ready line. */
export interface BannerFacts {
  ready: ReadyInfo;
  /** The data folder, or null with `--memory`. */
  /** Where the state lives, as shown: the data folder, memory, or the database (no password). */
  storage: string;
  clock: { mode: string; offsetSeconds: number };
  /**
   * The credentials were made by this start (a new data folder, `--memory`, a restore): shown in full
   * once. Otherwise they were shown when they were made, and only their key ids are printed.
   */
  credentialsNew: boolean;
  catalog: CatalogLoaded | null;
  /** With `--detach`: where the log goes and how to stop it. */
  detached: { logFile: string; stop: string } | null;
}

const plural = (n: number, word: string, words: string) => `${n} ${n === 1 ? word : words}`;
const label = (name: string) => `  ${`${name}:`.padEnd(14)}`;

/** `manual, advanced 1h30m: stands still until advanced (…)` or `system, 2h ahead of real time`. */
function clockLine(clock: BannerFacts['clock']): string {
  const advanced = clock.offsetSeconds > 0 ? formatDuration(clock.offsetSeconds) : null;
  if (clock.mode !== 'manual') return advanced ? `system, ${advanced} ahead of real time` : 'system (real time)';
  return `manual${advanced ? `, advanced ${advanced}` : ''}: ${clockMode(clock.mode)}`;
}

function stores(facts: BannerFacts): string[] {
  const { ready, credentialsNew } = facts;
  const width = Math.max(...ready.stores.map((s) => s.environment.length));
  const pad = ' '.repeat(width);
  const header = credentialsNew
    ? 'Demo stores (credentials are shown once, here; save them in a profile):'
    : 'Demo stores (their credentials were shown when this data folder was created; saved profiles keep working):';
  const lines = ready.stores.flatMap((s) => [
    `  ${s.environment.padEnd(width)}  store ${s.store_id}  integration ${s.integration_id}`,
    credentialsNew ? `  ${pad}  credential ${s.credential}` : `  ${pad}  key id ${s.credential.split('.')[0]}`,
  ]);
  const again = credentialsNew
    ? []
    : [`A new credential, shown once: merchant-kit emulator credentials issue (--environment live for the live store), or the panel's Credentials: ${ready.url}/_emulator/panel`];
  return [header, ...lines, ...again];
}

/** The human start-up text: where to call, the clock, where the data lives, who you are. */
export function banner(facts: BannerFacts): string {
  const { ready, storage, catalog, detached } = facts;
  return [
    `Emulator listening on ${ready.url} (pid ${ready.pid})`,
    `${label('live API')}${ready.live_base_url}`,
    `${label('sandbox API')}${ready.sandbox_base_url}`,
    `${label('control API')}${ready.admin_url}`,
    `${label('panel')}${ready.url}/_emulator/panel`,
    ...(ready.access_requests === 'open' ? [`${label('access')}requests open at ${ready.url}/access (decide them with the admin token: merchant-kit emulator access list)`] : []),
    `${label('clock')}${clockLine(facts.clock)}`,
    `${label('data')}${storage}`,
    ...(catalog ? [`${label('catalog')}${catalog.file} in the test store (${plural(catalog.categories, 'category', 'categories')}, ${plural(catalog.products, 'product', 'products')})`] : []),
    ...(detached ? [`${label('log')}${detached.logFile}`] : []),
    '',
    ...stores(facts),
    '',
    detached ? `Running in the background. Stop it with: ${detached.stop}` : 'Press Ctrl+C to stop.',
  ].join('\n');
}
