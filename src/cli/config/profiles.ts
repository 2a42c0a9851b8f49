import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ExitError } from '../errors.js';
import { writeFileAtomic } from '../../files/atomic.js';
import { keyFromText, open, seal, type SealedBox } from './crypto.js';
import { configDir, ensureConfigDir } from './paths.js';

/** A full credential, `svk_<env>_….svs_<env>_…` (context.ts also checks that both environments agree). */
export const CREDENTIAL_PATTERN = /^svk_(live|test)_[A-Za-z0-9_-]+\.svs_(live|test)_[A-Za-z0-9_-]+$/;

/** What `profile list` shows: everything but the secret. */
export interface ProfileInfo {
  name: string;
  base_url: string;
  environment: 'live' | 'test';
  store_id: string;
  store_name: string;
  integration_id: string;
  key_id: string;
  created_at: string;
}

interface StoredProfile extends Omit<ProfileInfo, 'name'> {
  credential: SealedBox;
}

interface ProfilesFile {
  version: 1;
  active: string | null;
  profiles: Record<string, StoredProfile>;
}

const FILE = 'profiles.json';
const KEY_FILE = 'key';

function profilesPath(env: NodeJS.ProcessEnv): string {
  return join(configDir(env), FILE);
}

function corrupt(path: string, why: string): ExitError {
  return new ExitError(`error: the profile file ${path} is damaged (${why}); remove it or fix it and add the profiles again`, 1);
}

/** The profile file, empty when it does not exist yet; a malformed file is one clear error (exit 1). */
function readFile(env: NodeJS.ProcessEnv): ProfilesFile {
  const path = profilesPath(env);
  if (!existsSync(path)) return { version: 1, active: null, profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw corrupt(path, 'not valid JSON');
  }
  const file = parsed as Partial<ProfilesFile>;
  if (!file || typeof file !== 'object' || file.version !== 1 || typeof file.profiles !== 'object' || file.profiles === null) {
    throw corrupt(path, 'unknown layout');
  }
  for (const [name, p] of Object.entries(file.profiles)) {
    const box = p?.credential;
    if (typeof p?.base_url !== 'string' || typeof p.key_id !== 'string' || !box || typeof box.iv !== 'string' || typeof box.data !== 'string') {
      throw corrupt(path, `profile "${name}" is incomplete`);
    }
  }
  return { version: 1, active: typeof file.active === 'string' ? file.active : null, profiles: file.profiles };
}

/**
 * Whether the file holds a profile of that name: its own keys only, so that `constructor` or
 * `toString` (inherited by every object) are names like any other, unknown until added.
 */
function hasProfile(file: ProfilesFile, name: string): boolean {
  return Object.hasOwn(file.profiles, name);
}

function noProfile(name: string): ExitError {
  return new ExitError(`error: no profile named "${name}" (see: merchant-kit profile list)`, 2);
}

function writeFile(file: ProfilesFile, env: NodeJS.ProcessEnv): void {
  ensureConfigDir(env);
  writeFileAtomic(profilesPath(env), `${JSON.stringify(file, null, 2)}\n`);
}

/** The master key: `MERCHANT_KIT_MASTER_KEY`, else the key file (32 random bytes, 0600, made on first use when `create`). */
function masterKey(env: NodeJS.ProcessEnv, create: boolean): Buffer | null {
  if (env.MERCHANT_KIT_MASTER_KEY) return keyFromText(env.MERCHANT_KIT_MASTER_KEY);
  const path = join(configDir(env), KEY_FILE);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new ExitError(`error: the key file ${path} is damaged; profiles encrypted with it cannot be read`, 1);
    return key;
  }
  if (!create) return null;
  ensureConfigDir(env);
  const key = randomBytes(32);
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process made it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return masterKey(env, false);
    throw error;
  }
  chmodSync(path, 0o600);
  return key;
}

