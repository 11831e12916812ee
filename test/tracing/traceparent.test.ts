import { describe, expect, it } from 'vitest';
import { createCronql } from '../../src/app.js';
import { OptionsError } from '../../src/options.js';
import { TRACING_DEFAULTS, tracingRequested, tracingSettings } from '../../src/tracing/settings.js';
import { NO_PARENT, formatTraceparent, parentOf, parseTraceparent, runSpanId, traceIdOf } from '../../src/tracing/traceparent.js';

/** The pure parts of tracing: W3C `traceparent` in and out, and the `OTEL_*` settings cronql reads. */
const T = '4bf92f3577b34da6a3ce929d0e0e4736';
const S = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('reads every valid form, and ignores every invalid one (a new trace starts, as the spec asks)', () => {
    const valid: [string, ReturnType<typeof parseTraceparent>][] = [
      [`00-${T}-${S}-01`, { traceId: T, spanId: S, sampled: true }],
      [`00-${T}-${S}-00`, { traceId: T, spanId: S, sampled: false }],
      [`00-${T.toUpperCase()}-${S.toUpperCase()}-01`, { traceId: T, spanId: S, sampled: true }],
      [`  00-${T}-${S}-03 `, { traceId: T, spanId: S, sampled: true }],
      // A later version: read as 00 is, whatever follows.
      [`01-${T}-${S}-01-future`, { traceId: T, spanId: S, sampled: true }],
    ];
    for (const [value, expected] of valid) expect(parseTraceparent(value), value).toEqual(expected);
    const invalid = [
      undefined,
      null,
      '',
      'nonsense',
      `ff-${T}-${S}-01`,
      `00-${'0'.repeat(32)}-${S}-01`,
      `00-${T}-${S}-01-extra`,
      `00-${T.slice(1)}-${S}-01`,
      `00-${T}-${S.slice(1)}-01`,
      `00-${T}-${S}-1`,
      `00_${T}_${S}_01`,
      `00-${T.replace('4', 'g')}-${S}-01`,
    ];
    for (const value of invalid) expect(parseTraceparent(value), String(value)).toBeUndefined();
  });

  it('writes what it reads; a stored context with a parent of zeros names a trace but no parent', () => {
    expect(formatTraceparent({ traceId: T, spanId: S, sampled: true })).toBe(`00-${T}-${S}-01`);
    expect(formatTraceparent({ traceId: T, spanId: S, sampled: false })).toBe(`00-${T}-${S}-00`);
    const root = `00-${T}-${NO_PARENT}-01`;
    expect(traceIdOf(root)).toBe(T);
    expect(parentOf(root)).toBeUndefined();
    expect(parentOf(`00-${T}-${S}-01`)).toEqual({ traceId: T, spanId: S, sampled: true });
    expect(traceIdOf(null)).toBeNull();
    expect(traceIdOf('garbage')).toBeNull();
  });

  it("a run's span id is the last 16 hex digits of its id, never zeros", () => {
    expect(runSpanId('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('a16570867728950e');
    expect(runSpanId('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe('a16570867728950e');
    expect(runSpanId('00000000-0000-4000-0000-000000000000')).toBe('0000000000000001');
  });
});

describe('the OTEL_* settings', () => {
  it('tracing is asked for by an OTLP endpoint, unless the SDK or the exporter is turned off', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('the batch processor is sized for a burst by default; OTEL_BSP_* override it, each value checked', () => {
    expect(tracingSettings({})).toEqual(TRACING_DEFAULTS);
    expect(TRACING_DEFAULTS.maxQueueSize).toBeGreaterThanOrEqual(30_000);
    expect(tracingSettings({ OTEL_BSP_MAX_QUEUE_SIZE: '100000', OTEL_BSP_SCHEDULE_DELAY: '50' })).toMatchObject({ maxQueueSize: 100_000, scheduledDelayMillis: 50 });
    for (const name of ['OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_EXPORT_TIMEOUT']) {
      for (const bad of ['0', '-1', '1.5', 'abc', '1e3', '99999999999999999999']) {
        expect(() => tracingSettings({ [name]: bad }), `${name}=${bad}`).toThrow(new RegExp(`^${name} must be a positive integer, got "${bad.replace('.', '\\.')}"$`));
      }
    }
    expect(() => tracingSettings({ OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '200' })).toThrow(/OTEL_BSP_MAX_EXPORT_BATCH_SIZE \(200\) must not exceed OTEL_BSP_MAX_QUEUE_SIZE \(100\)/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL must be http\/protobuf/);
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf/);
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toEqual(TRACING_DEFAULTS);
  });

  it('createCronql: `tracing` must be a boolean, and a bad OTEL_BSP_* value stops it when tracing is on (only then)', () => {
    for (const bad of ['yes', 1, null]) expect(() => createCronql({ tracing: bad as never })).toThrow(OptionsError);
    process.env.OTEL_BSP_MAX_QUEUE_SIZE = 'lots';
    try {
      expect(() => createCronql({ tracing: true })).toThrow(/createCronql: tracing cannot be on: OTEL_BSP_MAX_QUEUE_SIZE must be a positive integer/);
      expect(() => createCronql({ tracing: false })).not.toThrow();
    } finally {
      delete process.env.OTEL_BSP_MAX_QUEUE_SIZE;
    }
  });
});
