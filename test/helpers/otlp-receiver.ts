/**
 * An in-process OTLP/HTTP trace receiver for tests: a loopback HTTP server
 * (port 0) that takes what `@opentelemetry/exporter-trace-otlp-http` posts to
 * `/v1/traces` (OTLP JSON), keeps the raw bodies and decodes the spans.
 */
import { type Server, createServer } from 'node:http';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every request body received, as sent (to search for text that must not be there). */
  bodies: string[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
interface OtlpJson {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: OtlpValue }> }> }> }>;
}

function valueOf(v: OtlpValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.boolValue !== undefined) return v.boolValue;
  return v.doubleValue ?? '';
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      if (req.url === '/v1/traces' && (req.headers['content-type'] ?? '').includes('json')) bodies.push(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('receiver has no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    bodies,
    spans() {
      const out: ReceivedSpan[] = [];
      for (const body of bodies) {
        for (const rs of (JSON.parse(body) as OtlpJson).resourceSpans ?? []) {
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              const attributes: ReceivedSpan['attributes'] = {};
              for (const a of s.attributes ?? []) attributes[a.key] = valueOf(a.value);
              out.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, attributes });
            }
          }
        }
      }
      return out;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
