import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyState, readCursorFile, remember, writeCursorFile } from '../../src/cli/commands/feed/cursor-file.js';
import { backoffMs } from '../../src/cli/commands/feed/deliver.js';
import { drainFeed, type FeedPage } from '../../src/cli/commands/feed/drain.js';
import { eventJson, isOwnChange } from '../../src/cli/commands/feed/events.js';
import { parseTypes } from '../../src/cli/commands/feed/tail.js';
import { MAX_EVENT_DEPTH, nestedDeeperThan } from '../../src/cli/commands/listen/depth.js';
import { parseEvent } from '../../src/cli/commands/listen/receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'mk-feed-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nestedDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":{}}', 1, true],
    ['[[[]]]', 3, false],
    ['[[[[]]]]', 3, true],
    ['{"a":"[[[[[[["}', 1, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['{"a":"\\\\"}', 1, false],
    ['[1,[2],[3]]', 2, false],
    ['not json at all [', 0, true],
  ])('%s deeper than %i → %s', (text, max, expected) => {
    expect(nestedDeeperThan(text, max)).toBe(expected);
  });

  it('walks 100,000 levels without the stack', () => {
    expect(nestedDeeperThan('['.repeat(100_000) + ']'.repeat(100_000), MAX_EVENT_DEPTH)).toBe(true);
  });
});

describe('parseEvent (listener)', () => {
  it.each([
    ['{"id":"evt_1"}', { event: { id: 'evt_1' } }],
    ['[1]', { reason: 'invalid_json' }],
    ['null', { reason: 'invalid_json' }],
    ['{', { reason: 'invalid_json' }],
    [`{"d":${'['.repeat(5000)}${']'.repeat(5000)}}`, { reason: 'too_deeply_nested' }],
  ])('%s', (text, expected) => {
    expect(parseEvent(Buffer.from(text.slice(0, 200_000)))).toEqual(expected);
  });
});

