import type { Command } from 'commander';
import type { GlobalOptions } from '../../context.js';
import { listProfiles } from '../../config/profiles.js';
import { emit, printTable } from '../../output.js';

/** Every profile without its secret; `--json` is an array with `active` on each. */
export async function profileListAction(command: Command): Promise<void> {
  const { json } = command.optsWithGlobals() as GlobalOptions;
  const { active, profiles } = listProfiles();
  const rows = profiles.map((p) => ({ ...p, active: p.name === active }));
  emit(json, rows, (r) =>
    printTable(
      r,
      [
        { header: '', value: (p) => (p.active ? '*' : ' ') },
        { header: 'NAME', value: (p) => p.name },
        { header: 'BASE URL', value: (p) => p.base_url },
        { header: 'ENV', value: (p) => p.environment },
        { header: 'STORE', value: (p) => `${p.store_name} (${p.store_id})` },
        { header: 'KEY ID', value: (p) => p.key_id },
      ],
      'No profiles. Add one: merchant-kit profile add <name> --base-url URL',
    ),
  );
}
