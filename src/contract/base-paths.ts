// Where each environment's API lives under a host (spec: Environments): the emulator mounts its
// environments there, and the CLI and the checks tell an environment from a base URL by it. Without zod.
import type { Environment } from './store.js';

/** The base path of each environment's API. */
export const BASE_PATHS: Record<Environment, string> = { live: '/v1', test: '/sandbox/v1' };

/** `/v1` is live, `/sandbox/v1` test; anything else is not known from the path. */
export function environmentOfPath(pathname: string): Environment | null {
  const path = pathname.replace(/\/+$/, '');
  if (path.endsWith(BASE_PATHS.test)) return 'test';
  if (path.endsWith(BASE_PATHS.live)) return 'live';
  return null;
}

/**
 * The base URL of `environment` on the same host: `…/v1` ⇄ `…/sandbox/v1`, or the origin plus the
 * right path. A path that stops short of the version (`…/sandbox`) is completed, not repeated.
 */
export function baseUrlFor(baseUrl: string, environment: Environment): string {
  const url = new URL(baseUrl);
  let path = url.pathname.replace(/\/+$/, '');
  const sandbox = BASE_PATHS.test.slice(0, -BASE_PATHS.live.length);
  for (const tail of [BASE_PATHS.test, BASE_PATHS.live, sandbox]) {
    if (path.endsWith(tail)) {
      path = path.slice(0, -tail.length);
      break;
    }
  }
  return `${url.origin}${path}${BASE_PATHS[environment]}`;
}
