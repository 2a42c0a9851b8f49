/**
 * The panel script's operator part (DESIGN: The operator's public test environment): the access
 * requests to approve or deny and the certificates to revoke, shown to the admin token only (a store
 * token never sees another integrator's request). See script.ts.
 */
export const PANEL_OPERATOR = String.raw`  // ---- the operator: access requests and certificates ----
  ui.operator = { requests: [], certificates: [] };
  function isOperator() { return !!(ui.state && ui.state.access && ui.state.access.role === 'admin'); }
  async function loadOperator() {
    if (!isOperator()) { $('operator-section').hidden = true; return; }
    var requests = (await api('GET', '/access-requests?limit=100')).data;
    var certificates = (await api('GET', '/certificates?limit=100')).data;
    ui.operator = { requests: requests, certificates: certificates };
    renderOperator();
  }
  // An approval makes a store: after an action everything is read again, the stores' list included.
  function operatorAction(method, path, body) {
    return act(function () { return api(method, path, body); }, 'operator').then(reloadIfDone);
  }
  function requestRow(r) {
    var reason = el('input', { type: 'text', placeholder: 'reason the integrator reads (3 to 500 characters)', 'aria-label': 'Deny reason ' + r.id });
    var actions = r.status !== 'pending' ? null : el('div', { class: 'actions' },
      el('button', { type: 'button', 'data-action': 'approve', text: 'Approve', onclick: function () { operatorAction('POST', '/access-requests/' + encodeURIComponent(r.id) + '/approve'); } }),
      reason,
      el('button', { type: 'button', 'data-action': 'deny', text: 'Deny', onclick: function () { operatorAction('POST', '/access-requests/' + encodeURIComponent(r.id) + '/deny', { reason: reason.value }); } }));
    return el('tr', { 'data-request-id': r.id, 'data-status': r.status },
      el('td', null, el('code', { text: r.id })),
      el('td', { text: r.status }),
      el('td', { text: r.company }),
      el('td', { text: r.contact_email }),
      el('td', { text: r.system }),
      el('td', { text: r.store_id || (r.reason ? 'denied: ' + r.reason : '') }),
      el('td', { text: r.created_at }),
      el('td', null, actions));
  }
  function certificateRow(c) {
    return el('tr', { 'data-certificate-id': c.id, 'data-revoked': c.revoked_at ? 'true' : 'false' },
      el('td', null, el('code', { text: c.id })),
      el('td', { text: c.integration_id }),
      el('td', { text: c.system }),
      el('td', { text: c.environment }),
      el('td', { text: c.issued_at }),
      el('td', { text: c.revoked_at || '' }),
      el('td', null, c.revoked_at ? null : el('button', { type: 'button', 'data-action': 'revoke', text: 'Revoke', onclick: function () {
        operatorAction('POST', '/certificates/' + encodeURIComponent(c.id) + '/revoke');
      } })));
  }
  function renderOperator() {
    $('operator-section').hidden = false;
    var requests = ui.operator.requests, certificates = ui.operator.certificates;
    var pending = requests.filter(function (r) { return r.status === 'pending'; }).length;
    fillKeeping($('operator'), [
      errorBox('operator'),
      el('h3', { text: 'Access requests (' + pending + ' pending)' }),
      requests.length ? el('table', { id: 'access-requests' },
        el('thead', null, el('tr', null, ['Request', 'Status', 'Company', 'Contact', 'System', 'Store', 'Created', ''].map(function (h) { return el('th', { text: h }); }))),
        el('tbody', null, requests.map(requestRow))) : el('p', { class: 'muted', text: 'No access requests.' }),
      el('h3', { text: 'Certificates' }),
      el('p', { class: 'muted' }, 'Public keys: ', el('a', { href: ADMIN + '/certificates/keys', text: ADMIN + '/certificates/keys' }), ' · revocations: ', el('a', { href: ADMIN + '/certificates/revoked', text: ADMIN + '/certificates/revoked' })),
      el('button', { type: 'button', 'data-action': 'rotate-key', text: 'Rotate signing key', onclick: function () { operatorAction('POST', '/certificates/rotate-key'); } }),
      certificates.length ? el('table', { id: 'certificates' },
        el('thead', null, el('tr', null, ['Certificate', 'Integration', 'System', 'Env', 'Issued', 'Revoked', ''].map(function (h) { return el('th', { text: h }); }))),
        el('tbody', null, certificates.map(certificateRow))) : el('p', { class: 'muted', text: 'No certificates issued yet.' }),
    ]);
  }
  // New requests are not pushed on the live stream: while the section shows, it is read again every few seconds.
  setInterval(function () { if (isOperator() && !document.hidden) refresh('operator', loadOperator); }, 5000);
`;
