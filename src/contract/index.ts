// The API as data, written once: every other part imports from here.
export * from './amounts.js';
export * from './dates.js';
export * from './ids.js';
export * from './errors.js';
export * from './limits.js';
export * from './common.js';
export * from './store.js';
export * from './catalog.js';
export * from './endpoint.js';
export * from './endpoints.js';
export { issuesToDetails, parseOrThrow } from './validation.js';
export { seededRandom, cryptoRandom, type RandomSource } from './random.js';
export * from './orders.js';
export * from './events.js';
export * from './webhooks.js';
export * from './entregas.js';
export * from './api.js';
