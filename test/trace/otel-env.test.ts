import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_NAME, traceSettingsOf } from '../../src/trace/otel-env.js';

describe('a run traces only when its environment names an OTLP endpoint for traces', () => {
  it('traces nothing without an endpoint, or with an empty one', () => {
    expect(traceSettingsOf({})).toBeUndefined();
    expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('traces with the general endpoint or the traces-specific one, as service `ralph` by default', () => {
    expect(traceSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual({
      serviceName: DEFAULT_SERVICE_NAME,
    });
    expect(
      traceSettingsOf({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
        OTEL_SERVICE_NAME: 'nightly',
      }),
    ).toEqual({ serviceName: 'nightly' });
  });

  it('honours OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none over any endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(traceSettingsOf({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(traceSettingsOf({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(traceSettingsOf({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toEqual({ serviceName: 'ralph' });
  });
});
