#!/usr/bin/env node
import { Writable } from 'node:stream';
import { OrreryClient } from './client/orrery-client';
import { bridgeStdioToHttp } from './mcp/stdio-bridge';
import { type LocalService, startLocalService } from './service/local-service';
import { forTerminal } from './terminal/terminal-text';

/**
 * `npm run -s mcp` / `orrery-mcp`: Orrery as an MCP server on stdio. Talks to the server at ORRERY_URL
 * (ORRERY_API_KEY as its key) when it answers, else starts the service in this process as `npm run research`
 * does. stdout carries MCP messages only: everything else this process prints goes to stderr.
 */
const write = process.stdout.write.bind(process.stdout);
const mcpOut = new Writable({ write: (chunk, encoding, done) => void write(chunk, encoding, done) });
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
// stderr is a terminal for whoever runs the server by hand; errors quote what the far side sent.
const log = (line: string) => void process.stderr.write(forTerminal(line));

async function main(): Promise<void> {
  let service: LocalService | undefined;
  const remote = process.env.ORRERY_URL ? new OrreryClient(process.env.ORRERY_URL.replace(/\/$/, ''), process.env.ORRERY_API_KEY) : undefined;
  let base: string;
  if (remote && (await remote.healthy())) {
    base = remote.baseUrl;
    log(`[orrery-mcp] using the server at ${base}\n`);
  } else {
    if (remote) log(`[orrery-mcp] ${remote.baseUrl} does not answer\n`);
    service = await startLocalService({ log });
    base = service.url;
  }
  const stop = async () => {
    await service?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await bridgeStdioToHttp({ url: `${base}/mcp`, ...(remote && !service && process.env.ORRERY_API_KEY ? { apiKey: process.env.ORRERY_API_KEY } : {}), stdout: mcpOut, log });
  await stop();
}

main().catch((err: Error) => {
  log(`orrery-mcp: ${err.message}\n`);
  process.exit(1);
});
