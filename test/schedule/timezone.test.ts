import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import { canonicalTimezone } from '../../src/schedule/index.js';
import { thrownBy } from '../support/thrown.js';

describe('canonicalTimezone', () => {
  it.each([
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['America/New_York', 'America/New_York'],
    ['america/new_york', 'America/New_York'],
    ['EUROPE/BERLIN', 'Europe/Berlin'],
    ['Australia/Lord_Howe', 'Australia/Lord_Howe'],
    ['Etc/GMT+2', 'Etc/GMT+2'],
  ])('%s → %s', (name, canonical) => {
    expect(canonicalTimezone(name)).toBe(canonical);
  });

  // Links resolve as this runtime's ICU resolves them (Node 20: Etc/UTC → UTC); what matters is
  // that they are accepted and name the same zone.
  it.each([
    ['Etc/UTC', ['UTC', 'Etc/UTC']],
    ['etc/utc', ['UTC', 'Etc/UTC']],
    ['US/Eastern', ['America/New_York', 'US/Eastern']],
  ])('link %s is accepted', (name, allowed) => {
    expect(allowed).toContain(canonicalTimezone(name));
  });

  it.each([
    '',
    ' ',
    ' UTC',
    'Local',
    'local',
    '+02:00',
    '-0500',
    'UTC+2',
    'GMT+02:00',
    'Z',
    'Mars/Olympus_Mons',
    'America/New York',
    '../etc/passwd',
  ])('%j is rejected with INVALID_TIMEZONE', (name) => {
    const error = thrownBy(() => canonicalTimezone(name));
    expect(error).toBeInstanceOf(CronqlError);
    expect((error as CronqlError).code).toBe('INVALID_TIMEZONE');
    expect((error as CronqlError).message).toContain(`"${name}"`);
  });
});


describe('canonical names keep what the user meant', () => {
  it.each([
    ['asia/kolkata', 'asia/kolkata'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['Europe/Kyiv', 'Europe/Kyiv'],
    ['europe/berlin', 'Europe/Berlin'],
    ['etc/utc', 'UTC'],
  ])('%s → %s (a renamed alias is not imposed)', (name, expected) => {
    expect(canonicalTimezone(name)).toBe(expected);
  });
});
