// The undici of the CLI's build (tsup.config.ts puts this file in place of `undici`): the parts
// merchant-kit calls, without the rest of undici's index, which builds fetch, WebSocket, cookies,
// caches and mocks as it loads and, through the fetch globals they touch, Node's own copy of undici
// too: about 60 ms of CPU at every start of a command that makes a call (bench/cli-start.mjs).
// `request` is the index's own wrapper; `fetch` (the emulator's image downloads) loads on first use.
// ESM with named exports, so that `await import('undici')` finds them too. The library entries
// import undici itself. The client's own calls do not come here: in the CLI's build its pool is
// src/client/pool-node-http.ts (tsup.config.ts, `cliPool`), so only the commands that use undici
// themselves (proxy, replay, `emulator logs --follow`, `certificate verify`, the homologation probes,
// the emulator's image downloads) or a client given their dispatcher load this file.
import { setFlagsFromString } from 'node:v8';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import buildConnector from 'undici/lib/core/connect.js';
import util from 'undici/lib/core/util.js';
import errors from 'undici/lib/core/errors.js';
import dispatcherGlobal from 'undici/lib/global.js';

Object.assign(Dispatcher.prototype, api);

// undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles it at once with its baseline
// compiler (Liftoff), then again with its optimizing one (TurboFan) on background threads, and Node
// waits for those threads before the process exits: ~110 ms of CPU and ~0.4 s of wall time after
// a one-request command has printed its answer (bench/cli-start.mjs: `me` 305 → ~190 ms of CPU,
// when `me` still went through undici).
// The baseline code parses a command's few responses as fast as anyone could tell. Set before
// undici's first connection, which is when it compiles llhttp; it touches no other code (the CLI
// runs no other WebAssembly). V8 flags exist or not per Node version: this one has been in V8 since
// 2019 and is in Node 20 to 24; an unknown one would print an error line.
setFlagsFromString('--liftoff-only');

// As undici's index.js writes it (undici 7).
function makeDispatcher(fn) {
  return (url, opts, handler) => {
    if (typeof opts === 'function') {
      handler = opts;
      opts = null;
    }
    if (!url || (typeof url !== 'string' && typeof url !== 'object' && !(url instanceof URL))) {
      throw new errors.InvalidArgumentError('invalid url');
    }
    if (opts != null && typeof opts !== 'object') {
      throw new errors.InvalidArgumentError('invalid opts');
    }
    if (opts && opts.path != null) {
      if (typeof opts.path !== 'string') {
        throw new errors.InvalidArgumentError('invalid opts.path');
      }
      let path = opts.path;
      if (!opts.path.startsWith('/')) {
        path = `/${path}`;
      }
      url = new URL(util.parseOrigin(url).origin + path);
    } else {
      if (!opts) {
        opts = typeof url === 'object' ? url : {};
      }
      url = util.parseURL(url);
    }
    const { agent, dispatcher = dispatcherGlobal.getGlobalDispatcher() } = opts;
    if (agent) {
      throw new errors.InvalidArgumentError('unsupported opts.agent. Did you mean opts.client?');
    }
    return fn.call(dispatcher, {
      ...opts,
      origin: url.origin,
      path: url.search ? `${url.pathname}${url.search}` : url.pathname,
      method: opts.method || (opts.body ? 'PUT' : 'GET'),
    }, handler);
  };
}

export const request = makeDispatcher(api.request);
export const fetch = async (init, options) => (await import('undici/lib/web/fetch/index.js')).default.fetch(init, options);
export { Agent, Dispatcher, buildConnector };