/** Binds the encrypted credential to its profile: moving or editing it fails the auth tag. */
function aad(name: string, p: Omit<ProfileInfo, 'name'>): string {
  return JSON.stringify([name, p.base_url, p.environment, p.key_id]);
}

function info(name: string, p: StoredProfile): ProfileInfo {
  return {
    name,
    base_url: p.base_url,
    environment: p.environment,
    store_id: p.store_id,
    store_name: p.store_name,
    integration_id: p.integration_id,
    key_id: p.key_id,
    created_at: p.created_at,
  };
}

/**
 * Every profile (without secrets) and the active one's name. Each credential is checked to decrypt,
 * under one master key read (a passphrase key is stretched with scrypt: once, not once per profile).
 */
export function listProfiles(env: NodeJS.ProcessEnv = process.env): { active: string | null; profiles: ProfileInfo[] } {
  const file = readFile(env);
  const names = Object.keys(file.profiles).sort();
  const key = names.length > 0 ? masterKey(env, false) : null;
  for (const name of names) decryptProfile(name, file, key);
  return { active: file.active, profiles: names.map((n) => info(n, file.profiles[n])) };
}

/** The active profile's name (`profile use`), or null. */
export function activeProfileName(env: NodeJS.ProcessEnv = process.env): string | null {
  return readFile(env).active;
}

/** A profile with its decrypted credential; unknown name → usage error; tampered → exit 1. */
export function loadProfile(name: string, env: NodeJS.ProcessEnv = process.env): ProfileInfo & { credential: string } {
  const file = readFile(env);
  if (!hasProfile(file, name)) throw noProfile(name);
  return { ...info(name, file.profiles[name]), credential: decryptProfile(name, file, masterKey(env, false)) };
}

function decryptProfile(name: string, file: ProfilesFile, key: Buffer | null): string {
  const p = file.profiles[name];
  const plain = key ? open(p.credential, key, aad(name, p)) : null;
  if (plain === null || !CREDENTIAL_PATTERN.test(plain)) {
    throw new ExitError(
      `error: the credential of profile "${name}" cannot be decrypted (the profile file was altered or the master key changed); run: merchant-kit profile remove ${name} && merchant-kit profile add ${name} --base-url ${p.base_url}`,
      1,
    );
  }
  return plain;
}

/** Adds or replaces a profile, encrypting its credential with a fresh IV; the first profile becomes active. */
export function saveProfile(profile: ProfileInfo & { credential: string }, env: NodeJS.ProcessEnv = process.env): { active: boolean } {
  const file = readFile(env);
  const key = masterKey(env, true)!;
  const { name, credential, ...rest } = profile;
  file.profiles[name] = { ...rest, credential: seal(credential, key, aad(name, rest)) };
  if (!file.active || !hasProfile(file, file.active)) file.active = name;
  writeFile(file, env);
  return { active: file.active === name };
}

/** Makes `name` the active profile. */
export function useProfile(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = readFile(env);
  if (!hasProfile(file, name)) throw noProfile(name);
  file.active = name;
  writeFile(file, env);
}

/** Removes `name`; when it was active no profile is active afterwards. */
export function removeProfile(name: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = readFile(env);
  if (!hasProfile(file, name)) throw noProfile(name);
  delete file.profiles[name];
  if (file.active === name) file.active = null;
  writeFile(file, env);
}

/**
 * Another secret of this machine's state (the webhook secret `listen --configure` keeps between
 * runs) sealed under the profile store's master key, bound to `aad` like a profile's credential.
 */
export function sealWithMasterKey(plain: string, aad: string, env: NodeJS.ProcessEnv = process.env): SealedBox {
  return seal(plain, masterKey(env, true)!, aad);
}

/** The plain text of a box from `sealWithMasterKey`, or null (no key yet, another key, an altered box). */
export function openWithMasterKey(box: SealedBox, aad: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const key = masterKey(env, false);
  return key ? open(box, key, aad) : null;
}
