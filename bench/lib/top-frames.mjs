// The top frames of a V8 CPU profile (`node --cpu-prof`, the benches' --profile) by self time.
//
//   node bench/lib/top-frames.mjs <file.cpuprofile> [--top 5] [--idle] [--json]
//
// Self time of a frame = its samples × the sampling interval; frames of the same function (name,
// file, line) are summed, so a function reached by several paths counts once. `(idle)` (the server
// waiting) is left out, and percentages are of the busy samples; --idle keeps it.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

/** Self time per function, largest first: [{ frame, self_ms, percent }]. */
export function topFrames(profile, top = 5, { idle = false } = {}) {
  const selfSamples = new Map();
  for (const id of profile.samples ?? []) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  const span = profile.endTime - profile.startTime; // µs
  const perSample = profile.samples?.length ? span / profile.samples.length : 0;
  const byFrame = new Map();
  let total = 0;
  for (const node of profile.nodes ?? []) {
    const count = selfSamples.get(node.id);
    if (!count || (!idle && node.callFrame.functionName === '(idle)')) continue;
    const key = frameName(node.callFrame);
    byFrame.set(key, (byFrame.get(key) ?? 0) + count);
    total += count;
  }
  return [...byFrame]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, count]) => ({ frame, self_ms: Math.round((count * perSample) / 100) / 10, percent: Math.round((count / total) * 1000) / 10 }));
}

/** `name file:line` (1-based line), or the bare name of a V8 pseudo-frame such as `(garbage collector)`. */
export function frameName({ functionName, url, lineNumber }) {
  const name = functionName || '(anonymous)';
  if (!url) return name;
  return `${name} ${basename(url)}:${lineNumber + 1}`;
}

if (import.meta.filename === process.argv[1]) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '5' }, idle: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } } });
  if (positionals.length !== 1) {
    console.error('usage: node bench/lib/top-frames.mjs <file.cpuprofile> [--top 5] [--idle] [--json]');
    process.exit(2);
  }
  const frames = topFrames(JSON.parse(readFileSync(positionals[0], 'utf8')), Number(values.top), { idle: values.idle });
  if (values.json) console.log(JSON.stringify(frames, null, 2));
  else for (const f of frames) console.log(`${String(f.percent).padStart(5)} %  ${String(f.self_ms).padStart(9)} ms  ${f.frame}`);
}
