import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { MCP_BODY_LIMIT_BYTES } from '@orrery/protocol';
import { json, type NextFunction, type Request, type Response } from 'express';
import { jsonDepthExceeds } from './json-depth';

/** 1 MB so that an oversized topic gets zod's clear 400 rather than a bare 413. */
const BODY_LIMIT = 1024 * 1024;
/** /mcp's own: the largest legal tool call fits, so a bigger body is refused from its length, unread. */
const MCP_ROUTE = /^\/mcp\/?$/i;
const limitOf = (req: Request) => (MCP_ROUTE.test(req.path) ? MCP_BODY_LIMIT_BYTES : BODY_LIMIT);
const tooLarge = (req: Request, limit: number) => `the body is larger than ${limit / 1024} KiB, the limit of ${req.path}`;
/** Every request schema nests a few levels (MCP's JSON-RPC the most); this leaves room and stops a bracket bomb. */
export const JSON_MAX_DEPTH = 32;

/**
 * The routes that take a JSON body, matched as Express routes them (any letter case, an optional trailing
 * slash). Cancel takes none but tolerates `{}`, which clients send. The board's writes (admin keys only; the
 * board refuses them to others before it reads them) parse their own bodies.
 */
const BODY_ROUTES: ReadonlyArray<readonly [string, RegExp]> = [
  ['POST', /^\/v1\/research\/?$/i],
  ['POST', /^\/v1\/research\/[^/]+\/(decision|cancel|followups)\/?$/i],
  ['POST', /^\/v1\/corpora\/?$/i],
  ['POST', /^\/v1\/watches(\/[^/]+\/(pause|resume))?\/?$/i],
  ['POST', /^\/v1\/admin\/judge\/?$/i],
  ['POST', MCP_ROUTE],
];
const BOARD_WRITE = /^\/queues\/api\//i;

const takesBody = (req: Request) => BODY_ROUTES.some(([method, path]) => req.method === method && path.test(req.path)) || (!['GET', 'HEAD'].includes(req.method) && BOARD_WRITE.test(req.path));
const hasBody = (req: Request) => Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;

const refuse = (res: Response, status: number, message: string) =>
  res.status(status).json({ statusCode: status, error: status === 413 ? 'Content Too Large' : 'Bad Request', message });

/**
 * Before anything else looks at a request: a body sent to a route that takes none (an open route included), or
 * declared longer than its route's limit, is refused from its headers, unread, and the connection closed, so that
 * nobody makes the server read or parse what no route wants.
 */
export function refuseUnwantedBodies() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!hasBody(req)) return next();
    if (!takesBody(req)) return void refuseUnread(res, `${req.method} ${req.path} takes no request body`);
    // One over its route's limit likewise, before it waits for its key's turn (LargeBodiesMiddleware).
    const limit = limitOf(req);
    if (Number(req.headers['content-length'] ?? 0) > limit) return void refuseUnread(res, tooLarge(req, limit));
    next();
  };
}

const refuseUnread = (res: Response, message: string) => {
  res.set('Connection', 'close');
  refuse(res, 413, message);
};

class TooDeep extends Error {
  readonly status = 400;
  readonly type = 'entity.too.deep';
}

class NotUtf8 extends Error {
  readonly status = 400;
  readonly type = 'entity.not.utf8';
}

/** The body's declared charset; JSON without one is UTF-8 (RFC 8259 §8.1). */
const charsetOf = (req: IncomingMessage) => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase() ?? 'utf-8';

/**
 * Parses JSON bodies on the routes that take one, mounted after authentication so that no body is parsed for
 * a caller without a key. Bytes that are not UTF-8 and nesting deeper than JSON_MAX_DEPTH are refused before
 * JSON.parse sees them; every
 * refusal is a JSON 400 or 413 with the reason.
 */
export function jsonBodies() {
  const parser = (limit: number) =>
    json({
      limit,
      verify: (req, _res, buf) => {
        // Decoding would turn each malformed byte into U+FFFD and keep going: a topic would silently change.
        if (['utf-8', 'utf8'].includes(charsetOf(req)) && !isUtf8(buf)) throw new NotUtf8('the body is not valid UTF-8');
        if (jsonDepthExceeds(buf, JSON_MAX_DEPTH)) throw new TooDeep(`the body nests arrays and objects deeper than ${JSON_MAX_DEPTH} levels`);
      },
    });
  const parsers = { rest: parser(BODY_LIMIT), mcp: parser(MCP_BODY_LIMIT_BYTES) };
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!takesBody(req)) return next();
    const limit = limitOf(req);
    const parse = limit === MCP_BODY_LIMIT_BYTES ? parsers.mcp : parsers.rest;
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { status?: number; type?: string; expose?: boolean; message?: string };
      if (e.type === 'entity.too.large') return void refuse(res, 413, tooLarge(req, limit));
      if (e.type === 'entity.parse.failed') return void refuse(res, 400, 'the body is not valid JSON');
      if (e instanceof TooDeep || e instanceof NotUtf8) return void refuse(res, 400, e.message);
      const status = e.status && e.status >= 400 && e.status < 500 ? e.status : 400;
      refuse(res, status, e.expose && e.message ? e.message : 'the body could not be read');
    });
  };
}
