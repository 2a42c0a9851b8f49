import type { FastifyServerOptions } from 'fastify';

/**
 * The emulator's routes validate with the contract's zod schemas (src/contract, emulator/http/route.ts),
 * never with fastify's JSON schemas. Giving fastify compilers of our own keeps it from loading ajv,
 * ajv-formats and fast-json-stringify at every start (a few dozen modules; bench/cli-start.mjs). A
 * route that declared a JSON schema anyway would meet these and fail when it is registered.
 */
const refuse = (): never => {
  throw new Error('emulator routes validate with the contract\'s zod schemas: a fastify JSON schema is not supported here');
};

export const NO_JSON_SCHEMAS: FastifyServerOptions['schemaController'] = {
  compilersFactory: { buildValidator: refuse, buildSerializer: refuse },
};
