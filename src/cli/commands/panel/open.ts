import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { ExitError } from '../../errors.js';
import { note, printJson, printLine } from '../../output.js';
import { controlTarget, noEmulatorLine, probeEmulator } from '../emulator/control-call.js';

const PROBE_TIMEOUT_MS = 5_000;

/** The platform's way to open a URL with the default browser. */
function opener(url: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/** Starts the browser and lets it live on its own; resolves false when the opener could not be started. */
function openInBrowser(url: string): Promise<boolean> {
  const { command, args } = opener(url);
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

/**
 * `merchant-kit panel`: checks that the emulator answers, prints the panel's URL and, on a terminal
 * (and without `--no-open`), opens it with the platform's opener.
 */
export async function panelAction(options: { open: boolean }, command: Command): Promise<void> {
  const target = await controlTarget(command);
  const url = `${target.admin}/panel`;
  const answer = await probeEmulator(target, PROBE_TIMEOUT_MS);
  if (answer === 'nothing') throw new ExitError(noEmulatorLine(target.root));
  if (answer === 'not_emulator') throw new ExitError(`error: ${target.root} is not a merchant-kit emulator (no control API at ${target.admin})`);
  const open = options.open && Boolean(process.stdout.isTTY) && !target.json;
  const opened = open ? await openInBrowser(url) : false;
  if (target.json) return printJson({ url, opened });
  printLine(url);
  if (open && !opened) note(`note: could not start ${opener(url).command} to open a browser; open the URL above yourself`);
}
