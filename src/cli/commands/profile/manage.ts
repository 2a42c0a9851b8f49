import type { Command } from 'commander';
import type { GlobalOptions } from '../../context.js';
import { removeProfile, useProfile } from '../../config/profiles.js';
import { emit, printLine } from '../../output.js';

/** `profile use <name>`. */
export async function profileUseAction(name: string, command: Command): Promise<void> {
  useProfile(name);
  const { json } = command.optsWithGlobals() as GlobalOptions;
  emit(json, { name, active: true }, () => printLine(`Profile "${name}" is now active.`));
}

/** `profile remove <name>`. */
export async function profileRemoveAction(name: string, command: Command): Promise<void> {
  removeProfile(name);
  const { json } = command.optsWithGlobals() as GlobalOptions;
  emit(json, { name, removed: true }, () => printLine(`Profile "${name}" removed.`));
}
