/**
 * A one-line progress indicator for long uploads and exports. Drawn on
 * stderr only when stderr is a terminal, so pipes, scripts and `--json`
 * output never see it.
 */
export interface Progress {
  update(done: number): void;
  finish(): void;
}

function human(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = -1;
  do {
    value /= 1024;
    unit++;
  } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function progress(label: string, total: number | undefined, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  let last = 0;
  const draw = (done: number) => {
    const pct = total ? ` ${Math.floor((100 * done) / Math.max(total, 1))}%` : '';
    stream.write(`\r${label}: ${human(done)}${total ? ` / ${human(total)}` : ''}${pct}   `);
  };
  return {
    update(done) {
      const now = Date.now();
      if (now - last < 100 && done !== total) return; // redraw at most ten times a second
      last = now;
      draw(done);
    },
    finish() {
      stream.write('\n');
    },
  };
}
