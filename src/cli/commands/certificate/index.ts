import type { Command } from 'commander';

export interface VerifyOptions {
  keys?: string;
  report?: string;
}

/**
 * `certificate verify <file|-> [--keys URL|file] [--report homologation.json]` (DESIGN: The operator's
 * public test environment): anyone checks a sandbox's certificate, a compact JWS, with the sandbox's
 * public keys and its revocations, and optionally against the report it certifies.
 */
export function register(program: Command): void {
  const certificate = program
    .command('certificate')
    .description("Check a test environment's homologation certificate")
    .addHelpText('after', '\nExamples:\n  $ merchant-kit certificate verify homologation-report/homologation.json --keys https://sandbox.example.com/_emulator/certificates/keys\n');
  certificate
    .command('verify')
    .argument('<file>', 'a file with the certificate (its JWS), or a report that carries one (homologation.json); - reads stdin')
    .description('Verify a certificate: exit 0 printing its content when valid, 1 naming why not (bad signature, unknown key, revoked, report digest differs)')
    .option('--keys <url|file>', "the sandbox's public keys: the URL of its JWKS (the revocation list beside it is read too) or a JWKS file (revocations then not checked); default: the emulator at the base URL")
    .option('--report <file>', 'the report the certificate is about (homologation.json): its SHA-256 must be the certified one; default: the file itself when it is a report')
    .addHelpText(
      'after',
      '\nExamples:\n  $ merchant-kit certificate verify homologation-report/homologation.json --keys https://sandbox.example.com/_emulator/certificates/keys\n' +
        '  $ merchant-kit certificate verify certificate.jws --keys keys.json --report homologation.json\n' +
        '  $ curl -s https://sandbox.example.com/_emulator/homologation/int_01J… | merchant-kit certificate verify - --keys https://sandbox.example.com/_emulator/certificates/keys\n',
    )
    .action(async (file: string, options: VerifyOptions, command: Command) => (await import('./verify.js')).verifyAction(file, options, command));
}
