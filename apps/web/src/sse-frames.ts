/** One Server-Sent Events message: its id, event name and data lines joined. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses an event stream as it arrives, chunk by chunk (the HTML spec's event-stream format: LF, CRLF or CR
 * line ends, `:` comments, a blank line ends a message). A frame without data is not a message.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event: string | undefined;
  private data: string[] = [];

  push(chunk: string): SseFrame[] {
    this.buffer += chunk;
    const frames: SseFrame[] = [];
    for (;;) {
      const end = this.buffer.search(/[\r\n]/);
      if (end < 0) break;
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (this.buffer[end] === '\r' && end === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (this.data.length) frames.push({ ...(this.id !== undefined ? { id: this.id } : {}), ...(this.event ? { event: this.event } : {}), data: this.data.join('\n') });
        this.event = undefined;
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') this.data.push(value);
      else if (field === 'event') this.event = value;
      else if (field === 'id' && !value.includes('\0')) this.id = value;
    }
    return frames;
  }
}
