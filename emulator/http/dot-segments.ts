// docs/catalog.md, Decisions — `.` and `..` segments of a request path are removed before routing, as
// the WHATWG URL parser (fetch, browsers, undici's fetch) removes them before sending: whatever the
// client, `PUT /v1/catalog/products/..` is `PUT /v1/catalog/` (404), never a product coded "..".

/** A segment the URL parser reads as `.` (`%2e` in any letter case). */
const SINGLE = /^(?:\.|%2e)$/i;
/** A segment the URL parser reads as `..` (`.%2E`, `%2e.`, `%2E%2e`…). */
const DOUBLE = /^(?:\.|%2e)(?:\.|%2e)$/i;
/** A quick test: only a path with `/.` or `/%2e` somewhere can hold a dot segment. */
const MAYBE = /\/(?:\.|%2e)/i;

/**
 * The request target with the dot segments of its path removed, the query kept as sent. The
 * algorithm is the URL Standard's path state: `..` drops the previous segment (never above the
 * root), `.` drops itself, and either one at the end leaves a trailing slash.
 *
 * @example
 * removeDotSegments('/v1/catalog/products/%2E%2e?x=1'); // '/v1/catalog/?x=1'
 */
export function removeDotSegments(target: string): string {
  // The path is the start of the target: a target without the pattern has no dot segment (every request pays this test).
  if (!MAYBE.test(target)) return target;
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (!path.startsWith('/') || !MAYBE.test(path)) return target;
  const input = path.slice(1).split('/');
  const out: string[] = [];
  input.forEach((segment, i) => {
    const last = i === input.length - 1;
    if (DOUBLE.test(segment)) {
      out.pop();
      if (last) out.push('');
    } else if (SINGLE.test(segment)) {
      if (last) out.push('');
    } else out.push(segment);
  });
  return `/${out.join('/')}${q === -1 ? '' : target.slice(q)}`;
}
