import type { Command } from 'commander';
import type { EmulatorControl, EmulatorState } from '../../../../client/emulator-control.js';
import { ExitError } from '../../../errors.js';
import { note, printJson, printLine } from '../../../output.js';
import { controlTarget, withControl } from '../control-call.js';
import type { IssueOptions } from './index.js';

/** Whose credential: the integration named, the store token's own store, or the environment's demo store. */
interface Chosen {
  integrationId: string;
  storeId: string;
  /** How the notes name it: `the test demo store` or `store str_…`. */
  label: string;
}

/**
 * The environment's demo store as the emulator keeps it (emulator/stores/seed.ts): the one with the
 * `demo-<environment>` slug, else (a sandbox restored from a bundle) its oldest store, whose id sorts first.
 */
function demoStore(state: EmulatorState, environment: 'test' | 'live') {
  const stores = state.environments.find((e) => e.name === environment)?.stores.filter((s) => s.integrations.length > 0) ?? [];
  return stores.find((s) => s.slug === `demo-${environment}`) ?? [...stores].sort((a, b) => (a.id < b.id ? -1 : 1))[0];
}

async function choose(control: EmulatorControl, options: IssueOptions): Promise<Chosen> {
  const state = await control.state();
  const stores = state.environments.flatMap((e) => e.stores);
  if (options.integration) {
    const store = stores.find((s) => s.integrations.some((i) => i.id === options.integration));
    if (!store) throw new ExitError(`error: no integration ${options.integration} in this emulator${state.access.role === 'store' ? ' that your store token opens' : ''}`);
    return { integrationId: options.integration, storeId: store.id, label: `store ${store.id}` };
  }
  if (state.access.role === 'store') {
    const own = stores.find((s) => s.id === state.access.store_id);
    const integration = own?.integrations[0];
    if (!own || !integration) throw new ExitError('error: your store has no integration to issue a credential for');
    return { integrationId: integration.id, storeId: own.id, label: `your store ${own.id}` };
  }
  const demo = demoStore(state, options.environment);
  if (!demo) throw new ExitError(`error: this emulator has no ${options.environment} store; name an integration with --integration int_…`);
  return { integrationId: demo.integrations[0]!.id, storeId: demo.id, label: `the ${options.environment} demo store (${demo.id})` };
}

/** `emulator credentials issue`: the new credential alone on stdout (or the control API's data with --json), the rest on stderr. */
export async function credentialsIssueAction(options: IssueOptions, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const { chosen, issued } = await withControl(target, async (control) => {
    const chosen = await choose(control, options);
    return { chosen, issued: await control.rotateCredential(chosen.integrationId, { overlap_hours: options.overlapHours }) };
  });
  if (target.json) return printJson(issued);
  printLine(issued.credential);
  const others = issued.previous.length === 0
    ? ''
    : options.overlapHours === 0
      ? ` Its other credentials stopped now (${issued.previous.map((p) => p.key_id).join(', ')}).`
      : ` Its other credentials keep working until ${issued.previous.map((p) => `${p.expires_at} (${p.key_id})`).join(', ')}.`;
  note(`New credential ${issued.key_id} for ${chosen.label}, integration ${issued.integration_id}: shown once, above.${others}`);
}
