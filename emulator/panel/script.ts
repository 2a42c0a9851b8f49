import { ORDER_STATUSES } from '../../src/contract/orders.js';
import { FINAL_ORDER_STATUSES } from '../../src/contract/enums.js';
import { integrationSettings, SCOPES } from '../../src/contract/store.js';
import { PANEL_LIVE } from './script-live.js';
import { PANEL_RENDER } from './script-render.js';
import { PANEL_OPERATOR } from './script-operator.js';

const ENUM_SETTINGS = ['catalog_mode', 'order_status_authority', 'missing_items_policy', 'ack_expected'] as const;
const SETTING_CHOICES = Object.fromEntries(ENUM_SETTINGS.map((k) => [k, integrationSettings.shape[k].removeDefault().options]));

// The script's first part: state, the control API client, loading and actions. The lists of statuses,
// scopes and setting values come from the contract (src/contract), the only place they are written.
const PANEL_CORE = String.raw`  var ADMIN = '/_emulator';
  var STAGES = ${JSON.stringify(ORDER_STATUSES.slice(1, 6))};
  var COLUMNS = ${JSON.stringify(ORDER_STATUSES)};
  var FINAL = ${JSON.stringify(FINAL_ORDER_STATUSES)};
  var SCOPES = ${JSON.stringify(SCOPES)};
  var SETTINGS = ${JSON.stringify(SETTING_CHOICES)};
  var token = sessionStorage.getItem('merchant-kit-admin-token');
  var ui = { env: 'test', storeId: null, state: null, orders: [], deliveries: [], orderErrors: {}, errors: {}, secret: null, homologation: null };
  var $ = function (id) { return document.getElementById(id); };

  // Builds an element; strings and numbers become text nodes, never markup.
  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) Object.keys(props).forEach(function (k) {
      var v = props[k];
      if (v === undefined || v === null || v === false) return;
      if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), v);
      else if (k === 'text') node.textContent = String(v);
      // The value drawn is also the field's default: what differs from it was typed (fillKeeping).
      else if (k === 'value') { node.value = String(v); if ('defaultValue' in node) node.defaultValue = String(v); }
      else if (k === 'checked') { node.checked = true; node.defaultChecked = true; }
      else node.setAttribute(k, String(v));
    });
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
  function fill(node, children) { node.replaceChildren(); append(node, children); }

  // A section redrawn by a live update keeps what the person typed or ticked and has not saved (a
  // field whose value differs from the one it was drawn with) and where the cursor was.
  function fieldKey(f) { return f.getAttribute('aria-label') || (f.type === 'checkbox' ? 'checkbox:' + f.value : null); }
  function fieldsOf(node) { return Array.prototype.slice.call(node.querySelectorAll('input, select, textarea')); }
  function editsOf(node) {
    var edits = {};
    fieldsOf(node).forEach(function (f) {
      var key = fieldKey(f);
      if (!key) return;
      if (f.type === 'checkbox') { if (f.checked !== f.defaultChecked) edits[key] = { checked: f.checked }; return; }
      if (f.tagName === 'SELECT') {
        var drawn = Array.prototype.find.call(f.options, function (o) { return o.defaultSelected; });
        if (!drawn || f.value !== drawn.value) edits[key] = { value: f.value };
        return;
      }
      if (f.value !== f.defaultValue) edits[key] = { value: f.value };
    });
    return edits;
  }
  function fillKeeping(node, children) {
    var edits = editsOf(node);
    var active = document.activeElement;
    var focus = active && node.contains(active) && fieldKey(active) ? { key: fieldKey(active), start: null, end: null } : null;
    if (focus) { try { focus.start = active.selectionStart; focus.end = active.selectionEnd; } catch (e) { /* no selection */ } }
    fill(node, children);
    putBack(node, edits);
    if (focus) fieldsOf(node).forEach(function (f) {
      if (fieldKey(f) === focus.key && document.activeElement !== f) {
        f.focus();
        try { if (focus.start !== null) f.setSelectionRange(focus.start, focus.end); } catch (e) { /* not a text field */ }
      }
    });
  }
  // Puts edits taken by editsOf into the fields of a freshly drawn node (a section, or an order's card).
  function putBack(node, edits) {
    fieldsOf(node).forEach(function (f) {
      var edit = edits[fieldKey(f)];
      if (edit && 'checked' in edit) f.checked = edit.checked;
      else if (edit) f.value = edit.value;
    });
  }

  function headers() {
    var h = { accept: 'application/json' };
    if (token) h.authorization = 'Bearer ' + token;
    return h;
  }
  // Every write sends Content-Type: application/json (the control API refuses writes without it).
  async function api(method, path, body) {
    var init = { method: method, headers: headers(), credentials: 'same-origin', cache: 'no-store' };
    if (method !== 'GET') { init.headers['content-type'] = 'application/json'; init.body = JSON.stringify(body || {}); }
    var res = await fetch(ADMIN + path, init);
    var text = await res.text();
    var json = null;
    try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
    if (res.status === 401) askToken(token ? 'The token was refused.' : '');
    if (!res.ok) {
      var err = new Error(json && json.error ? json.error.message : 'HTTP ' + res.status);
      err.status = res.status;
      err.code = json && json.error ? json.error.code : null;
      err.details = json && json.error ? json.error.details : undefined;
      throw err;
    }
    return json;
  }

  function askToken(message) {
    $('app').hidden = true;
    $('token-form').hidden = false;
    $('token-error').textContent = message || '';
    $('token-input').focus();
  }
  $('token-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    token = $('token-input').value.trim();
    $('token-input').value = '';
    sessionStorage.setItem('merchant-kit-admin-token', token);
    start();
  });

  // ---- data ----
  function currentEnv() {
    var envs = ui.state ? ui.state.environments : [];
    return envs.find(function (e) { return e.name === ui.env; }) || envs[0];
  }
  // A finished reference run's store (homologate suspends it) is not listed, nor opened by default.
  function listedStore(s) { return !(s.suspended && s.slug.indexOf('merchant-kit-homologation-') === 0); }
  function currentStore() {
    var env = currentEnv();
    if (!env) return null;
    return env.stores.find(function (s) { return s.id === ui.storeId; }) || env.stores.find(listedStore) || env.stores[0] || null;
  }
  function currentIntegration() {
    var store = currentStore();
    return store && store.integrations[0] ? store.integrations[0] : null;
  }

  var busy = {};
  // Runs one refresh at a time per kind; a change that arrives meanwhile runs it once more.
  function refresh(kind, fn) {
    if (busy[kind]) { busy[kind] = 'again'; return; }
    busy[kind] = true;
    fn().catch(function () {}).then(function () {
      var again = busy[kind] === 'again';
      busy[kind] = false;
      if (again) refresh(kind, fn);
    });
  }
  async function loadState() {
    var res = await api('GET', '/state');
    ui.state = res.data;
    var env = currentEnv();
    if (env) { ui.env = env.name; var store = currentStore(); ui.storeId = store ? store.id : null; }
    $('token-form').hidden = true;
    $('app').hidden = false;
    renderSwitchers(); renderAlerts(); renderBoard(); renderStore(); renderIntegration(); renderCredentials(); renderWebhook(); renderClock();
  }
  async function loadOrders() {
    var store = currentStore();
    if (!store) { ui.orders = []; renderBoard(); return; }
    var res = await api('GET', '/panel/stores/' + encodeURIComponent(store.id) + '/orders?limit=100');
    if (currentStore() && currentStore().id === store.id) { ui.orders = res.data; renderBoard(); renderHomologation(); }
  }
  async function loadDeliveries() {
    var integration = currentIntegration();
    if (!integration) { ui.deliveries = []; renderDeliveries(); return; }
    var res = await api('GET', '/panel/integrations/' + encodeURIComponent(integration.id) + '/deliveries?limit=50');
    ui.deliveries = res.data;
    renderDeliveries();
  }
  async function loadHomologation() {
    var integration = currentIntegration();
    var report = null;
    if (integration) {
      try { report = (await api('GET', '/homologation/' + encodeURIComponent(integration.id))).data; }
      catch (e) { report = null; }
    }
    ui.homologation = report;
    renderHomologation();
  }
  // An observed session changes its report as the ERP calls (tasks open and get done): while one
  // watches, the view follows it.
  setInterval(function () {
    var h = ui.homologation;
    if (h && !h.complete && Array.isArray(h.tasks) && h.tasks.length) refresh('homologation', loadHomologation);
  }, 1500);
  function reloadAll() {
    refresh('state', loadState);
    refresh('orders', loadOrders);
    refresh('deliveries', loadDeliveries);
    refresh('homologation', loadHomologation);
    refresh('operator', loadOperator);
  }

  // ---- actions ----
  // A refused action: the API's Spanish message, then each refused field with its message (a
  // validation's details), or the state that refused it (current_status); fields name the inputs to mark.
  function problemOf(e) {
    var lines = [e.message];
    var fields = [];
    if (Array.isArray(e.details)) e.details.forEach(function (d) { fields.push(d.field); lines.push(d.field + ': ' + d.message); });
    else if (e.details && typeof e.details === 'object') Object.keys(e.details).forEach(function (k) { lines.push(k + ': ' + e.details[k]); });
    return { text: lines.join('\n'), fields: fields };
  }
  // The inputs an API field names: by the input's aria-label, the field's own name or its last part (settings.ack_alert_minutes).
  var FIELD_LABELS = { reason: 'Reason', estimated_minutes: 'Estimated minutes', url: 'Webhook URL', events: 'Webhook events', overlap_hours: 'Overlap hours', seconds: 'Advance amount' };
  function markFields(node, fields) {
    if (!node) return;
    fieldsOf(node).forEach(function (f) { f.removeAttribute('aria-invalid'); });
    (fields || []).forEach(function (field) {
      var root = String(field).split('.')[0];
      var last = String(field).split('.').pop();
      fieldsOf(node).forEach(function (f) {
        var label = f.getAttribute('aria-label');
        if (label && (label === FIELD_LABELS[root] || label === last)) f.setAttribute('aria-invalid', 'true');
      });
    });
  }
  // A section's error line, kept in ui.errors so that a redraw of the section shows it still.
  function errorBox(key) {
    var problem = ui.errors[key];
    return el('div', { class: 'error', role: 'alert', 'data-error': key, text: problem ? problem.text : '' });
  }
  // Runs a section's action; a refusal is shown in the section's error line, named by its key (an
  // errorBox) or given as the node itself.
  async function act(fn, key) {
    var keyed = typeof key === 'string';
    var boxOf = function () { return keyed ? document.querySelector('[data-error="' + key + '"]') : key; };
    if (keyed) delete ui.errors[key];
    var box = boxOf();
    if (box) box.textContent = '';
    try { await fn(); } catch (e) {
      var problem = problemOf(e);
      if (keyed) ui.errors[key] = problem;
      box = boxOf();
      if (box) { box.textContent = problem.text; markFields(box.closest('section'), problem.fields); }
      return false;
    }
    return true;
  }
  // After an action: everything again when it was taken; a refused one changed nothing and keeps its marks.
  function reloadIfDone(done) { if (done) reloadAll(); }
  async function orderAction(order, method, path, body) {
    delete ui.orderErrors[order.id];
    try { await api(method, path, body); }
    catch (e) { ui.orderErrors[order.id] = problemOf(e); }
    await loadOrders();
    refresh('state', loadState);
  }
  function statusChange(order, body) {
    body.by = 'store_user';
    return orderAction(order, 'POST', '/orders/' + encodeURIComponent(order.id) + '/status', body);
  }
  function nextStage(order) {
    var i = STAGES.indexOf(order.status);
    if (i < 0 || i === STAGES.length - 1) return null;
    var next = STAGES[i + 1];
    if (next === 'out_for_delivery' && order.fulfillment_type !== 'delivery') next = 'completed';
    return next;
  }

`;

/**
 * The panel's script, served as /_emulator/panel/app.js: plain JavaScript, no build step. Every
 * stored string reaches the page through textContent (the `el` helper), never as markup. The token
 * (the admin's, or a store's: then the control API shows that store only and the panel opens on it),
 * when the emulator needs one, lives in sessionStorage and travels only in the Authorization header;
 * the live stream is read with fetch so that it can carry that header too.
 *
 * One closure over four parts: this file's (state, client, loading, actions), script-render.ts,
 * script-operator.ts (the admin's access requests and certificates) and script-live.ts.
 */
export const PANEL_SCRIPT = `'use strict';
(function () {
${PANEL_CORE}${PANEL_RENDER}${PANEL_OPERATOR}${PANEL_LIVE}})();
`;
