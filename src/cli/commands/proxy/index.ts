import type { Command } from 'commander';
import { intOption } from '../../options.js';

export interface ProxyCommandOptions {
  to: string;
  port: number;
  host: string;
  record?: string;
  timeout: number;
  json?: boolean;
  allowedHost: string[];
  forwardControl?: boolean;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** `merchant-kit proxy`: a validating, recording proxy between an ERP and the API. */
export function register(program: Command): void {
  program
    .command('proxy')
    .description('Sit between your ERP and the API: forward every call untouched, check each one against the contract, record them')
    .requiredOption('--to <base_url>', 'the base address to forward to (https://…/v1, https://…/sandbox/v1, or an emulator)')
    .option('--port <n>', 'port to listen on (0 = any free port)', intOption('--port', 0, 65535), 4030)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--allowed-host <host>', 'another host name the proxy answers to (repeatable; like emulator start)', collect, [])
    .option('--forward-control', "also forward the emulator's control API (/_emulator/…: state, export, panel); refused otherwise")
    .option('--record <file.jsonl>', 'append every exchange to this file, one JSON line each, secrets redacted')
    .option('--timeout <seconds>', 'seconds to wait for the upstream before answering 504', intOption('--timeout', 1, 600), 30)
    .option('--json', 'one JSON line per exchange on stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ merchant-kit proxy --to http://127.0.0.1:4010/sandbox/v1 --port 4030 --record session.jsonl
  $ merchant-kit proxy --to https://api.example.com/sandbox/v1 --json

Point your ERP at the proxy with the same path as --to (http://127.0.0.1:4030/sandbox/v1 above).`,
    )
    .action(async (options: ProxyCommandOptions, command: Command) => {
      const { proxyAction } = await import('./proxy.js');
      await proxyAction({ ...options, json: options.json ?? command.optsWithGlobals().json });
    });
}
