/** node-postgres's own value conversion (what it sends for a parameter), used by described.ts. */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
