/** The panel script's second part: rendering the board and the sections (see script.ts). */
export const PANEL_RENDER = String.raw`  // ---- rendering ----
  function renderSwitchers() {
    var envs = ui.state.environments;
    fill($('env-select'), envs.map(function (e) { return el('option', { value: e.name, selected: e.name === ui.env ? 'selected' : null, text: e.name === 'test' ? 'sandbox (test)' : e.name }); }));
    var env = currentEnv();
    // A finished reference run's store is left out, unless it is the one open.
    var stores = (env ? env.stores : []).filter(function (s) { return listedStore(s) || s.id === ui.storeId; });
    fill($('store-select'), stores.map(function (s) {
      return el('option', { value: s.id, selected: s.id === ui.storeId ? 'selected' : null, text: s.name + ' (' + s.id + ')' });
    }));
    $('env-select').value = ui.env;
    if (ui.storeId) $('store-select').value = ui.storeId;
  }
  function alertText(a) {
    if (a.type === 'ack_overdue') return 'Order #' + a.number + ' not confirmed by the ERP after ' + a.minutes_waiting + ' min (alert after ' + a.ack_alert_minutes + ' min)';
    return 'Order #' + a.number + ' import failed: ' + a.code + ' ' + a.message + (a.retryable ? ' (retryable)' : '');
  }
  function renderAlerts() {
    var store = currentStore();
    var alerts = store ? store.alerts : [];
    fill($('alerts'), alerts.length ? alerts.map(function (a) { return el('li', { class: 'warning', 'data-alert': a.type, text: alertText(a) }); }) : el('li', { class: 'muted', text: 'No alerts.' }));
  }
  function alertsOf(orderId) {
    var store = currentStore();
    return (store ? store.alerts : []).filter(function (a) { return a.order_id === orderId; });
  }
  function itemText(item) {
    var opts = item.options.map(function (o) { return o.quantity + ' x ' + o.name; }).join(', ');
    return item.quantity + ' x ' + item.name + (opts ? ' (' + opts + ')' : '') + (item.product.external_id === null ? ' [no external code]' : '');
  }
  function card(order) {
    var alerts = alertsOf(order.id);
    var problem = ui.orderErrors[order.id];
    var minutes = el('input', { type: 'number', min: 1, max: 600, placeholder: 'minutes', 'aria-label': 'Estimated minutes' });
    var reason = el('input', { type: 'text', placeholder: 'reason (3 to 255 characters)', 'aria-label': 'Reason' });
    var actions = [];
    if (order.status === 'pending') {
      actions.push(el('button', { type: 'button', 'data-action': 'accept', text: 'Accept', onclick: function () {
        var body = { status: 'accepted' };
        if (minutes.value !== '') body.estimated_minutes = Number(minutes.value);
        statusChange(order, body);
      } }));
      actions.push(el('button', { type: 'button', 'data-action': 'reject', text: 'Reject', onclick: function () { statusChange(order, { status: 'rejected', reason: reason.value }); } }));
    }
    var next = nextStage(order);
    if (next) actions.push(el('button', { type: 'button', 'data-action': 'advance', text: 'Advance to ' + next, onclick: function () { statusChange(order, { status: next }); } }));
    var open = FINAL.indexOf(order.status) < 0;
    if (open) actions.push(el('button', { type: 'button', 'data-action': 'cancel', text: 'Cancel', onclick: function () { statusChange(order, { status: 'cancelled', reason: reason.value }); } }));
    // Final orders move no more (spec: States 2): nothing to mark on them.
    if (order.payment.status !== 'paid' && FINAL.indexOf(order.status) < 0) actions.push(el('button', { type: 'button', 'data-action': 'paid', text: 'Mark paid', onclick: function () {
      orderAction(order, 'PATCH', '/orders/' + encodeURIComponent(order.id), { payment_status: 'paid' });
    } }));
    var node = el('div', { class: alerts.length ? 'card warn' : 'card', 'data-order-id': order.id, 'data-status': order.status },
      el('div', { class: 'title', text: '#' + order.number + ' ' + order.fulfillment_type }),
      el('div', { class: 'muted', text: order.id }),
      el('div', { 'data-field': 'customer', text: order.customer.name + ' ' + order.customer.phone }),
      el('ul', null, order.items.map(function (item) { return el('li', { 'data-field': 'item', text: itemText(item) }); })),
      order.notes ? el('div', { 'data-field': 'notes', class: 'muted', text: 'Notes: ' + order.notes }) : null,
      el('div', { 'data-field': 'total', text: 'Total ' + order.totals.total + ' ' + order.totals.currency + ' - ' + order.payment.method_name + ' (' + order.payment.status + ')' }),
      el('div', { 'data-field': 'ack', text: 'ERP: ' + order.integration.ack_status + (order.integration.external_id ? ' ' + order.integration.external_id : '') }),
      order.status_reason ? el('div', { class: 'muted', text: 'Reason: ' + order.status_reason }) : null,
      order.estimated_minutes ? el('div', { class: 'muted', text: 'Ready in ' + order.estimated_minutes + ' min' }) : null,
      alerts.map(function (a) { return el('div', { class: 'warning', 'data-alert': a.type, text: alertText(a) }); }),
      actions.length && order.status === 'pending' ? minutes : null,
      actions.length && open ? reason : null,
      actions,
      el('div', { class: 'error', role: 'alert', 'data-field': 'error', text: problem ? problem.text : '' }));
    if (problem) markFields(node, problem.fields);
    return node;
  }
  // A live refresh keeps the node of every card whose order did not change, and puts back what was
  // typed and where the cursor was, so typing or clicking while orders arrive loses nothing.
  function cardSignature(order) {
    return JSON.stringify([order, alertsOf(order.id), ui.orderErrors[order.id] || '']);
  }
  function focusedField(board) {
    var active = document.activeElement;
    var holder = active && board.contains(active) ? active.closest('[data-order-id]') : null;
    if (!holder) return null;
    var at = { id: holder.getAttribute('data-order-id'), label: active.getAttribute('aria-label'), action: active.getAttribute('data-action'), start: null, end: null };
    try { at.start = active.selectionStart; at.end = active.selectionEnd; } catch (e) { /* number inputs have no selection */ }
    return at;
  }
  function refocus(board, at) {
    if (!at) return;
    var scope = '[data-order-id="' + CSS.escape(at.id) + '"] ';
    var node = at.label ? board.querySelector(scope + '[aria-label="' + CSS.escape(at.label) + '"]')
      : at.action ? board.querySelector(scope + '[data-action="' + CSS.escape(at.action) + '"]') : null;
    if (!node || node === document.activeElement) return;
    node.focus();
    try { if (at.start !== null) node.setSelectionRange(at.start, at.end); } catch (e) { /* not a text field */ }
  }
  function renderBoard() {
    var board = $('board');
    var kept = {};
    board.querySelectorAll('[data-order-id]').forEach(function (node) { kept[node.getAttribute('data-order-id')] = node; });
    var at = focusedField(board);
    function cardOf(order) {
      var signature = cardSignature(order);
      var old = kept[order.id];
      if (old && old.__signature === signature) return old;
      var node = card(order);
      node.__signature = signature;
      // A redrawn card gets back what was typed in its old one (the sections' editsOf and putBack).
      if (old) putBack(node, editsOf(old));
      return node;
    }
    fill(board, COLUMNS.map(function (status) {
      var orders = ui.orders.filter(function (o) { return o.status === status; }).reverse();
      return el('div', { class: 'column', 'data-column': status }, el('h3', { text: status.replace(/_/g, ' ') + ' (' + orders.length + ')' }), orders.map(cardOf));
    }));
    refocus(board, at);
  }
  function row(label, value) { return el('tr', null, el('th', { text: label }), el('td', null, value)); }
  function renderStore() {
    var store = currentStore();
    var error = errorBox('store');
    if (!store) { fill($('store'), el('p', { class: 'muted', text: 'No store in this environment.' })); return; }
    fillKeeping($('store'), [
      el('table', null,
        row('Name', store.name), row('Id', store.id), row('Slug', store.slug),
        row('Accepting orders', store.accepting_orders ? 'yes' : (store.accepting_switch ? 'no (switch on, no active product)' : 'no (paused)')),
        row('Suspended', store.suspended ? 'yes' : 'no'),
        row('Fulfillment', store.fulfillment_types.join(', ')),
        row('Payment methods', store.payment_methods.map(function (m) { return m.code; }).join(', '))),
      el('button', { type: 'button', id: 'store-switch', text: store.accepting_switch ? 'Pause orders' : 'Open for orders', onclick: function () {
        act(function () { return api('PATCH', '/stores/' + encodeURIComponent(store.id), { accepting_orders: !store.accepting_switch }); }, 'store').then(reloadIfDone);
      } }),
      el('button', { type: 'button', text: store.suspended ? 'Lift store suspension' : 'Suspend store', onclick: function () {
        act(function () { return api('PATCH', '/stores/' + encodeURIComponent(store.id), { suspended: !store.suspended }); }, 'store').then(reloadIfDone);
      } }),
      error]);
  }
  function renderIntegration() {
    var i = currentIntegration();
    if (!i) { fill($('integration'), el('p', { class: 'muted', text: 'No integration.' })); return; }
    var error = errorBox('integration');
    var selects = {};
    var rows = Object.keys(SETTINGS).map(function (key) {
      selects[key] = el('select', { 'aria-label': key }, SETTINGS[key].map(function (v) { return el('option', { value: v, selected: i.settings[key] === v ? 'selected' : null, text: v }); }));
      return row(key, selects[key]);
    });
    var alertMinutes = el('input', { type: 'number', min: 1, max: 1440, value: i.settings.ack_alert_minutes, 'aria-label': 'ack_alert_minutes' });
    rows.push(row('ack_alert_minutes', alertMinutes));
    var boxes = SCOPES.map(function (s) { return el('label', null, el('input', { type: 'checkbox', value: s, checked: i.scopes.indexOf(s) >= 0 }), s); });
    fillKeeping($('integration'), [
      el('table', null, row('Id', i.id), row('System', i.system), row('Status', i.status), rows),
      el('div', null, el('strong', { text: 'Scopes ' }), boxes),
      el('button', { type: 'button', text: 'Save settings and scopes', onclick: function () {
        var settings = {};
        Object.keys(selects).forEach(function (k) { settings[k] = selects[k].value; });
        settings.ack_alert_minutes = Number(alertMinutes.value);
        var scopes = boxes.map(function (b) { return b.querySelector('input'); }).filter(function (x) { return x.checked; }).map(function (x) { return x.value; });
        act(function () { return api('PATCH', '/integrations/' + encodeURIComponent(i.id), { settings: settings, scopes: scopes }); }, 'integration').then(reloadIfDone);
      } }),
      el('button', { type: 'button', text: i.status === 'suspended' ? 'Resume integration' : 'Suspend integration', onclick: function () {
        act(function () { return api('PATCH', '/integrations/' + encodeURIComponent(i.id), { status: i.status === 'suspended' ? 'active' : 'suspended' }); }, 'integration').then(reloadIfDone);
      } }),
      error]);
  }
  function secretBox(label) {
    if (!ui.secret || ui.secret.label !== label) return null;
    return el('div', { class: 'secret', 'data-secret': label },
      el('div', { text: 'Shown once: copy it now. ' }), el('code', { text: ui.secret.value }),
      el('button', { type: 'button', text: 'Done', onclick: function () { ui.secret = null; renderCredentials(); renderWebhook(); } }));
  }
  function renderCredentials() {
    var i = currentIntegration();
    if (!i) { fill($('credentials'), null); return; }
    var error = errorBox('credentials');
    var overlap = el('input', { type: 'number', min: 0, max: 72, value: 24, 'aria-label': 'Overlap hours' });
    fillKeeping($('credentials'), [
      el('table', null, el('tr', null, el('th', { text: 'Key id' }), el('th', { text: 'Created' }), el('th', { text: 'Expires' }), el('th', { text: '' })),
        i.credentials.map(function (c) {
          return el('tr', null, el('td', { text: c.key_id }), el('td', { text: c.created_at }),
            el('td', { text: c.revoked_at ? 'revoked ' + c.revoked_at : (c.expires_at || 'never') }),
            el('td', null, c.revoked_at ? null : el('button', { type: 'button', text: 'Revoke', onclick: function () {
              act(function () { return api('DELETE', '/integrations/' + encodeURIComponent(i.id) + '/credentials/' + encodeURIComponent(c.key_id)); }, 'credentials').then(reloadIfDone);
            } })));
        })),
      el('label', null, 'Overlap of the old credential (hours) ', overlap),
      el('button', { type: 'button', id: 'rotate', text: 'Generate new credential', onclick: function () {
        act(async function () {
          var res = await api('POST', '/integrations/' + encodeURIComponent(i.id) + '/credentials', { overlap_hours: Number(overlap.value) });
          ui.secret = { label: 'credential', value: res.data.credential };
        }, 'credentials').then(reloadIfDone);
      } }),
      secretBox('credential'), error]);
  }
  function renderWebhook() {
    var i = currentIntegration();
    if (!i) { fill($('webhook'), null); return; }
    var w = i.webhook;
    var error = errorBox('webhook');
    var url = el('input', { type: 'url', size: 40, value: w ? w.url : '', placeholder: 'https://erp.example/webhooks', 'aria-label': 'Webhook URL' });
    var events = el('input', { type: 'text', size: 40, value: w ? w.events.join(',') : '*', 'aria-label': 'Webhook events' });
    var active = el('input', { type: 'checkbox', checked: w ? w.active : true, 'aria-label': 'Webhook active' });
    fillKeeping($('webhook'), [
      w && w.paused ? el('div', { class: 'notice', 'data-notice': 'paused', text: w.notice || ('Paused: ' + (w.paused_reason || '')) }) : null,
      w ? null : el('p', { class: 'muted', text: 'No webhook configured.' }),
      el('div', null, el('label', null, 'URL ', url)),
      el('div', null, el('label', null, 'Events ', events)),
      el('div', null, el('label', null, active, ' active')),
      el('button', { type: 'button', text: w && w.paused ? 'Save and reactivate' : 'Save webhook', onclick: function () {
        act(async function () {
          var body = { url: url.value, events: events.value.split(',').map(function (s) { return s.trim(); }).filter(Boolean), active: active.checked || (w && w.paused) || false };
          var res = await api('PUT', '/integrations/' + encodeURIComponent(i.id) + '/webhook', body);
          if (res.data.signing_secret) ui.secret = { label: 'webhook', value: res.data.signing_secret };
        }, 'webhook').then(reloadIfDone);
      } }),
      secretBox('webhook'), error]);
  }
  function renderDeliveries() {
    var error = errorBox('deliveries');
    if (!ui.deliveries.length) { fill($('deliveries'), el('p', { class: 'muted', text: 'No deliveries.' })); return; }
    fill($('deliveries'), [error, el('table', null,
      el('tr', null, ['Delivery', 'Event', 'Status', 'Attempts', 'Next attempt', ''].map(function (h) { return el('th', { text: h }); })),
      ui.deliveries.map(function (d) {
        return el('tr', { 'data-delivery-id': d.id }, el('td', { text: d.id }), el('td', { text: d.event_type }), el('td', { text: d.status }),
          el('td', null, d.attempt_count + ' scheduled', el('ul', null, d.attempts.map(function (a) {
            return el('li', { text: '#' + a.number + ' ' + a.attempted_at + ' ' + (a.succeeded ? 'ok' : 'failed') + ' ' + (a.response_status || a.error || '') + ' ' + a.duration_ms + ' ms' + (a.manual ? ' (manual)' : '') });
          }))),
          el('td', { text: d.next_attempt_at || '' }),
          el('td', null, d.status === 'delivering' ? null : el('button', { type: 'button', text: 'Retry now', onclick: function () {
            act(function () { return api('POST', '/deliveries/' + encodeURIComponent(d.id) + '/retry'); }, 'deliveries').then(function () { refresh('deliveries', loadDeliveries); });
          } })));
      }))]);
  }
  function renderClock() {
    var c = ui.state.clock;
    $('clock-now').textContent = 'Emulator time ' + c.now;
    var facts = el('table', null, row('Now', c.now), row('Mode', c.mode), row('Advanced by', c.offset_seconds + ' s'));
    // A store token: the clock is the whole sandbox's, moved by its admin only (the route answers 403).
    if (ui.state.access && ui.state.access.role === 'store') {
      fill($('clock'), [facts, el('p', { class: 'muted', 'data-notice': 'clock-admin', text: "The clock is the sandbox's: its admin moves it." })]);
      return;
    }
    var error = errorBox('clock');
    var amount = el('input', { type: 'number', min: 1, value: 5, 'aria-label': 'Advance amount' });
    var unit = el('select', { 'aria-label': 'Advance unit' }, [['60', 'minutes'], ['3600', 'hours'], ['86400', 'days'], ['1', 'seconds']].map(function (u) { return el('option', { value: u[0], text: u[1] }); }));
    fillKeeping($('clock'), [
      facts,
      amount, unit,
      el('button', { type: 'button', id: 'advance-clock', text: 'Advance clock', onclick: function () {
        act(function () { return api('POST', '/clock/advance', { seconds: Math.round(Number(amount.value) * Number(unit.value)) }); }, 'clock').then(reloadIfDone);
      } }), error]);
  }
  // The person's steps of an observed session, open ones first, each beside the order it concerns
  // (its number and current status on the board) or the product it names.
  function taskTarget(t) {
    if (!t.order_id) return t.external_id ? 'product ' + t.external_id : '';
    var order = ui.orders.find(function (o) { return o.id === t.order_id; });
    return order ? '#' + order.number + ' (' + order.status.replace(/_/g, ' ') + ')' : t.order_id;
  }
  function renderTasks(tasks) {
    if (!tasks.length) return null;
    var rank = { open: 0, failed: 1, done: 2 };
    var sorted = tasks.slice().sort(function (a, b) { return (rank[a.status] || 0) - (rank[b.status] || 0); });
    return el('div', { 'data-homologation': 'tasks' }, el('h3', { text: 'Your steps (' + tasks.filter(function (t) { return t.status === 'open'; }).length + ' open)' }),
      el('table', null, sorted.map(function (t) {
        return el('tr', { 'data-task': t.id, 'data-status': t.status },
          el('td', { 'data-field': 'status', class: t.status === 'failed' ? 'error' : t.status === 'open' ? 'warning' : null, text: t.status }),
          el('td', { 'data-field': 'order', text: taskTarget(t) }),
          el('td', null, el('div', { 'data-field': 'instruction', text: t.instruction }), t.reason ? el('div', { class: 'muted', 'data-field': 'reason', text: t.reason }) : null));
      })));
  }
  function renderHomologation() {
    var h = ui.homologation;
    if (!h) { fill($('homologation'), el('p', { class: 'muted', 'data-homologation': 'none', text: 'No homologation report for this integration.' })); return; }
    var checks = Array.isArray(h.checks) ? h.checks : [];
    var summary = h.summary && typeof h.summary === 'object' ? Object.keys(h.summary).filter(function (k) { return typeof h.summary[k] !== 'object'; }).map(function (k) { return k + ': ' + h.summary[k]; }).join(', ') : '';
    fill($('homologation'), [
      summary ? el('p', { 'data-homologation': 'summary', text: summary }) : null,
      renderTasks(Array.isArray(h.tasks) ? h.tasks : []),
      checks.length ? el('table', null, checks.map(function (c) {
        return el('tr', { 'data-check': c.id || c.name || '' }, el('td', { text: c.id || c.name || '' }), el('td', { 'data-field': 'status', text: c.status || c.result || '' }), el('td', { text: c.reason || c.message || '' }));
      })) : null,
      Array.isArray(h.notes) ? el('ul', null, h.notes.map(function (n) { return el('li', { class: 'muted', text: n }); })) : null,
      el('details', null, el('summary', { text: 'Full report' }), el('pre', { text: JSON.stringify(h, null, 2) }))]);
  }

`;
