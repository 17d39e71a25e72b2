import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Writable } from 'node:stream';
import { Utf8Lines } from './utf8-lines';

type Id = string | number;
const requestId = (m: JSONRPCMessage): Id | undefined => ('method' in m && 'id' in m ? (m.id as Id) : undefined);

/** The id of a request on a line that is not UTF-8, if what decodes of it names one. */
const idOfLine = (line: Buffer): Id | null => {
  try {
    const id = (JSON.parse(line.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
};

/**
 * Passes MCP messages between stdio (an agent that spawned this process) and the coordinator's /mcp, unchanged,
 * so the tools exist once, behind the coordinator's keys, ownership and quotas. The protocol version an
 * `initialize` settles is given to the HTTP side, which sends it as a header. A request the coordinator cannot
 * be reached for is answered with an error rather than left hanging, and so is a line that is not UTF-8. Resolves
 * when stdin closes.
 */
export async function bridgeStdioToHttp(opts: { url: string; apiKey?: string; stdout: Writable; log: (line: string) => void }): Promise<void> {
  // A line that is not UTF-8 never reaches the coordinator: it is answered here, as a parse error.
  const stdin = process.stdin.pipe(
    new Utf8Lines((line) => {
      opts.log('[orrery-mcp] stdio: a message that is not valid UTF-8 was refused\n');
      void down.send({ jsonrpc: '2.0', id: idOfLine(line), error: { code: -32700, message: 'Parse error: the message is not valid UTF-8' } } as JSONRPCMessage);
    }),
  );
  const down = new StdioServerTransport(stdin, opts.stdout);
  const up = new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {} } });
  const initializing = new Set<Id>();
  const closed = new Promise<void>((resolve) => (down.onclose = resolve));

  down.onmessage = (m) => {
    const id = requestId(m);
    if (id !== undefined && 'method' in m && m.method === 'initialize') initializing.add(id);
    up.send(m).catch((err: Error) => {
      opts.log(`[orrery-mcp] ${opts.url}: ${err.message}\n`);
      if (id !== undefined) void down.send({ jsonrpc: '2.0', id, error: { code: -32603, message: `Orrery at ${opts.url}: ${err.message}` } });
    });
  };
  up.onmessage = (m) => {
    if ('id' in m && initializing.delete(m.id as Id) && 'result' in m) {
      const version = (m.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') up.setProtocolVersion(version);
    }
    void down.send(m);
  };
  up.onerror = (err) => opts.log(`[orrery-mcp] ${opts.url}: ${err.message}\n`);
  down.onerror = (err) => opts.log(`[orrery-mcp] stdio: ${err.message}\n`);

  await up.start();
  await down.start();
  await closed;
  await up.close().catch(() => undefined);
}
