import type { Command } from 'commander';

export interface OpenApiOptions {
  out?: string;
}

/** `merchant-kit openapi [--out FILE]`: the OpenAPI 1.0.4 document of the API, from the contract. */
export function registerOpenApiCommands(program: Command): void {
  program
    .command('openapi')
    .description('Escribe el documento OpenAPI 3.1 (versión 1.0.4) de la API en un archivo o en la salida estándar')
    .option('--out <file>', 'archivo de destino (por defecto, la salida estándar)')
    .action(async (options: OpenApiOptions) => {
      const { openApiAction } = await import('./write.js');
      await openApiAction(options);
    });
}
