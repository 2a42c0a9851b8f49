import { describe, expect, it } from 'vitest';
import { formatDate, formatNullableDate, parseDate, TIMEZONE } from '../../src/contract/dates.js';
import { datetime } from '../../src/contract/common.js';

describe('formatDate (spec: Conventions, Dates — America/Asuncion with explicit offset)', () => {
  it('uses the zone America/Asuncion', () => {
    expect(TIMEZONE).toBe('America/Asuncion');
  });

  it.each([
    ['2026-11-22T13:30:00.000Z', '2026-11-22T10:30:00.000-03:00'],
    ['2026-11-22T02:31:05.123Z', '2026-11-21T23:31:05.123-03:00'],
    ['2026-07-01T12:00:00.000Z', '2026-07-01T09:00:00.000-03:00'],
    ['2027-01-01T02:59:59.999Z', '2026-12-31T23:59:59.999-03:00'],
    ['2028-02-29T03:00:00.000Z', '2028-02-29T00:00:00.000-03:00'],
  ])('writes %s as %s', (utc, local) => {
    expect(formatDate(Date.parse(utc))).toBe(local);
  });

  it.each([
    ['2024-03-24T02:59:59.999Z', '2024-03-23T23:59:59.999-03:00'],
    ['2024-03-24T03:00:00.000Z', '2024-03-23T23:00:00.000-04:00'],
    ['2024-10-06T03:59:59.999Z', '2024-10-05T23:59:59.999-04:00'],
    ['2024-10-06T04:00:00.000Z', '2024-10-06T01:00:00.000-03:00'],
  ])('follows the zone across a transition: %s is %s', (utc, local) => {
    formatDate(Date.parse(utc) - 1800_000); // the same UTC hour, seen first, must not decide the offset
    expect(formatDate(Date.parse(utc))).toBe(local);
  });

  it('writes what parseDate reads back to the same instant', () => {
    for (const ms of [0, 1_795_354_200_000, 1_795_354_200_123, 1_830_000_000_000]) expect(parseDate(formatDate(ms))).toBe(ms);
  });

  it('always writes the offset explicitly, never Z', () => {
    expect(formatDate(Date.parse('2026-11-22T13:30:00Z'))).toMatch(/[+-]\d{2}:\d{2}$/);
  });

  it('writes null for a missing date', () => {
    expect(formatNullableDate(null)).toBeNull();
    expect(formatNullableDate(undefined)).toBeNull();
    expect(formatNullableDate(0)).toBe(formatDate(0));
  });
});

describe('parseDate', () => {
  it.each([
    ['2026-11-22T10:30:00-03:00', '2026-11-22T13:30:00.000Z'],
    ['2026-11-22T10:30-03:00', '2026-11-22T13:30:00.000Z'],
    ['2026-11-22T13:30:00Z', '2026-11-22T13:30:00.000Z'],
    ['2026-11-22T10:30:00.5+00:00', '2026-11-22T10:30:00.500Z'],
    ['2026-11-22T10:30:00.123456789-03:00', '2026-11-22T13:30:00.123Z'],
    ['2028-02-29T00:00:00-03:00', '2028-02-29T03:00:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
  ])('reads %s as %s', (text, utc) => {
    expect(new Date(parseDate(text)).toISOString()).toBe(utc);
  });

  it.each([
    ['2026-11-22T10:30:00', 'no offset'],
    ['2026-11-22 10:30:00-03:00', 'a space instead of T'],
    ['2026-11-22', 'a date without time'],
    ['2026-11-22T10:30:00-0300', 'an offset without colon'],
    ['1795354200000', 'epoch milliseconds'],
    ['22/11/2026 10:30', 'a local format'],
    ['2026-02-30T10:00:00Z', 'February 30'],
    ['2026-02-29T10:00:00Z', 'February 29 of a common year'],
    ['1900-02-29T10:00:00Z', 'February 29 of a century year'],
    ['2026-04-31T00:00:00Z', 'April 31'],
    ['2026-13-01T00:00:00Z', 'month 13'],
    ['2026-00-10T00:00:00Z', 'month 0'],
    ['2026-11-00T00:00:00Z', 'day 0'],
    ['2026-11-22T24:00:00Z', 'hour 24'],
    ['2026-11-22T23:60:00Z', 'minute 60'],
    ['2026-11-22T23:59:60Z', 'second 60'],
    ['2026-11-22T10:00:00+24:00', 'offset hour 24'],
    ['2026-11-22T10:00:00-03:60', 'offset minute 60'],
    ['', 'empty text'],
  ])('rejects %j (%s)', (text) => {
    expect(parseDate(text)).toBeNaN();
    expect(datetime.safeParse(text).success).toBe(false);
  });
});
