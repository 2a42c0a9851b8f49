import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt, ROOT } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { homologationScratch } from '../helpers/homologation.js';

// homologate on a terminal: util-linux `script` gives the command a pseudo-terminal for stdout and
// stderr (120 columns: ora measures its lines by them), as a person's shell would.

let emu: TestEmulator;
beforeAll(async () => {
  await ensureBuilt();
  emu = await startTestEmulator();
});
afterAll(() => emu?.close());

/** Runs `merchant-kit …args` on a pseudo-terminal; the screen's text without colours, cursor moves or carriage returns. */
function onTerminal(args: string[]): Promise<{ code: number | null; screen: string }> {
  const scratch = homologationScratch();
  const env: NodeJS.ProcessEnv = { ...process.env, ...scratch.env, MERCHANT_KIT_BASE_URL: emu.running.sandbox_base_url, MERCHANT_KIT_CREDENTIAL: emu.test.credential, NO_COLOR: '1' };
  // A person's terminal: not CI (CI gets plain lines, no spinner).
  delete env.CI;
  const command = `stty cols 120 rows 40; exec '${process.execPath}' '${BIN}' ${args.map((a) => `'${a}'`).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  child.stdout.on('data', (d) => (raw += d));
  child.stderr.on('data', (d) => (raw += d));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      // eslint-disable-next-line no-control-regex
      const screen = raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split(/\r\n|\r|\n/).filter((l) => l.trim()).join('\n');
      resolve({ code, screen });
    }),
  );
}

describe('homologate on a terminal', () => {
  it('prints the summary once (the live lines give way to it), and --only exits 0 when the selected checks pass', async () => {
    const { code, screen } = await onTerminal(['homologate', '--only', 'connection,catalog', '--report-dir', homologationScratch().reports]);
    expect(code, screen).toBe(0);
    for (const id of ['connection', 'catalog']) expect(screen.match(new RegExp(`PASS\\s+${id}\\s`, 'g')), screen).toHaveLength(1);
    expect(screen.match(/Selected checks passed: 2\/2/g)).toHaveLength(1);
    expect(screen).not.toContain('MaxListenersExceededWarning');
  });
});
