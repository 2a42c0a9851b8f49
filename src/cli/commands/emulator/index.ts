import { InvalidArgumentError, type Command } from 'commander';

function integer(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} debe ser un entero de ${min} a ${max}.`);
    return n;
  };
}

function oneOf<T extends string>(values: readonly T[]) {
  return (value: string): T => {
    if (!values.includes(value as T)) throw new InvalidArgumentError(`valores aceptados: ${values.join(', ')}`);
    return value as T;
  };
}

export interface StartOptions {
  port: number;
  host: string;
  data?: string;
  memory?: boolean;
  clock: 'system' | 'manual';
  limits: 'on' | 'off';
  seed?: number;
  adminToken?: string;
  json?: boolean;
  /** Request log on stderr. */
  verbose?: boolean;
}

export function registerEmulatorCommands(program: Command): void {
  const emulator = program.command('emulator').description('El emulador local de la API (live y sandbox)');
  emulator
    .command('start')
    .description('Inicia el emulador con sus tiendas de demostración')
    .option('--port <n>', 'puerto (0 = cualquiera libre)', integer('--port', 0, 65535), 4010)
    .option('--host <host>', 'dirección de escucha', '127.0.0.1')
    .option('--data <dir>', 'carpeta de las bases de datos (sobrevive reinicios)')
    .option('--memory', 'todo en memoria, nada en disco')
    .option('--clock <mode>', 'reloj: system o manual', oneOf(['system', 'manual'] as const), 'system')
    .option('--limits <on|off>', 'límites de tasa', oneOf(['on', 'off'] as const), 'on')
    .option('--seed <n>', 'semilla para ids y datos simulados reproducibles', integer('--seed', 0, 2 ** 31 - 1))
    .option('--admin-token <token>', 'token de la API de control (obligatorio fuera de loopback)')
    .option('--json', 'imprime una línea JSON "ready" en stdout al escuchar')
    .action(async (options: StartOptions, command: Command) => {
      const { startAction } = await import('./start.js');
      const globals = command.optsWithGlobals();
      await startAction({ ...options, json: options.json ?? globals.json, verbose: globals.verbose });
    });
}
