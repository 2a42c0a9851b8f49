import { ALL_CHECK_IDS } from '../../../../checks/types.js';
import { REPORT_FORMATS, type ReportFormat } from '../../../../checks/writers/index.js';
import { HOMOLOGATION_TIMEOUT } from '../../../contract/control.js';
import { usageError } from '../../errors.js';

export interface HomologateOptions {
  reportDir: string;
  formats: ReportFormat[];
  only: string | undefined;
  observe: boolean;
  integration: string | undefined;
  timeoutSeconds: number;
  nonInteractive: boolean;
  allowLive: boolean;
  json: boolean;
}

/** Reads and checks the flags; a bad one is a usage error (exit 2) with one line. */
export function parseOptions(o: Record<string, unknown>): HomologateOptions {
  const formats = String(o.format ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const bad = formats.filter((f) => !(REPORT_FORMATS as readonly string[]).includes(f));
  if (bad.length || formats.length === 0) throw usageError(`error: --format takes ${REPORT_FORMATS.join(',')} (got ${bad.join(',') || 'nothing'})`);
  const only = typeof o.only === 'string' ? o.only : undefined;
  if (only !== undefined) {
    const unknown = only.split(',').map((s) => s.trim()).filter((id) => id && !(ALL_CHECK_IDS as readonly string[]).includes(id));
    if (unknown.length || !only.trim()) throw usageError(`error: --only takes check ids: ${ALL_CHECK_IDS.join(', ')} (got ${unknown.join(', ') || 'nothing'})`);
  }
  const timeoutSeconds = Number(o.timeout);
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < HOMOLOGATION_TIMEOUT.min || timeoutSeconds > HOMOLOGATION_TIMEOUT.max) {
    throw usageError(`error: --timeout takes whole seconds from ${HOMOLOGATION_TIMEOUT.min} to ${HOMOLOGATION_TIMEOUT.max}`);
  }
  const observe = Boolean(o.observe);
  const integration = typeof o.integration === 'string' ? o.integration : undefined;
  if (observe && !integration) throw usageError('error: --observe needs --integration int_…');
  if (integration && !observe) throw usageError('error: --integration goes with --observe');
  if (integration && !/^int_[0-9A-Za-z]{26}$/.test(integration)) throw usageError('error: --integration takes an integration id (int_ and 26 characters)');
  if (observe && only) throw usageError('error: --only does not apply to --observe (the observer grades every check)');
  return {
    reportDir: String(o.reportDir),
    formats: formats as ReportFormat[],
    only,
    observe,
    integration,
    timeoutSeconds,
    nonInteractive: Boolean(o.nonInteractive),
    allowLive: Boolean(o.allowLive),
    json: Boolean(o.json),
  };
}
