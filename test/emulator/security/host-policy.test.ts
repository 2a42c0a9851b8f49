import { describe, expect, it } from 'vitest';
import { createHostPolicy, hostOnly } from '../../../emulator/http/host-check.js';

describe('hostOnly', () => {
  it.each([
    ['localhost:4010', 'localhost'],
    ['LOCALHOST', 'localhost'],
    ['[::1]:4010', '[::1]'],
    ['::1', '[::1]'],
    ['127.0.0.1', '127.0.0.1'],
    [' emulator:4010 ', 'emulator'],
  ])('reads %s as %s', (value, expected) => expect(hostOnly(value)).toBe(expected));
});

describe('createHostPolicy', () => {
  const TABLE: [bound: string, allowed: string[], host: string | undefined, served: boolean][] = [
    ['127.0.0.1', [], 'localhost:4010', true],
    ['127.0.0.1', [], '127.0.0.1:1', true],
    ['127.0.0.1', [], '[::1]:4010', true],
    ['127.0.0.1', [], 'evil.example', false],
    ['127.0.0.1', [], '127.0.0.1.nip.io', false],
    ['127.0.0.1', [], undefined, false],
    ['127.0.0.1', ['emulator.test'], 'emulator.test:80', true],
    ['127.0.0.2', [], '127.0.0.2:4010', true],
    ['::1', [], '[::1]', true],
    ['0.0.0.0', [], 'emulator:4010', true],
    ['0.0.0.0', [], 'anything.example', true],
    ['::', [], 'anything.example', true],
    ['192.168.1.20', [], 'my-laptop.local', true],
    ['0.0.0.0', ['emulator'], 'emulator:4010', true],
    ['0.0.0.0', ['emulator'], '0.0.0.0:4010', true],
    ['0.0.0.0', ['emulator'], 'localhost', true],
    ['0.0.0.0', ['emulator'], 'evil.example', false],
  ];
  it.each(TABLE)('bound to %s with --allowed-host %j serves Host %s: %s', (bound, allowed, host, served) => {
    expect(createHostPolicy(bound, allowed).hostAllowed(host)).toBe(served);
  });

  const ORIGINS: [origin: string, host: string | undefined, allowed: boolean][] = [
    ['http://127.0.0.1:4010', '127.0.0.1:4010', true],
    ['http://localhost:3000', '127.0.0.1:4010', true],
    ['http://emulator:4010', 'emulator:4010', true],
    ['https://evil.example', '127.0.0.1:4010', false],
    ['null', '127.0.0.1:4010', false],
    ['http://127.0.0.1.nip.io:4010', '127.0.0.1:4010', false],
  ];
  it.each(ORIGINS)('on loopback, Origin %s with Host %s is the emulator’s own: %s', (origin, host, allowed) => {
    expect(createHostPolicy('127.0.0.1').originAllowed(origin, host)).toBe(allowed);
  });
});
