import type { Command } from 'commander';
import { ExitError } from '../../errors.js';
import { controlUrl, hasErrorBody, networkCause, openControl } from './control-url.js';
import { storeTokenRefusal } from './control-call.js';
import type { ReadyInfo } from '../../../../emulator/server.js';
import type { Bundle } from '../../../../emulator/bundle/format.js';
// The zod- and chalk-free plural: this module loads when the CLI registers its commands.
import { plural } from '../../../text/plural.js';

export interface ExportOptions {
  out: string;
  data?: string;
  adminToken?: string;
  baseUrl?: string;
  json?: boolean;
}

/** `emulator export --out FILE [--data DIR]`: registered beside `start` by the group's index. */
export function registerExport(emulator: Command): void {
  emulator
    .command('export')
    .description('Save the emulator\'s whole state (both environments, clock, deliveries, idempotency keys) as one bundle file')
    .requiredOption('--out <file>', 'the bundle file to write (gzip JSON)')
    .option('--data <dir>', 'read a data directory instead of asking a running emulator')
    .option('--admin-token <token>', 'the admin token of an emulator started with --admin-token (or MERCHANT_KIT_ADMIN_TOKEN); a store token cannot export')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit emulator export --out support-state.json.gz\n  $ merchant-kit emulator export --data .merchant-kit/emulator --out support-state.json.gz\n',
    )
    .action(async (options: ExportOptions, command: Command) => {
      const globals = command.optsWithGlobals() as ExportOptions;
      await exportAction({ ...options, baseUrl: globals.baseUrl, json: globals.json, adminToken: options.adminToken ?? globals.adminToken });
    });
}

async function fetchBundle(admin: string, adminToken: string | undefined): Promise<Buffer> {
  const { ApiError } = await import('../../../client/errors.js');
  const control = await openControl(admin, adminToken);
  try {
    return (await control.exportState()).bytes;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 0) throw new ExitError(`error: no emulator answered at ${admin} (${networkCause(error)}); start one or pass --base-url or --data`);
    if (error.status === 403 && error.code === 'insufficient_scope') throw new ExitError(storeTokenRefusal({ root: admin.replace(/\/_emulator$/, '') }));
    const why = hasErrorBody(error) ? `${error.code}: ${error.message}` : `HTTP ${error.status}`;
    throw new ExitError(`error: ${admin}/export answered ${error.status} (${why})`);
  } finally {
    await control.close();
  }
}

async function exportAction(options: ExportOptions): Promise<void> {
  const { decodeBundle } = await import('../../../../emulator/bundle/envelope.js');
  const { writeBundleFile } = await import('../../../../emulator/bundle/file.js');
  const { exportDataDir } = await import('../../../../emulator/data-folder.js');
  const { BundleError } = await import('../../../../emulator/bundle/format.js');
  try {
    let bytes: Buffer;
    let source: string;
    if (options.data) {
      bytes = (await exportDataDir(options.data)).bytes;
      source = options.data;
    } else {
      source = controlUrl(options.baseUrl).replace(/\/_emulator$/, '');
      bytes = await fetchBundle(`${source}/_emulator`, options.adminToken);
    }
    // Checked before it is written: a bundle that would be refused on restore is never saved.
    const bundle = decodeBundle(bytes);
    writeBundleFile(options.out, bytes);
    const summary = bundleSummary(bundle, options.out, bytes.length);
    if (options.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else process.stdout.write(`Wrote ${options.out} (${summary.bytes} bytes, sha256 ${summary.sha256.slice(0, 16)}…) from ${source}: ${summary.environments.map((e) => `${e.environment} ${plural(e.stores, 'store')}, ${plural(e.orders, 'order')}, ${plural(e.products, 'product')}`).join('; ')}; clock ${summary.clock}\n`);
  } catch (error) {
    if (error instanceof BundleError) throw new ExitError(`error: ${error.message}`);
    throw error;
  }
}

function bundleSummary(bundle: Bundle, file: string, bytes: number) {
  const count = (env: string, table: string) => bundle.payload.environments[env]?.tables[table]?.rows.length ?? 0;
  return {
    file,
    bytes,
    format: bundle.format,
    version: bundle.version,
    sha256: bundle.sha256,
    clock: bundle.payload.clock.now,
    environments: Object.keys(bundle.payload.environments).map((environment) => ({
      environment, stores: count(environment, 'stores'), orders: count(environment, 'orders'), products: count(environment, 'products'),
    })),
  };
}

/** `start --from FILE`, step 1: the bundle is read and checked before the emulator starts (a refused one changes nothing). */
export async function loadBundleForStart(file: string): Promise<Bundle> {
  const { readBundleFile } = await import('../../../../emulator/bundle/file.js');
  const { BundleError } = await import('../../../../emulator/bundle/format.js');
  try {
    return readBundleFile(file);
  } catch (error) {
    if (error instanceof BundleError) throw new ExitError(`error: cannot start from ${file}: ${error.message}`);
    throw error;
  }
}

/** The banner's addition after `start --from`: where the state came from and the new signing secrets. */
export function restoredNote(file: string, ready: ReadyInfo): string {
  const secrets = ready.stores
    .filter((s) => s.webhook_signing_secret)
    .map((s) => `  webhook signing secret ${s.integration_id}: ${s.webhook_signing_secret}`);
  return [`Restored from ${file}: the credentials above are new (shown once); the bundle's key ids remain.`, ...secrets, ''].join('\n');
}
