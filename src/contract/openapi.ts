import { ALL_ENDPOINTS } from './api.js';
import type { Endpoint } from './endpoint.js';
import { errorBody } from './error-body.js';
import { ERROR_CATALOGUE, type ErrorCode } from './errors.js';
import { IDEMPOTENCY_KEY_PATTERN, LIMITS, OPENAPI_VERSION } from './limits.js';
import { componentRefs, pascalCase, SCHEMA_REF, SchemaRegistry, type ConvertedSchemas, type JsonSchema } from './openapi-schemas.js';

// spec: Versioning 1 — the machine-readable description is numbered 1.0.4, generated from the
// Endpoints rows and their zod schemas (never a second copy of a schema).

export type OpenApiDocument = JsonSchema & { openapi: string; info: JsonSchema & { version: string }; paths: Record<string, Record<string, JsonSchema>> };

/** The path the document is served at under each base address, without a credential. */
export const OPENAPI_PATH = '/openapi.json';

const TAGS: Record<string, string> = {
  me: 'Integración',
  store: 'Comercio',
  catalog: 'Catálogo',
  orders: 'Pedidos',
  events: 'Eventos',
  webhook: 'Webhook',
  entregas: 'Entregas',
};

const SUCCESS: Record<number, string> = { 200: 'Correcto', 201: 'Creado', 202: 'Aceptado', 204: 'Sin contenido' };

const COMMON_ERRORS: ErrorCode[] = ['unauthenticated', 'rate_limited', 'internal_error', 'maintenance'];
/** spec: Endpoints — 403 applies to every endpoint except GET /me (scope null), which never answers 403 (DESIGN). */
const SCOPED_ERRORS: ErrorCode[] = ['insufficient_scope', 'integration_suspended', 'store_suspended'];
const RETRY_AFTER_CODES = new Set<ErrorCode>(['rate_limited', 'request_in_progress', 'batch_in_progress', 'maintenance']);

/** Every error code an endpoint can answer: its row's, those of what it accepts, and the common ones. */
export function errorCodesOf(e: Endpoint): ErrorCode[] {
  const codes = new Set<ErrorCode>(e.errors);
  // A write without a body still refuses fields sent to it (422 unknown_field), so every write can answer it.
  if (e.params || e.query || e.body || e.method !== 'GET') codes.add('validation_failed');
  if (e.body || e.method !== 'GET') codes.add('malformed_json').add('payload_too_large');
  if (e.idempotency !== 'none') codes.add('invalid_idempotency_key').add('idempotency_conflict').add('request_in_progress');
  if (e.idempotency === 'required') codes.add('idempotency_key_required');
  for (const code of COMMON_ERRORS) codes.add(code);
  if (e.scope !== null) for (const code of SCOPED_ERRORS) codes.add(code);
  return [...codes].sort((a, b) => ERROR_CATALOGUE[a].status - ERROR_CATALOGUE[b].status);
}

const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

