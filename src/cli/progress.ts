/** Where progress goes: stderr, or a fake terminal in tests. */
export type ProgressStream = { isTTY?: boolean; write(text: string): unknown };

/**
 * Progress of a long command: one line redrawn in place on a terminal, nothing when the stream
 * is a pipe or a file (scripts and logs get the summary alone); the summary is always written.
 */
export function progressLine(stream: ProgressStream, label: string) {
  const live = stream.isTTY === true;
  let drawn = false;
  return {
    update(done: number, total: number): void {
      if (!live) return;
      const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
      stream.write(`\r${label} ${done}/${total} (${percent}%)`);
      drawn = true;
    },
    finish(summary: string): void {
      // Clears the progress line so the summary does not end in its leftovers.
      if (drawn) stream.write('\r\x1b[K');
      stream.write(`${summary}\n`);
    },
  };
}
