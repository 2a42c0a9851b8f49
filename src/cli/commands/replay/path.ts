/** The API's base paths (spec: `{base_url}` is `/v1`, `{sandbox_url}` is `/sandbox/v1` on an emulator). */
const API_BASES = ['/v1', '/sandbox/v1'];

/**
 * The path replay sends for a recorded one, or undefined when it must not be sent. The recorded text
 * is read as a path of the target (never as another host), with dot segments resolved the way every
 * HTTP stack does (`..`, `%2e%2e`, backslashes), and only calls of the API are kept: a crafted
 * recording could otherwise reach the emulator's control API (`/_emulator/…` directly, or
 * `/sandbox/v1/../../_emulator/…`) and move its clock, re-point a webhook or revoke a credential.
 *
 * @example
 * replayablePath('/sandbox/v1/me?x=1') // → '/sandbox/v1/me?x=1'
 * replayablePath('/sandbox/v1/%2e%2e/%2e%2e/_emulator/clock/advance') // → undefined
 */
export function replayablePath(recorded: string): string | undefined {
  if (!recorded.startsWith('/')) return undefined;
  let url: URL;
  try {
    url = new URL(`http://replay.invalid${recorded}`);
  } catch {
    return undefined;
  }
  if (url.host !== 'replay.invalid') return undefined;
  const path = url.pathname;
  if (!API_BASES.some((base) => path === base || path.startsWith(`${base}/`))) return undefined;
  return `${path}${url.search}`;
}
