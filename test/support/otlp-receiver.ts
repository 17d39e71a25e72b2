import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** An OTLP attribute value as OTLP/JSON encodes it (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding). */
const AnyValueSchema: z.ZodType<unknown> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    intValue: z.union([z.string(), z.number()]).optional(),
    doubleValue: z.number().optional(),
    boolValue: z.boolean().optional(),
    arrayValue: z.object({ values: z.array(AnyValueSchema).optional() }).optional(),
  }),
);
const KeyValuesSchema = z.array(z.object({ key: z.string(), value: AnyValueSchema })).optional();
const ExportSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: KeyValuesSchema }).optional(),
      scopeSpans: z.array(
        z.object({
          spans: z.array(
            z.object({ traceId: z.string(), spanId: z.string(), parentSpanId: z.string().optional(), name: z.string(), kind: z.number().optional(), startTimeUnixNano: z.union([z.string(), z.number()]).optional(), attributes: KeyValuesSchema }),
          ),
        }),
      ),
    }),
  ),
});

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind?: number;
  /** Start time in ms since the epoch. */
  start: number;
  attributes: Record<string, unknown>;
}

function plain(v: unknown): unknown {
  const a = v as { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: unknown[] } };
  if (a.stringValue !== undefined) return a.stringValue;
  if (a.intValue !== undefined) return Number(a.intValue);
  if (a.doubleValue !== undefined) return a.doubleValue;
  if (a.boolValue !== undefined) return a.boolValue;
  if (a.arrayValue) return (a.arrayValue.values ?? []).map(plain);
  return undefined;
}
const record = (kvs: z.infer<typeof KeyValuesSchema>): Record<string, unknown> => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, plain(kv.value)]));

/** A collector's OTLP/HTTP trace endpoint (POST /v1/traces, JSON encoding), keeping every span it is sent. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly rejected: string[] = [];
  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          receiver.rejected.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
          res.writeHead(415).end();
          return;
        }
        const parsed = ExportSchema.safeParse(JSON.parse(body));
        if (!parsed.success) {
          receiver.rejected.push(parsed.error.message);
          res.writeHead(400).end();
          return;
        }
        for (const rs of parsed.data.resourceSpans) {
          const service = String(record(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              receiver.spans.push({ service, traceId: s.traceId, spanId: s.spanId, ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}), name: s.name, ...(s.kind !== undefined ? { kind: s.kind } : {}), start: Number(BigInt(s.startTimeUnixNano ?? 0) / 1_000_000n), attributes: record(s.attributes) });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}
