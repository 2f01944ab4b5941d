// A one-line progress bar on stderr; silent when stderr is not a terminal
// except for a final summary, so logs stay readable.
export class Progress {
  constructor(label, total, stream = process.stderr) {
    this.label = label;
    this.total = Math.max(1, total);
    this.stream = stream;
    this.tty = Boolean(stream.isTTY);
    this.start = Date.now();
    this.last = -1;
  }
  update(done, detail = '') {
    if (!this.tty) return;
    const pct = Math.floor((100 * done) / this.total);
    if (pct === this.last && done < this.total) return;
    this.last = pct;
    const width = 28;
    const fill = Math.round((width * done) / this.total);
    this.stream.write(`\r${this.label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${String(pct).padStart(3)}% ${detail}`.padEnd(100));
  }
  done(summary) {
    const secs = ((Date.now() - this.start) / 1000).toFixed(1);
    if (this.tty) this.stream.write('\r'.padEnd(101) + '\r');
    this.stream.write(`${this.label}: ${summary} (${secs}s)\n`);
  }
}
