/** A one-line progress display (rows and rows/s), redrawn in place on a terminal and printed every few seconds otherwise. */
export class ProgressLine {
  private readonly started = performance.now();
  private lastPrint = 0;
  private rows = 0;

  constructor(private readonly label: string, private readonly out: NodeJS.WriteStream = process.stderr) {}

  add(rows: number, detail = ''): void {
    this.rows += rows;
    const now = performance.now();
    const tty = this.out.isTTY === true;
    if (now - this.lastPrint < (tty ? 200 : 5000)) return;
    this.lastPrint = now;
    this.out.write(`${tty ? '\r\x1b[2K' : ''}${this.text(detail)}${tty ? '' : '\n'}`);
  }

  done(detail = ''): { rows: number; seconds: number } {
    const seconds = (performance.now() - this.started) / 1000;
    this.out.write(`${this.out.isTTY === true ? '\r\x1b[2K' : ''}${this.text(detail)} — done in ${seconds.toFixed(1)} s\n`);
    return { rows: this.rows, seconds };
  }

  private text(detail: string): string {
    const seconds = (performance.now() - this.started) / 1000;
    const rate = seconds > 0 ? Math.round(this.rows / seconds) : 0;
    return `${this.label}: ${this.rows.toLocaleString('en-US')} rows, ${rate.toLocaleString('en-US')} rows/s${detail === '' ? '' : ` (${detail})`}`;
  }
}
