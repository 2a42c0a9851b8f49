import type { Command } from 'commander';

export interface ReplayCommandOptions {
  against: string;
  json?: boolean;
}

/** `merchant-kit replay`: replays a recorded session against an emulator and reports what differs. */
export function register(program: Command): void {
  program
    .command('replay')
    .description('Replay the requests of a session recorded by "proxy --record" against an emulator and report every difference')
    .argument('<file.jsonl>', 'the record file written by merchant-kit proxy --record')
    .requiredOption('--against <url>', 'the emulator to replay against (its root address, e.g. http://127.0.0.1:4010)')
    .option('--credential-stdin', 'read the credential to replay with from one line of stdin')
    .option('--json', 'one JSON line per replayed request')
    .addHelpText(
      'after',
      `
The credential comes from --credential-stdin, MERCHANT_KIT_CREDENTIAL or the profile, and must be of
the recorded environment (a sandbox session needs a test credential). Exit 1 when any request differs.

Examples:
  $ merchant-kit replay session.jsonl --against http://127.0.0.1:4010
  $ merchant-kit replay session.jsonl --against http://127.0.0.1:4010 --json`,
    )
    .action(async (file: string, options: ReplayCommandOptions, command: Command) => {
      const { replayAction } = await import('./replay.js');
      await replayAction(file, { ...options, json: options.json ?? command.optsWithGlobals().json }, command);
    });
}