describe('isOwnChange', () => {
  const ev = (by: string | null | undefined, integration_id = 'int_A') => ({ integration_id, data: by === undefined ? {} : { changed_by: { type: 'integration', integration_id: by } } });
  it.each([
    [ev('int_A'), 'int_A', true],
    [ev('int_B'), 'int_A', false],
    [ev(null), 'int_A', false],
    [ev(undefined), 'int_A', false],
    [ev('int_A'), null, true],
    [ev('int_A', 'int_B'), null, false],
  ])('%j with own id %s → %s', (event, own, expected) => {
    expect(isOwnChange(event, own)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it.each([
    [1, 30_000, 1000],
    [2, 30_000, 2000],
    [5, 30_000, 16_000],
    [6, 30_000, 30_000],
    [3, 1500, 1500],
    [1000, 30_000, 30_000],
  ])('retry %i capped at %i → %i', (n, max, expected) => {
    expect(backoffMs(n, max)).toBe(expected);
  });
});

describe('eventJson', () => {
  it('is the JSON text of a normal event and null for one nested past the limit', () => {
    expect(eventJson({ id: 'evt_1', data: { a: [1] } })).toBe('{"id":"evt_1","data":{"a":[1]}}');
    let deep: unknown = 1;
    for (let i = 0; i < MAX_EVENT_DEPTH + 1; i++) deep = [deep];
    expect(eventJson({ id: 'evt_2', data: deep })).toBeNull();
  });
});

describe('parseTypes', () => {
  it('accepts the spec types and refuses others with exit 2', () => {
    expect(parseTypes(undefined)).toBeUndefined();
    expect(parseTypes('order.created, webhook.test')).toEqual(['order.created', 'webhook.test']);
    expect(() => parseTypes('order.nope')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => parseTypes(',')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('cursor file', () => {
  it('round-trips the state and leaves no temporary file behind', () => {
    const file = join(dir, 'sub', 'a.cursor');
    const state = { ...emptyState(), integration_id: 'int_X', cursor: 'c1', page_done: ['evt_1'] };
    writeCursorFile(file, state);
    expect(readCursorFile(file)).toEqual(state);
    expect(readdirSync(join(dir, 'sub'))).toEqual(['a.cursor']);
  });

  it('reads a missing file as a fresh state and refuses a foreign one with exit 1', () => {
    expect(readCursorFile(join(dir, 'none.cursor'))).toMatchObject({ cursor: null, page_done: [], seen: [] });
    const foreign = join(dir, 'foreign.cursor');
    writeFileSync(foreign, '{"version":2}');
    expect(() => readCursorFile(foreign)).toThrow(expect.objectContaining({ exitCode: 1 }));
    expect(readFileSync(foreign, 'utf8')).toBe('{"version":2}');
  });

  it('keeps the previous file when a write fails', () => {
    const file = join(dir, 'keep.cursor');
    writeCursorFile(file, { ...emptyState(), cursor: 'old' });
    const bad = { ...emptyState(), cursor: 'new', seen: [1n as unknown as string] }; // BigInt cannot be serialized
    expect(() => writeCursorFile(file, bad)).toThrow(/Cannot write the cursor file/);
    expect(readCursorFile(file).cursor).toBe('old');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('remember keeps only the newest ids', () => {
    const list: string[] = [];
    for (let i = 0; i < 7; i++) remember(list, `evt_${i}`, 5);
    expect(list).toEqual(['evt_2', 'evt_3', 'evt_4', 'evt_5', 'evt_6']);
  });
});

describe('drainFeed', () => {
  const ev = (id: string) => ({ id, type: 'webhook.test' as const, api_version: '1.0' as const, created_at: `t-${id}`, store_id: 'sto_1', integration_id: 'int_1', data: {} });
  const pages: Record<string, FeedPage> = {
    start: { data: [ev('e1'), ev('e2')], next_cursor: 'c2', has_more: true, cursor_expired: false },
    c2: { data: [ev('e3'), ev('e4')], next_cursor: 'c4', has_more: false, cursor_expired: false },
    c4: { data: [], next_cursor: 'c4', has_more: false, cursor_expired: false },
  };
  const page = async (after: string | null) => pages[after ?? 'start'];

  it('reads pages while has_more, saving the cursor after each page', async () => {
    const state = emptyState();
    const handled: string[] = [];
    const saves: (string | null)[] = [];
    const done = await drainFeed({
      page, state, save: () => saves.push(state.cursor), savePerEvent: false, signal: new AbortController().signal,
      handle: async (e) => void handled.push(e.id), onExpired: async () => {},
    });
    expect(done).toBe(true);
    expect(handled).toEqual(['e1', 'e2', 'e3', 'e4']);
    expect(saves).toEqual(['c2', 'c4']);
    expect(state).toMatchObject({ cursor: 'c4', page_done: [], last_event_at: 't-e4' });
  });

  it('stopped in the middle of a page, resumes at the next unhandled event of that page', async () => {
    const state = emptyState();
    const controller = new AbortController();
    const handled: string[] = [];
    const handle = async (e: { id: string }) => {
      handled.push(e.id);
      if (e.id === 'e3') controller.abort();
    };
    await drainFeed({ page, state, save: () => {}, savePerEvent: true, signal: controller.signal, handle, onExpired: async () => {} });
    expect(state).toMatchObject({ cursor: 'c2', page_done: ['e3'] });
    await drainFeed({ page, state, save: () => {}, savePerEvent: true, signal: new AbortController().signal, handle, onExpired: async () => {} });
    expect(handled).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('does not loop on a page that says has_more without moving on', async () => {
    const state = { ...emptyState(), cursor: 'stuck' };
    let calls = 0;
    const stuck = async (): Promise<FeedPage> => (calls++, { data: [], next_cursor: 'stuck', has_more: true, cursor_expired: false });
    expect(await drainFeed({ page: stuck, state, save: () => {}, savePerEvent: false, signal: new AbortController().signal, handle: async () => {}, onExpired: async () => {} })).toBe(true);
    expect(calls).toBe(1);
  });

  it('on cursor_expired reconciles from the last event time, then reads on from the oldest event', async () => {
    const state = { ...emptyState(), cursor: 'gone', last_event_at: 't-last' };
    const since: string[] = [];
    const expired = async (after: string | null): Promise<FeedPage> =>
      after === 'gone' ? { data: [ev('e9')], next_cursor: 'c9', has_more: false, cursor_expired: true } : pages.c4;
    await drainFeed({
      page: expired, state, save: () => {}, savePerEvent: false, signal: new AbortController().signal,
      handle: async () => {}, onExpired: async (s) => void since.push(s),
    });
    expect(since).toEqual(['t-last']);
    expect(state).toMatchObject({ cursor: 'c9', last_event_at: 't-e9' });
  });
});
