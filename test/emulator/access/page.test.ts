import { request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.js';
import { openChromium, type TestBrowser } from '../../helpers/panel.js';
import { controlCall, freshAddress } from '../../helpers/tokens.js';
import { ACCESS_LIMITS } from '../../../src/contract/access-requests.js';
import { patienceNow } from '../../helpers/wait.js';

// DESIGN: GET /access — the request form, a plain HTML form that works without JavaScript, in English
// and Spanish. Its POST is url-encoded (what a form sends), so it has its own guards: same origin
// only, bounded in size, fields checked, and an HTML answer that shows the id and claim secret once.

const ADMIN = 'operator-admin-token-0123456789';
let emu: TestEmulator;
let browser: TestBrowser;

beforeAll(async () => {
  emu = await startTestEmulator({ adminToken: ADMIN, accessRequests: true, publicUrl: 'https://sandbox.example.com' });
  browser = await openChromium();
});
afterAll(async () => {
  await browser?.close();
  await emu?.close();
});

const count = async () => (await controlCall(emu, 'GET', '/access-requests?limit=200', ADMIN)).body.data.length as number;

async function post(form: string, headers: Record<string, string> = {}, path = '/access') {
  const agent = freshAddress();
  try {
    const res = await undiciRequest(`${emu.url}${path}`, {
      method: 'POST', body: form, dispatcher: agent, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    return { status: res.statusCode, headers: res.headers, html: await res.body.text() };
  } finally {
    await agent.close();
  }
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const good = { company: 'Café Nº 1', contact_email: 'caja@cafe.example', system: 'Punto de venta' };

describe('the access page', () => {
  it('serves the form with no script, a strict CSP, in English by default and in Spanish for Accept-Language: es', async () => {
    const en = await undiciRequest(`${emu.url}/access`);
    const html = await en.body.text();
    expect(en.statusCode).toBe(200);
    expect(en.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(en.headers['content-security-policy']).toMatch(/default-src 'none'.*form-action 'self'.*frame-ancestors 'none'/);
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<form method="post" action="/access?lang=en">');
    expect(html).not.toMatch(/<script/i);
    const es = await (await undiciRequest(`${emu.url}/access`, { headers: { 'accept-language': 'es-PY,es;q=0.9,en;q=0.5' } })).body.text();
    expect(es).toContain('<html lang="es">');
    expect(es).toContain('Solicitar acceso');
    // ?lang= wins over the header.
    expect(await (await undiciRequest(`${emu.url}/access?lang=en`, { headers: { 'accept-language': 'es' } })).body.text()).toContain('<html lang="en">');
  });

  it('takes a same-origin form: 201 and a page with the request id and claim secret, not cached', async () => {
    const before = await count();
    const answer = await post(form(good), { origin: emu.url, 'sec-fetch-site': 'same-origin' });
    expect(answer.status).toBe(201);
    expect(answer.headers['cache-control']).toBe('no-store');
    const id = /id="request-id">(acr_[0-9A-Z]{26})</.exec(answer.html)?.[1];
    const secret = /id="claim-secret">(mkc_[A-Za-z0-9]{40})</.exec(answer.html)?.[1];
    expect(id).toBeDefined();
    expect(secret).toBeDefined();
    // How to follow it names the address integrators use (--public-url), not this process's.
    expect(answer.html).toContain(`npx merchant-kit --base-url https://sandbox.example.com emulator access status ${id}`);
    expect(await count()).toBe(before + 1);
    const read = await undiciRequest(`${emu.url}/_emulator/access-requests/${id}`, { headers: { authorization: `Bearer ${secret}` } });
    expect(((await read.body.json()) as { data: { status: string } }).data.status).toBe('pending');
  });

  it.each([
    ['another site\'s Origin', { origin: 'https://evil.example' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }],
    ['Origin: null (a sandboxed frame) and no Sec-Fetch-Site', { origin: 'null' }],
  ])('refuses a form posted with %s: 403 page, nothing kept', async (_name, headers) => {
    const before = await count();
    const answer = await post(form(good), headers);
    expect(answer.status).toBe(403);
    expect(answer.html).toContain('id="form-problem"');
    expect(await count()).toBe(before);
  });

  it(`refuses a form over ${ACCESS_LIMITS.bodyBytes} bytes with a 413 page, nothing kept`, async () => {
    const before = await count();
    const answer = await post(form({ ...good, company: 'x'.repeat(ACCESS_LIMITS.bodyBytes) }));
    expect(answer.status).toBe(413);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.html).toContain('too large');
    expect(await count()).toBe(before);
  });

  it('refuses a body that is not a url-encoded form with a 415 page', async () => {
    const answer = await post(JSON.stringify(good), { 'content-type': 'application/json' });
    expect(answer.status).toBe(415);
    expect(answer.html).toContain('application/x-www-form-urlencoded');
  });

  it('sends the form back with each field\'s problem beside it, what was typed kept and escaped, and nothing kept', async () => {
    const before = await count();
    const answer = await post(form({ company: '<script>alert(1)</script>', contact_email: 'not an address', system: '' }));
    expect(answer.status).toBe(422);
    expect(answer.html).toContain('value="&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(answer.html).not.toContain('<script>alert(1)');
    expect(answer.html).toMatch(/id="field-contact_email-error">Not an e-mail address/);
    expect(answer.html).toMatch(/id="field-system-error">Required\./);
    expect(await count()).toBe(before);
  });

  it('works without JavaScript in Chromium, in Spanish: the person fills it, sends it, and reads the id and claim secret', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, locale: 'es-PY', extraHTTPHeaders: { 'accept-language': 'es-PY,es' } });
    const page = await context.newPage();
    page.setDefaultTimeout(patienceNow());
    await page.goto(`${emu.url}/access`);
    expect(await page.locator('h1').textContent()).toBe('Solicitar acceso al entorno de pruebas');
    await page.getByLabel('Empresa').fill('Panadería Sol');
    await page.getByLabel('Correo de contacto').fill('hola@sol.example');
    await page.getByLabel('Sistema (su ERP o punto de venta)').fill('ERP Sol');
    await page.getByRole('button', { name: 'Solicitar acceso' }).click();
    await page.locator('#claim-secret').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Solicitud recibida');
    const id = (await page.locator('#request-id').textContent())!;
    expect(id).toMatch(/^acr_/);
    expect(await page.locator('#claim-secret').textContent()).toMatch(/^mkc_[A-Za-z0-9]{40}$/);
    const listed = (await controlCall(emu, 'GET', '/access-requests?limit=200', ADMIN)).body.data.find((r: { id: string }) => r.id === id);
    expect(listed).toMatchObject({ company: 'Panadería Sol', contact_email: 'hola@sol.example', system: 'ERP Sol', status: 'pending' });
    // A field the browser let through but the sandbox refuses comes back marked, in Spanish.
    await page.goto(`${emu.url}/access`);
    await page.getByLabel('Empresa').fill('Panadería Sol');
    await page.getByLabel('Correo de contacto').fill('hola@sol');
    await page.getByLabel('Sistema (su ERP o punto de venta)').fill('ERP Sol');
    await page.getByRole('button', { name: 'Solicitar acceso' }).click();
    await page.locator('#field-contact_email-error').waitFor();
    expect(await page.getByLabel('Empresa').inputValue()).toBe('Panadería Sol');
    await context.close();
  });
});
