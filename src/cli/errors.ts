/** A usage error or a failure the CLI explains and maps to an exit code (only main.ts exits). */
export class ExitError extends Error {
  constructor(message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
    this.name = 'ExitError';
  }
}
