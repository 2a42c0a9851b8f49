/** The panel script's last part: live updates, the page's own controls and start-up (see script.ts). */
export const PANEL_LIVE = String.raw`  // ---- live updates: Server-Sent Events read through fetch (the token stays in a header) ----
  function onChange(change) {
    var store = currentStore();
    var mine = change.store_id === null || (store && change.store_id === store.id);
    if (!mine) { if (change.kinds.indexOf('state') >= 0) refresh('state', loadState); return; }
    if (change.kinds.indexOf('orders') >= 0) { refresh('orders', loadOrders); refresh('state', loadState); refresh('homologation', loadHomologation); }
    if (change.kinds.indexOf('state') >= 0) { refresh('state', loadState); if (change.store_id === null) refresh('orders', loadOrders); }
    if (change.kinds.indexOf('deliveries') >= 0) refresh('deliveries', loadDeliveries);
  }
  function setLive(on) {
    $('live').className = on ? 'live on' : 'live off';
    $('live').textContent = on ? 'live' : 'offline';
  }
  var listening = false;
  async function listen() {
    if (listening) return;
    listening = true;
    for (;;) {
      try {
        var res = await fetch(ADMIN + '/panel/events', { headers: headers(), cache: 'no-store' });
        if (res.status === 401) { listening = false; askToken('The token was refused.'); return; }
        if (!res.ok || !res.body) throw new Error('stream refused');
        var reader = res.body.getReader();
        var decoder = new TextDecoder();
        var buffer = '';
        setLive(true);
        for (;;) {
          var chunk = await reader.read();
          if (chunk.done) break;
          buffer += decoder.decode(chunk.value, { stream: true });
          var end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            var message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            var type = 'message', data = '';
            message.split('\n').forEach(function (line) {
              if (line.indexOf('event:') === 0) type = line.slice(6).trim();
              else if (line.indexOf('data:') === 0) data += line.slice(5).trim();
            });
            if (type === 'change') { try { onChange(JSON.parse(data)); } catch (e) { /* ignore a bad message */ } }
            if (type === 'hello') reloadAll();
          }
        }
      } catch (e) { /* reconnect below */ }
      setLive(false);
      await new Promise(function (r) { setTimeout(r, 1000); });
    }
  }

  // Another environment or store: nothing of the previous one stays on screen.
  function switchTo(env, storeId) {
    ui.env = env;
    ui.storeId = storeId;
    ui.orders = [];
    ui.secret = null;
    ui.errors = {};
    loadState().then(reloadAll);
  }
  $('env-select').addEventListener('change', function () { switchTo($('env-select').value, null); });
  $('store-select').addEventListener('change', function () { switchTo(ui.env, $('store-select').value); });
  $('simulate').addEventListener('click', function () {
    var store = currentStore();
    if (!store) return;
    act(function () { return api('POST', '/orders', { store_id: store.id, scenario: $('scenario').value }); }, 'orders');
  });

  async function start() {
    try { await loadState(); } catch (e) { if (e.status !== 401) { $('token-form').hidden = true; document.body.appendChild(el('p', { class: 'error', text: e.message })); } return; }
    reloadAll();
    listen();
  }
  start();
`;
