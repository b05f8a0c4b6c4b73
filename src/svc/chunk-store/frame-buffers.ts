/**
 * Buffers that frames decode into for reads (decision 207), reused from one
 * frame to the next. A fresh buffer per decoded frame is external memory to
 * V8, whose growth starts full collections of the whole heap: a restore of
 * 148 MiB of dense frames spent ~0.3 s of CPU in them. The frame cache gives
 * a buffer back only once no reader holds it (frame-cache.ts).
 *
 * Sizes are rounded up to whole MiB, and a request takes any idle buffer at
 * most 1 MiB larger than it, so frames of about the same size share buffers.
 * Idle buffers are capped at {@link MAX_IDLE_FRAME_BUFFER_BYTES} in all.
 */
const MiB = 1024 * 1024;
export const MAX_IDLE_FRAME_BUFFER_BYTES = 32 * MiB;

export class FrameBuffers {
  readonly #idle: ArrayBuffer[] = [];
  #idleBytes = 0;

  /** An ArrayBuffer of at least `bytes` bytes, owned by the caller until given back. */
  acquire(bytes: number): ArrayBuffer {
    const at = this.#idle.findIndex((b) => b.byteLength >= bytes && b.byteLength <= bytes + MiB);
    if (at >= 0) {
      const [reused] = this.#idle.splice(at, 1);
      this.#idleBytes -= reused!.byteLength;
      return reused!;
    }
    return new ArrayBuffer(Math.max(MiB, Math.ceil(bytes / MiB) * MiB));
  }

  /** Gives a buffer back (a detached one, or one past the idle cap, is dropped). */
  release(buffer: ArrayBuffer): void {
    if (buffer.detached || this.#idleBytes + buffer.byteLength > MAX_IDLE_FRAME_BUFFER_BYTES) return;
    this.#idle.push(buffer);
    this.#idleBytes += buffer.byteLength;
  }

  /** Bytes held idle (tests). */
  get idleBytes(): number {
    return this.#idleBytes;
  }
}
