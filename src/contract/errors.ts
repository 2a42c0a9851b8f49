// spec: Errors — one entry per code, with its HTTP status and a displayable Spanish message.
export const ERROR_CATALOGUE = {
  malformed_json: { status: 400, message: 'El cuerpo de la solicitud no es un objeto JSON válido.' },
  idempotency_key_required: { status: 400, message: 'Esta operación requiere el encabezado Idempotency-Key.' },
  invalid_idempotency_key: {
    status: 400,
    message: 'El encabezado Idempotency-Key debe tener de 8 a 100 caracteres: letras, dígitos y - _ . :',
  },
  invalid_cursor: { status: 400, message: 'El cursor de paginación no es válido.' },
  unauthenticated: { status: 401, message: 'Credencial ausente, inválida, vencida o revocada.' },
  insufficient_scope: { status: 403, message: 'La credencial no tiene el permiso necesario para esta operación.' },
  integration_suspended: { status: 403, message: 'La integración está suspendida.' },
  store_suspended: { status: 403, message: 'El comercio está suspendido.' },
  status_authority_denied: {
    status: 403,
    message: 'La configuración del comercio no permite cambiar el estado de los pedidos desde este origen.',
  },
  field_not_managed: {
    status: 403,
    message: 'El catálogo se gestiona manualmente en el panel (catalog_mode: manual); el sistema externo no puede modificarlo.',
  },
  // A documented addition of the emulator (docs/emulator.md, Safety): a request from a name or web page that is not the emulator's own.
  host_not_allowed: {
    status: 403,
    message: 'La solicitud no viene de un nombre de este emulador (Host u Origin); use localhost o 127.0.0.1, o agregue el nombre con --allowed-host.',
  },
  not_found: { status: 404, message: 'El recurso no existe.' },
  idempotency_conflict: { status: 409, message: 'La misma Idempotency-Key ya se usó con otra solicitud.' },
  request_in_progress: { status: 409, message: 'La solicitud original con esta Idempotency-Key aún se está procesando.' },
  invalid_status_transition: { status: 409, message: 'El pedido no puede pasar a ese estado desde su estado actual.' },
  external_id_conflict: { status: 409, message: 'El pedido ya fue confirmado con otro código externo.' },
  already_acknowledged: { status: 409, message: 'El pedido ya fue confirmado como importado.' },
  category_not_empty: { status: 409, message: 'La categoría tiene productos activos.' },
  already_linked: { status: 409, message: 'El producto ya está vinculado a otro código externo.' },
  batch_in_progress: { status: 409, message: 'Otro lote de esta integración se está procesando.' },
  snapshot_closed: { status: 409, message: 'La instantánea completa ya terminó o venció; envíe una nueva con otro snapshot_id.' },
  snapshot_out_of_order: { status: 409, message: 'La parte de la instantánea llegó fuera de orden.' },
  delivery_in_progress: { status: 409, message: 'La entrega del webhook se está enviando en este momento.' },
  store_closed: { status: 409, message: 'El comercio no está recibiendo pedidos.' },
  payload_too_large: { status: 413, message: 'La solicitud supera el tamaño permitido (5 MB o 500 operaciones por lote).' },
  validation_failed: { status: 422, message: 'Los datos enviados no son válidos.' },
  rate_limited: { status: 429, message: 'Se superó el límite de solicitudes; espere los segundos indicados en Retry-After.' },
  internal_error: { status: 500, message: 'Error inesperado; puede repetir la solicitud si es idempotente.' },
  maintenance: { status: 503, message: 'Servicio en mantenimiento; intente de nuevo más tarde.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** One field-level problem: `field` is a dotted path such as `option_groups.0.options.1.price`. */
export interface FieldIssue {
  field: string;
  code: string;
  message: string;
}

export type ErrorDetails = FieldIssue[] | Record<string, unknown>;

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetails; request_id: string };
}

/** The one error type of the API: a spec code, its status, a Spanish message and optional details. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetails,
    headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
    this.headers = headers;
  }

  /** `ApiError.of('category_not_empty')`, `ApiError.of('snapshot_out_of_order', {expected_part: 2})`. */
  static of(code: ErrorCode, details?: ErrorDetails, message?: string): ApiError {
    return new ApiError(code, message, details);
  }

  static validation(details: FieldIssue[], message?: string): ApiError {
    return new ApiError('validation_failed', message, details);
  }

  static field(field: string, code: string, message: string): ApiError {
    return new ApiError('validation_failed', undefined, [{ field, code, message }]);
  }

  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  toBody(requestId: string): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message, request_id: requestId };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}