function errorResponses(e: Endpoint): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(e)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of byStatus) {
    const headers: JsonSchema = { 'X-Request-Id': header('XRequestId') };
    if (codes.some((c) => RETRY_AFTER_CODES.has(c))) headers['Retry-After'] = header('RetryAfter');
    const examples = Object.fromEntries(
      codes.map((code) => [code, { value: { error: { code, message: ERROR_CATALOGUE[code].message, request_id: 'req_01JD0000000000000000000000' } } }]),
    );
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      headers,
      content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}ErrorBody` }, examples } },
      'x-error-codes': codes,
    };
  }
  return responses;
}

function successResponse(e: Endpoint, status: number, schemaName: string): JsonSchema {
  const headers: JsonSchema = {
    'X-Request-Id': header('XRequestId'),
    'X-RateLimit-Limit': header('XRateLimitLimit'),
    'X-RateLimit-Remaining': header('XRateLimitRemaining'),
  };
  if (e.idempotency !== 'none') headers['Idempotent-Replay'] = header('IdempotentReplay');
  const description = status === e.status && e.alsoStatus?.length ? `${SUCCESS[status] ?? 'Correcto'} (si el recurso se creó)` : SUCCESS[status] ?? 'Correcto';
  return { description, headers, content: { 'application/json': { schema: { $ref: SCHEMA_REF + schemaName } } } };
}

/** An object schema (after following `$ref`s) as one OpenAPI parameter per property. */
function parametersOf(schema: JsonSchema, location: 'path' | 'query', converted: ConvertedSchemas, fallbackName: string): JsonSchema[] {
  let object = schema;
  while (typeof object.$ref === 'string') object = converted.components[object.$ref.slice(SCHEMA_REF.length)] ?? {};
  const properties = object.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return [{ name: fallbackName, in: location, required: location === 'path', style: 'form', explode: true, schema }];
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }));
}

interface SlotIds {
  params?: string;
  query?: string;
  body?: string;
  response: string;
}

function operation(e: Endpoint, ids: SlotIds, converted: ConvertedSchemas): JsonSchema {
  const parameters: JsonSchema[] = [];
  const inPath = new Set([...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  // A parameter a variant of the row fixed in its path (`{action}` → `pickup`) is no parameter any more.
  if (ids.params) parameters.push(...parametersOf(converted.lookup('request', ids.params).schema, 'path', converted, 'params').filter((p) => inPath.has(p.name as string)));
  for (const name of inPath) {
    if (!parameters.some((p) => p.name === name)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (ids.query) parameters.push(...parametersOf(converted.lookup('request', ids.query).schema, 'query', converted, 'query'));
  if (e.idempotency === 'required') parameters.push({ $ref: '#/components/parameters/IdempotencyKeyRequired' });
  if (e.idempotency === 'optional') parameters.push({ $ref: '#/components/parameters/IdempotencyKeyOptional' });

  const responseName = converted.lookup('response', ids.response).name;
  const responses: Record<string, JsonSchema> = {};
  for (const status of [e.status, ...(e.alsoStatus ?? [])]) responses[String(status)] = successResponse(e, status, responseName);
  Object.assign(responses, errorResponses(e));

  const scopeText = e.scope === null ? 'Cualquier credencial válida (nunca responde 403).' : `Permiso requerido: \`${e.scope}\`.`;
  const keyText = { required: ' Encabezado `Idempotency-Key` obligatorio.', optional: ' Encabezado `Idempotency-Key` opcional.', none: '' }[e.idempotency];
  const segment = e.path.split('/')[1] ?? '';
  return {
    operationId: e.id,
    summary: e.summary,
    description: scopeText + keyText,
    tags: [TAGS[segment] ?? segment],
    'x-required-scope': e.scope,
    security: [{ bearerAuth: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(ids.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: { $ref: SCHEMA_REF + converted.lookup('request', ids.body).name } } } } }
      : {}),
    responses,
  };
}

/** The one operation outside the Endpoints table: the document itself, the only public route. */
const openApiOperation = {
  operationId: 'getOpenApi',
  summary: 'Descripción OpenAPI de la API',
  description: 'Este documento. No requiere credencial.',
  tags: ['OpenAPI'],
  'x-required-scope': null,
  security: [],
  responses: {
    200: {
      description: 'Documento OpenAPI 3.1',
      headers: { 'X-Request-Id': header('XRequestId') },
      content: { 'application/json': { schema: { type: 'object' } } },
    },
  },
};

