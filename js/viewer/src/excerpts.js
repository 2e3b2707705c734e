// The text of the lines the page lists as bad, as written: bytes of a file, shown as text.

/** Bytes kept of a line still open at the end of a chunk: enough for its excerpt. */
const KEPT = 4096;

/** The text of a line by its number, while it is in the chunk just read (or began in an
 * earlier one): the first `shown` characters, as written, for the list of bad lines. Lines
 * are counted by their newlines, as the reader counts them. */
export class Excerpts {
  /** @param {number} shown */
  constructor(shown) {
    this.shown = shown;
    this.firstLine = 1; // the number of the line `carry` starts
    /** @type {Uint8Array} the start of the line still open at the end of the chunks before */
    this.carry = new Uint8Array(0);
    /** @type {Uint8Array | null} */
    this.chunk = null;
    /** @type {Uint8Array | null} the carry and the chunk, joined once an excerpt is asked for */
    this.buffer = null;
    /** @type {number[] | null} where each line of `buffer` starts */
    this.starts = null;
    this.on = true;
  }

  /** The next chunk read (`wanted`: excerpts are still needed; once not, counting stops).
   * @param {Uint8Array} chunk
   * @param {boolean} wanted */
  add(chunk, wanted) {
    if (this.chunk !== null) this.advance();
    this.on = this.on && wanted;
    this.chunk = this.on ? chunk : null;
    this.buffer = null;
    this.starts = null;
  }

  /** Past the chunk held: its lines counted, the start of its last one carried. */
  advance() {
    const { chunk } = this;
    if (chunk === null) return;
    let count = 0;
    let last = -1;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
      count += 1;
      last = at;
    }
    if (last >= 0) this.carry = chunk.slice(last + 1, last + 1 + KEPT);
    else if (this.carry.length < KEPT) this.carry = join(this.carry, chunk.subarray(0, KEPT - this.carry.length));
    this.firstLine += count;
  }

  /** Done with the chunk held: past it (its lines counted, the start of its last line
   * carried), its bytes let go. A run followed holds no chunk between two reads, only the
   * start of a line still open (a line cut short at the end is told from it).
   */
  release() {
    if (this.chunk !== null) this.advance();
    this.chunk = null;
    this.buffer = null;
    this.starts = null;
  }

  /** The excerpt of line `number`, or null when it is not in the chunk held (or the line
   * still open before it).
   * @param {number} number
   * @returns {string | null} */
  text(number) {
    if (!this.on) return null;
    if (this.buffer === null || this.starts === null) {
      this.buffer = this.chunk === null ? this.carry : join(this.carry, this.chunk);
      this.starts = [0];
      for (let at = this.buffer.indexOf(10); at !== -1; at = this.buffer.indexOf(10, at + 1)) this.starts.push(at + 1);
    }
    const { buffer, starts } = this;
    const index = number - this.firstLine;
    if (index < 0 || index >= starts.length) return null;
    const start = starts[index];
    const newline = buffer.indexOf(10, start);
    const end = newline === -1 ? buffer.length : newline;
    const bytes = buffer.subarray(start, Math.min(end, start + this.shown * 4));
    const text = new TextDecoder("utf-8").decode(bytes);
    const cut = [...text];
    if (cut.length > this.shown || end - start > bytes.length) return `${cut.slice(0, this.shown).join("")}…`;
    return text;
  }
}

/** @param {Uint8Array} a @param {Uint8Array} b @returns {Uint8Array} */
function join(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
