/**
 * The panel's HTML: a fixed skeleton without any stored data (the script fills it from the control
 * API), so nothing a merchant or customer typed is ever part of the markup.
 */
export function panelPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>merchant-kit panel</title>
<link rel="icon" href="/_emulator/panel/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/_emulator/panel/app.css">
<script src="/_emulator/panel/app.js" defer></script>
</head>
<body>
<header>
  <h1>merchant-kit panel</h1>
  <label>Environment <select id="env-select" aria-label="Environment"></select></label>
  <label>Store <select id="store-select" aria-label="Store"></select></label>
  <span id="live" class="live off" title="Live updates (Server-Sent Events)">offline</span>
  <span id="clock-now" class="muted"></span>
</header>
<form id="token-form" hidden>
  <p>This emulator asks for a token: its admin token, or your store's token (mks_…), which opens your store only. It is kept in this tab only and sent as a Bearer header.</p>
  <input id="token-input" type="password" autocomplete="off" aria-label="Token">
  <button type="submit">Unlock</button>
  <p id="token-error" class="error" role="alert"></p>
</form>
<main id="app" hidden>
  <section id="alerts-section"><h2>Alerts</h2><ul id="alerts"></ul></section>
  <section id="orders-section">
    <h2>Orders</h2>
    <div class="toolbar">
      <label>Scenario <select id="scenario">
        <option value="delivery">delivery</option>
        <option value="pickup_invoice">pickup_invoice</option>
        <option value="unmapped_product">unmapped_product</option>
      </select></label>
      <button id="simulate" type="button">Simulate order</button>
      <span id="orders-error" class="error" role="alert" data-error="orders"></span>
    </div>
    <div id="board" class="board"></div>
  </section>
  <div class="columns">
    <section id="store-section"><h2>Store</h2><div id="store"></div></section>
    <section id="integration-section"><h2>Integration</h2><div id="integration"></div></section>
    <section id="credentials-section"><h2>Credentials</h2><div id="credentials"></div></section>
    <section id="webhook-section"><h2>Webhook</h2><div id="webhook"></div></section>
    <section id="clock-section"><h2>Clock</h2><div id="clock"></div></section>
    <section id="homologation-section"><h2>Homologation</h2><div id="homologation"></div></section>
  </div>
  <section id="deliveries-section"><h2>Webhook deliveries</h2><div id="deliveries"></div></section>
  <section id="operator-section" hidden><h2>Operator: access requests and certificates</h2><div id="operator"></div></section>
</main>
</body>
</html>
`;
}