const staticComponents = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: '<API_KEY>.<API_SECRET>',
      description:
        'Credencial completa: `Authorization: Bearer <API_KEY>.<API_SECRET>` (parte clave `svk_live_…`/`svk_test_…` y parte ' +
        'secreta `svs_live_…`/`svs_test_…` unidas por un punto). Una credencial de pruebas nunca funciona en producción ni al revés.',
    },
  },
  parameters: {
    IdempotencyKeyRequired: idempotencyParameter(true),
    IdempotencyKeyOptional: idempotencyParameter(false),
  },
  headers: {
    XRequestId: { description: 'Identificador de la solicitud (`req_…`), en toda respuesta.', schema: { type: 'string', pattern: '^req_[0-9A-HJKMNP-TV-Z]{26}$' } },
    XRateLimitLimit: { description: `Solicitudes permitidas por minuto e integración (${LIMITS.requestsPerMinute}).`, schema: { type: 'integer' } },
    XRateLimitRemaining: { description: 'Solicitudes que quedan en el minuto en curso.', schema: { type: 'integer', minimum: 0 } },
    RetryAfter: { description: 'Segundos que conviene esperar antes de repetir.', schema: { type: 'integer', minimum: 0 } },
    IdempotentReplay: { description: '`true` cuando la respuesta repite la de una solicitud anterior con la misma Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  },
};

function idempotencyParameter(required: boolean): JsonSchema {
  return {
    name: 'Idempotency-Key',
    in: 'header',
    required,
    description: `De ${LIMITS.idempotencyKeyMin} a ${LIMITS.idempotencyKeyMax} caracteres: letras, dígitos y - _ . :. La misma clave con el mismo cuerpo repite la primera respuesta durante 7 días.`,
    schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
  };
}

/**
 * Builds the OpenAPI 3.1 document of the API from the Endpoints rows.
 *
 * @example
 * const doc = buildOpenApiDocument();
 * doc.paths['/me'].get.operationId; // 'getMe'
 */
export function buildOpenApiDocument(endpoints: readonly Endpoint[] = ALL_ENDPOINTS): OpenApiDocument {
  const registry = new SchemaRegistry();
  const errorBodyId = registry.use(errorBody, 'response', 'ErrorBody');
  const slots = endpoints.flatMap(variantsOf).map((e) => {
    const name = pascalCase(e.id);
    const ids: SlotIds = { response: registry.use(e.response, 'response', `${name}Response`) };
    if (e.params) ids.params = registry.use(e.params, 'request', `${name}Params`);
    if (e.query) ids.query = registry.use(e.query, 'request', `${name}Query`);
    if (e.body) ids.body = registry.use(e.body, 'request', `${name}Body`);
    return { e, ids };
  });
  if (errorBodyId !== 'ErrorBody') throw new Error(`error body registered as ${errorBodyId}`);
  const converted = registry.convert();

  const paths: OpenApiDocument['paths'] = {};
  for (const { e, ids } of slots) (paths[e.path] ??= {})[e.method.toLowerCase()] = operation(e, ids, converted);
  (paths[OPENAPI_PATH] ??= {}).get = openApiOperation;

  const used = componentRefs(paths);
  used.add(errorBodyId);
  const reached: Record<string, JsonSchema> = {};
  for (const name of used) reach(name, converted.components, reached);
  const schemas = Object.fromEntries(Object.keys(reached).sort().map((name) => [name, reached[name]]));
  const tags = [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags as string[])))];

  return {
    openapi: '3.1.0',
    info: {
      title: 'API de integración de comercios',
      version: OPENAPI_VERSION,
      description:
        'Catálogo, recepción de pedidos y estados de pedido (API v1, `api_version` 1.0). Montos en texto decimal (PYG), ' +
        'fechas ISO 8601 con desplazamiento (America/Asuncion), errores `{error: {code, message, details?, request_id}}`. ' +
        'Todo texto es Unicode válido (UTF-8): un sustituto UTF-16 suelto, escrito como `\\ud800` en el JSON, se rechaza con 422 `validation_failed` en su campo, ' +
        'igual que el carácter nulo `\\u0000`.',
    },
    servers: [
      { url: '/v1', description: 'Producción (`{base_url}`)' },
      { url: '/sandbox/v1', description: 'Entorno de pruebas (`{sandbox_url}`)' },
    ],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas, ...staticComponents },
  };
}

/**
 * A row whose body depends on a path parameter as one row per value, the value written in the path:
 * `entregaAction` → `entregaActionPickup` on `/entregas/{id}/pickup` with the pickup body.
 */
export function variantsOf(e: Endpoint): Endpoint[] {
  if (!e.bodiesByParam) return [e];
  const { param, bodies } = e.bodiesByParam;
  return Object.entries(bodies).map(([value, body]) => ({
    ...e,
    id: e.id + pascalCase(value),
    path: e.path.replace(`{${param}}`, value),
    summary: `${e.summary.split(':')[0]}: ${value}`,
    body,
    bodiesByParam: undefined,
  }));
}

function reach(name: string, all: Record<string, JsonSchema>, out: Record<string, JsonSchema>): void {
  if (out[name] || !all[name]) return;
  out[name] = all[name];
  for (const ref of componentRefs(all[name])) reach(ref, all, out);
}

let cached: string | undefined;

/** The document as JSON text, built once per process. */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}
