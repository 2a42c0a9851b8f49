/** The panel's icon, served as /_emulator/panel/favicon.svg: the page names it, so no browser asks for a missing /favicon.ico. */
export const PANEL_ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/><path d="M4 11V5l4 3 4-3v6" fill="none" stroke="#fff" stroke-width="1.6"/></svg>';

/** The panel's stylesheet, served as /_emulator/panel/app.css (the CSP allows no inline style). */
export const PANEL_STYLES = `
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f4f5f7; }
header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; background: #1d2330; color: #fff; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0 16px 0 0; }
main, #token-form { padding: 12px 16px; }
/* Ids, codes and URLs are long words: they wrap wherever needed rather than overflow their box. */
main { overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 0 0 8px; }
section { background: #fff; border: 1px solid #dde1e7; border-radius: 6px; padding: 10px; margin-bottom: 12px; }
.columns { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }
.columns section { margin: 0; }
/* Grid items shrink below their content (long ids, URLs): the text wraps instead of overflowing (issue 14). */
.columns > section, .column, .card { min-width: 0; }
input, select, textarea { max-width: 100%; }
.board { display: grid; grid-template-columns: repeat(8, minmax(150px, 1fr)); gap: 8px; overflow-x: auto; }
.column { background: #eef0f3; border-radius: 6px; padding: 6px; min-height: 80px; }
.column h3 { font-size: 13px; margin: 0 0 6px; text-transform: uppercase; color: #555; }
.card { background: #fff; border: 1px solid #d0d5dc; border-radius: 5px; padding: 6px; margin-bottom: 6px; font-size: 12px; }
.card.warn { border-color: #d98a00; box-shadow: inset 3px 0 0 #d98a00; }
.card .title { font-weight: 600; }
.card div, .card li { overflow-wrap: anywhere; }
.card ul { margin: 4px 0; padding-left: 16px; }
.card input { width: 100%; margin: 2px 0; font-size: 12px; }
.card button { font-size: 11px; margin: 2px 2px 0 0; }
.muted { color: #778; font-size: 12px; }
.error { color: #b00020; white-space: pre-wrap; }
.warning { color: #8a5a00; }
.notice { background: #fff4d6; border: 1px solid #d98a00; padding: 6px; border-radius: 4px; }
.secret { background: #e8f6ec; border: 1px solid #2e7d32; padding: 6px; border-radius: 4px; word-break: break-all; font-family: monospace; }
.live { padding: 2px 8px; border-radius: 10px; font-size: 12px; }
.live.on { background: #2e7d32; }
.live.off { background: #8a1c1c; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
td, th { border-bottom: 1px solid #eee; padding: 3px 4px; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; font-size: 11px; max-height: 300px; overflow: auto; }
label { margin-right: 8px; }
`;
