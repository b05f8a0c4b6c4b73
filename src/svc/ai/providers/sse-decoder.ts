/**
 * Incremental Server-Sent Events decoder for OpenAI-compatible streams:
 * bytes in, `data` payloads out. Handles events split across network
 * chunks, CRLF line ends, multi-line data and comment lines (ignored).
 */

export class SseDecoder {
  #buffer = '';
  #data: string[] = [];
  readonly #decoder = new TextDecoder();

  /** Feeds bytes; returns the data payloads of the events completed by them. */
  push(chunk: Uint8Array): string[] {
    this.#buffer += this.#decoder.decode(chunk, { stream: true });
    const out: string[] = [];
    let start = 0;
    for (;;) {
      const nl = this.#buffer.indexOf('\n', start);
      if (nl === -1) break;
      let line = this.#buffer.slice(start, nl);
      start = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (this.#data.length > 0) out.push(this.#data.join('\n'));
        this.#data = [];
      } else if (line.startsWith('data:')) {
        this.#data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
      }
      // `event:`, `id:`, `retry:` and `:` comments carry nothing OpenAI clients use.
    }
    this.#buffer = this.#buffer.slice(start);
    return out;
  }

  /** Data of an event left unterminated at end of stream (some servers omit the final blank line). */
  end(): string[] {
    const rest = this.#buffer.trim();
    if (rest.startsWith('data:')) this.#data.push(rest.slice(5).trimStart());
    const out = this.#data.length > 0 ? [this.#data.join('\n')] : [];
    this.#data = [];
    this.#buffer = '';
    return out;
  }
}
