import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progress } from './progress.ts';

function fakeStream(isTTY: boolean): NodeJS.WriteStream & { written: string } {
  const s = { isTTY, written: '', write(text: string) { s.written += text; return true; } };
  return s as unknown as NodeJS.WriteStream & { written: string };
}

describe('progress line', () => {
  it('draws on a terminal and ends with a newline', () => {
    const tty = fakeStream(true);
    const bar = progress('uploading', 2048, tty);
    bar.update(2048);
    bar.finish();
    assert.match(tty.written, /uploading: 2\.0 KiB \/ 2\.0 KiB 100%/);
    assert.ok(tty.written.endsWith('\n'));
  });

  it('writes nothing when the stream is not a terminal (pipes, scripts, --json)', () => {
    const pipe = fakeStream(false);
    const bar = progress('uploading', 2048, pipe);
    bar.update(1024);
    bar.finish();
    assert.equal(pipe.written, '');
  });
});
