import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_CONFIG_HOME/merchant-kit`, else `~/.config/merchant-kit` (DESIGN: CLI surface). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'merchant-kit');
}

/** The folder, created 0700 when missing (it holds the key and the encrypted credentials). */
export function ensureConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** Profile names are file-system safe: they name state folders. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * A folder of this profile's own state (cursor files of `listen --backfill` and `feed tail`),
 * created 0700: `<config>/state/<profile>`. Profile-less use (environment variables only) gets
 * `<config>/state/_env`.
 *
 * @example
 * const cursorFile = join(profileStateDir('sandbox'), 'feed.cursor');
 */
export function profileStateDir(profileName: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const name = profileName && PROFILE_NAME.test(profileName) ? profileName : '_env';
  const dir = join(ensureConfigDir(env), 'state', name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
