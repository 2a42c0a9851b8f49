import { Command, CommanderError } from 'commander';
import { ExitError } from './errors.js';
import { COMMAND_GROUPS } from './commands/index.js';

const program = new Command()
  .name('merchant-kit')
  .description('Emulador, CLI y pruebas de homologación para la API de comercios v1')
  .option('--profile <name>', 'perfil de credenciales a usar')
  .option('--base-url <url>', 'dirección base de la API')
  .option('--json', 'salida JSON')
  .option('--verbose', 'más detalle en stderr')
  .exitOverride()
  .showHelpAfterError();

for (const register of COMMAND_GROUPS) register(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof ExitError) {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`${(error as Error).message ?? error}\n`);
    process.exitCode = 1;
  }
}
