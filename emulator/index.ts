// Public entry `merchant-kit/emulator`: start an emulator in-process, or build its app for `inject`.
export { startEmulator, readyLine } from './server.js';
export type { RunningEmulator, ReadyInfo } from './server.js';
export { buildEmulator } from './app.js';
export type { EmulatorOptions } from './emulator.js';
