import { createHash } from 'node:crypto';
import { ACCESS_LIMITS } from '../../src/contract/access-requests.js';
import type { FieldIssue } from '../../src/contract/errors.js';
import { htmlEscape as h } from '../../src/text/html.js';

// The access page (`GET /access`): a plain form that works without JavaScript, for the integrators who
// ask the operator for a test store. English or Spanish: `?lang=` chooses, else the browser's
// Accept-Language, else English. The page holds no script at all and no stored data but what the
// person just typed, escaped; its one style is inline and allowed by its hash.

export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem auto;max-width:38rem;padding:0 1rem;color:#1d2430;line-height:1.45}
h1{font-size:1.5rem}label{display:block;margin:1rem 0 .25rem;font-weight:600}input{width:100%;padding:.45rem;font:inherit;box-sizing:border-box}
button{margin-top:1.2rem;padding:.5rem 1.2rem;font:inherit}.error{color:#8a1c1c}.field-error{color:#8a1c1c;margin:.2rem 0 0}
.secret{font-family:ui-monospace,Menlo,monospace;background:#f3f5f7;padding:.5rem;word-break:break-all;display:block}
pre{background:#f3f5f7;padding:.6rem;overflow-x:auto}nav{float:right}`;

/** The page's Content-Security-Policy: no script, its own inline style only, forms to itself. */
export const ACCESS_CSP = [
  "default-src 'none'", `style-src 'sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}'`, "form-action 'self'",
  "base-uri 'none'", "frame-ancestors 'none'", "img-src 'none'",
].join('; ');

const TEXT = {
  en: {
    title: 'Request access to the test environment',
    intro: 'Tell the operator of this test environment who you are. Once they approve, you get a test store of your own: its credential for your ERP and a store token for the CLI and the panel, shown once.',
    company: 'Company', email: 'Contact e-mail', system: 'System (your ERP or point of sale)', submit: 'Request access',
    other: 'Español', otherLang: 'es',
    receivedTitle: 'Request received',
    received: 'The operator will approve or deny it. Keep both values below: the claim secret is shown only now, and nobody can show it again.',
    id: 'Request id', secret: 'Claim secret',
    follow: 'Follow your request (the claim secret is read from standard input, never from the command line):',
    followCurl: 'Or with any HTTP client:',
    formProblem: 'The form has a problem; nothing was sent to the operator.',
    fields: { required: 'Required.', too_long: (max: number) => `At most ${max} characters.`, invalid: 'Not valid.', email: 'Not an e-mail address (name@example.com).' },
    refused: 'Your request was not sent.',
    crossSite: 'This form accepts submissions from its own page only.',
    tooLarge: `The form is too large (at most ${ACCESS_LIMITS.bodyBytes} bytes).`,
    wrongType: 'The form must be sent as application/x-www-form-urlencoded.',
    rateLimited: (seconds: string) => `Too many requests: try again in ${seconds} seconds.`,
    back: 'Back to the form',
  },
  es: {
    title: 'Solicitar acceso al entorno de pruebas',
    intro: 'Cuéntele al operador de este entorno de pruebas quién es. Cuando apruebe la solicitud, tendrá un comercio de prueba propio: su credencial para el ERP y un token de comercio para la CLI y el panel, que se muestran una sola vez.',
    company: 'Empresa', email: 'Correo de contacto', system: 'Sistema (su ERP o punto de venta)', submit: 'Solicitar acceso',
    other: 'English', otherLang: 'en',
    receivedTitle: 'Solicitud recibida',
    received: 'El operador la aprobará o la rechazará. Guarde los dos valores: el secreto de reclamo se muestra solo ahora y nadie puede volver a mostrarlo.',
    id: 'Id de la solicitud', secret: 'Secreto de reclamo',
    follow: 'Siga su solicitud (el secreto se lee de la entrada estándar, nunca de la línea de comandos):',
    followCurl: 'O con cualquier cliente HTTP:',
    formProblem: 'El formulario tiene un problema; no se envió nada al operador.',
    fields: { required: 'Obligatorio.', too_long: (max: number) => `Como máximo ${max} caracteres.`, invalid: 'No es válido.', email: 'No es una dirección de correo (nombre@ejemplo.com).' },
    refused: 'Su solicitud no se envió.',
    crossSite: 'Este formulario acepta envíos solo desde su propia página.',
    tooLarge: `El formulario es demasiado grande (como máximo ${ACCESS_LIMITS.bodyBytes} bytes).`,
    wrongType: 'El formulario debe enviarse como application/x-www-form-urlencoded.',
    rateLimited: (seconds: string) => `Demasiadas solicitudes: intente de nuevo en ${seconds} segundos.`,
    back: 'Volver al formulario',
  },
} as const;

export type AccessTexts = (typeof TEXT)[Language];

export function textsOf(language: Language): AccessTexts {
  return TEXT[language];
}

/**
 * The language of a request: `?lang=en|es`, else the first of English or Spanish in Accept-Language
 * by its weight, else English.
 */
export function languageOf(query: unknown, acceptLanguage: string | undefined): Language {
  const asked = (query as { lang?: unknown } | null)?.lang;
  if (asked === 'en' || asked === 'es') return asked;
  let best: { language: Language; q: number } | null = null;
  for (const part of (acceptLanguage ?? '').split(',').slice(0, 20)) {
    const [tag, ...params] = part.trim().toLowerCase().split(';');
    const primary = tag?.split('-')[0];
    if (primary !== 'en' && primary !== 'es') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { language: primary, q };
  }
  return best?.language ?? 'en';
}

function layout(language: Language, title: string, body: string): string {
  const t = TEXT[language];
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${h(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<nav><a href="/access?lang=${t.otherLang}" hreflang="${t.otherLang}" lang="${t.otherLang}">${t.other}</a></nav>
${body}
</body>
</html>
`;
}

export interface FormState {
  values?: Partial<Record<'company' | 'contact_email' | 'system', string>>;
  issues?: FieldIssue[];
  /** A sentence above the form (why nothing was sent). */
  problem?: string;
}

const MAX: Record<string, number> = { company: ACCESS_LIMITS.companyMax, contact_email: ACCESS_LIMITS.emailMax, system: ACCESS_LIMITS.systemMax };

/** A field's problem in the page's language: the Spanish page shows the API's own message. */
function fieldMessage(language: Language, issue: FieldIssue): string {
  if (language === 'es' && issue.field !== 'contact_email') return issue.message;
  const f = TEXT[language].fields;
  if (issue.code === 'required') return f.required;
  if (issue.code === 'too_long') return f.too_long(MAX[issue.field] ?? 0);
  if (issue.field === 'contact_email') return f.email;
  return f.invalid;
}

/** The form, empty or as sent back with its problems (each field's next to it). */
export function accessFormPage(language: Language, state: FormState = {}): string {
  const t = TEXT[language];
  const input = (name: 'company' | 'contact_email' | 'system', label: string, type: string, max: number, autocomplete: string) => {
    const issue = state.issues?.find((i) => i.field === name);
    const id = `field-${name}`;
    return `<label for="${id}">${h(label)}</label>
<input id="${id}" name="${name}" type="${type}" maxlength="${max}" required autocomplete="${autocomplete}" value="${h(state.values?.[name] ?? '')}"${issue ? ` aria-invalid="true" aria-describedby="${id}-error"` : ''}>
${issue ? `<p class="field-error" id="${id}-error">${h(fieldMessage(language, issue))}</p>` : ''}`;
  };
  const other = state.issues?.filter((i) => !['company', 'contact_email', 'system'].includes(i.field)) ?? [];
  const problem = state.problem ?? (state.issues?.length ? t.formProblem : null);
  return layout(language, t.title, `<h1>${h(t.title)}</h1>
<p>${h(t.intro)}</p>
${problem ? `<p class="error" role="alert" id="form-problem">${h(problem)}</p>` : ''}
${other.map((i) => `<p class="error">${h(i.field)}: ${h(i.message)}</p>`).join('\n')}
<form method="post" action="/access?lang=${language}">
${input('company', t.company, 'text', ACCESS_LIMITS.companyMax, 'organization')}
${input('contact_email', t.email, 'email', ACCESS_LIMITS.emailMax, 'email')}
${input('system', t.system, 'text', ACCESS_LIMITS.systemMax, 'off')}
<button type="submit">${h(t.submit)}</button>
</form>`);
}

/** The answer to a sent form: the request's id and its claim secret, shown here once. */
export function accessReceivedPage(language: Language, created: { id: string; claim_secret: string }, origin: string): string {
  const t = TEXT[language];
  return layout(language, t.receivedTitle, `<h1>${h(t.receivedTitle)}</h1>
<p>${h(t.received)}</p>
<p>${h(t.id)}: <code class="secret" id="request-id">${h(created.id)}</code></p>
<p>${h(t.secret)}: <code class="secret" id="claim-secret">${h(created.claim_secret)}</code></p>
<p>${h(t.follow)}</p>
<pre>npx merchant-kit --base-url ${h(origin)} emulator access status ${h(created.id)}</pre>
<p>${h(t.followCurl)}</p>
<pre>curl -H "Authorization: Bearer $CLAIM_SECRET" ${h(origin)}/_emulator/access-requests/${h(created.id)}</pre>`);
}

/** A form that was refused before it was read (cross-site, too large, too many): nothing was sent. */
export function accessRefusedPage(language: Language, why: string): string {
  const t = TEXT[language];
  return layout(language, t.refused, `<h1>${h(t.refused)}</h1>
<p class="error" role="alert" id="form-problem">${h(why)}</p>
<p><a href="/access?lang=${language}">${h(t.back)}</a></p>`);
}
