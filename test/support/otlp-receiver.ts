import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP receiver decodes it from the JSON the exporter POSTs to /v1/traces. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a trace's root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  /** Attribute values decoded from OTLP's AnyValue: strings, numbers, booleans, arrays of them. */
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  events: string[];
  /** The resource's attributes (service.name, ...). */
  resource: Record<string, unknown>;
  startNs: bigint;
  endNs: bigint;
}

/** A loopback OTLP/HTTP trace receiver. */
export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** How many requests arrived, whatever their path or body. */
  requests(): number;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

/** An OTLP AnyValue as a plain value (int64s arrive as strings or numbers: numbers here). */
function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}

const attributesOf = (list: KeyValue[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));

/** The spans of one ExportTraceServiceRequest in OTLP's JSON encoding. */
function spansOf(body: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  const request = body as {
    resourceSpans?: {
      resource?: { attributes?: KeyValue[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: KeyValue[];
          status?: { code?: number; message?: string };
          events?: { name: string }[];
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
        }[];
      }[];
    }[];
  };
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          statusCode: span.status?.code ?? 0,
          statusMessage: span.status?.message ?? '',
          events: (span.events ?? []).map((event) => event.name),
          resource,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
        });
  }
  return out;
}

const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
    });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });

/**
 * Starts a receiver on 127.0.0.1 (a free port) that decodes what the OTLP/HTTP exporter POSTs to /v1/traces, JSON
 * encoded. With `refuseWith`, it answers every request with that HTTP status instead and keeps nothing; with
 * `neverAnswer`, it reads every request and never answers (until closed).
 */
export async function startOtlpReceiver(
  options: { refuseWith?: number; neverAnswer?: boolean } = {},
): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    requests += 1;
    void bodyOf(request).then((text) => {
      if (options.neverAnswer === true) return;
      if (options.refuseWith !== undefined) {
        response.writeHead(options.refuseWith).end();
        return;
      }
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      received.push(...spansOf(JSON.parse(text)));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
