import type { Command } from 'commander';

export interface OpenApiOptions {
  out?: string;
}

/** `merchant-kit openapi [--out FILE]`: the OpenAPI 1.0.4 document of the API, from the contract. */
export function registerOpenApiCommands(program: Command): void {
  program
    .command('openapi')
    .description('Write the OpenAPI 3.1 document (API version 1.0.4) to a file or to stdout')
    .option('--out <file>', 'destination file (default: stdout)')
    .addHelpText('after', '\nExamples:\n  $ merchant-kit openapi --out openapi.json\n  $ merchant-kit openapi | head -c 200')
    .action(async (options: OpenApiOptions) => {
      const { openApiAction } = await import('./write.js');
      await openApiAction(options);
    });
}
