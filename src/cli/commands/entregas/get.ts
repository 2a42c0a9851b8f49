import type { Command } from 'commander';
import { resolveContext } from '../../context.js';
import { emit } from '../../output.js';
import { printEntrega } from './show.js';

/** GET /entregas/{id}. */
export async function entregasGetAction(id: string, command: Command): Promise<void> {
  const ctx = await resolveContext(command);
  emit(ctx.json, await ctx.client().entregas.get(id), printEntrega);
}
