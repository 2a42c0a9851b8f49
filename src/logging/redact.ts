// Secrets never reach a log: credential secrets, webhook signing secrets and bearer values are masked
// wherever text may carry them (error messages, stacks, URLs).
const SECRET_PATTERNS: [RegExp, string][] = [
  [/svs_(live|test)_[A-Za-z0-9]+/g, 'svs_$1_[redactado]'],
  [/whsec_[A-Za-z0-9_-]+/g, 'whsec_[redactado]'],
  [/(Bearer\s+)\S+/gi, '$1[redactado]'],
];

/** The text with every secret masked: `svs_test_…` → `svs_test_[redactado]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A log-safe view of an error: type, code, message and stack, each redacted. */
export function redactError(error: unknown): { type: string; message: string; stack: string; [key: string]: unknown } {
  if (!(error instanceof Error)) return { type: typeof error, message: redactSecrets(String(error)), stack: '' };
  return {
    type: error.name,
    code: (error as { code?: unknown }).code,
    message: redactSecrets(error.message),
    stack: redactSecrets(error.stack ?? ''),
  };
}
