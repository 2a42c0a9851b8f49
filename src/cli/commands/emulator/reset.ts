import type { Command } from 'commander';
import { controlTarget, withControl } from './control-call.js';

/** `merchant-kit emulator reset`: POST /_emulator/reset — back to the seeded state, same credentials. */
export async function resetAction(command: Command): Promise<void> {
  const target = await controlTarget(command);
  const data = await withControl(target, (control) => control.reset());
  if (target.json) process.stdout.write(`${JSON.stringify(data ?? {})}\n`);
  else process.stdout.write(`Emulator reset to its seeded state; the demo credentials stay valid. Clock: ${data?.clock?.now ?? 'unknown'}\n`);
}
