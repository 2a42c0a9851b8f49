// Host names as the contract reads them, without zod: the client and the CLI's error reports use
// them at start-up, where zod must not load (test/cli/program.test.ts watches the imports).

/** A dotted-decimal IPv4 address, its four octets captured. */
export const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Loopback hosts, where the emulator also accepts plain `http://` (a developer's own machine). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase();
  if (h === 'localhost' || h === '[::1]' || h === '::1') return true;
  const m = IPV4.exec(h);
  return m !== null && m[1] === '127' && m.slice(1).every((o) => Number(o) <= 255);
}
