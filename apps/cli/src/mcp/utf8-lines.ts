import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Passes stdin on line by line, holding back every line that is not UTF-8: the MCP SDK decodes a line with U+FFFD in
 * place of malformed bytes and goes on, so a topic would change silently. JSON text is UTF-8 (RFC 8259 §8.1).
 */
export class Utf8Lines extends Transform {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onInvalid: (line: Buffer) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let rest: Buffer = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (let end = rest.indexOf(0x0a); end !== -1; end = rest.indexOf(0x0a)) {
      this.pass(rest.subarray(0, end + 1));
      rest = rest.subarray(end + 1);
    }
    this.pending = rest;
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.pending.length) this.pass(this.pending);
    done();
  }

  private pass(line: Buffer): void {
    if (isUtf8(line)) this.push(line);
    else this.onInvalid(line);
  }
}
