// spec: Authentication — `Authorization: Bearer <token>`. One rule for every token the emulator
// takes (API credentials, the admin token, store tokens): the scheme in any letter case (RFC 9110,
// 11.1), one or more spaces, then the token as it is. Issue 24: the admin token alone wanted
// `Bearer` with a capital B and one space.
const BEARER = /^[Bb][Ee][Aa][Rr][Ee][Rr] +(\S.*)$/s;

/** The token of a Bearer Authorization header, or undefined when the header is missing or of another scheme. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header.trim())?.[1];
}
