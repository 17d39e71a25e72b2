import { describe, expect, it } from 'vitest';
import { Utf8Lines } from './utf8-lines';

async function through(chunks: Buffer[]): Promise<{ passed: string; refused: Buffer[] }> {
  const refused: Buffer[] = [];
  const lines = new Utf8Lines((line) => refused.push(line));
  const out: Buffer[] = [];
  lines.on('data', (d: Buffer) => out.push(d));
  const ended = new Promise((r) => lines.on('end', r));
  for (const c of chunks) lines.write(c);
  lines.end();
  await ended;
  return { passed: Buffer.concat(out).toString('utf8'), refused };
}

describe('Utf8Lines', () => {
  it('passes well-formed lines whole, a character split across chunks included', async () => {
    const text = Buffer.from('{"topic":"Ríver 河"}\n{"a":1}\n{"last":true}');
    const cut = text.indexOf(Buffer.from('河')) + 1;
    expect(await through([text.subarray(0, cut), text.subarray(cut)])).toEqual({ passed: text.toString('utf8'), refused: [] });
  });

  it('holds back each line that is not UTF-8 and goes on with the next', async () => {
    const bad = Buffer.concat([Buffer.from('{"topic":"a'), Buffer.from([0xff]), Buffer.from('"}\n')]);
    const overlong = Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
    const { passed, refused } = await through([Buffer.from('{"ok":1}\n'), bad, Buffer.from('{"ok":2}\n'), overlong]);
    expect(passed).toBe('{"ok":1}\n{"ok":2}\n');
    expect(refused).toEqual([bad, overlong]);
  });
});
