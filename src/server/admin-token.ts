/**
 * DESIGN, Storage and the team sandbox: `--admin-token` takes 16 characters or more, without
 * surrounding spaces. A short token is guessed; a lone space locks everybody out; an empty one
 * left the control API open while the operator believed it closed; a token pasted with a new line
 * never matches what clients send (HTTP trims header values).
 */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** Why `token` cannot be the admin token (English, for a usage error), or null when it can. */
export function adminTokenProblem(token: string): string | null {
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) return `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (it has ${token.length})`;
  if (/^\s|\s$/.test(token)) return 'must not start or end with spaces, tabs or line breaks';
  return null;
}
