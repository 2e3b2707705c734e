// Names, keys and groups as the core makes them (core/wasm/src/names.rs over
// overbrainer_core::names and ::groups): the natural order of names, runs' names below their
// common folder, labels cut to LABEL_CHARS characters, the keys globs pick and their sections,
// the legend's entries and a group's band. The command line asks the same core (Python's
// binding), so every face names, orders, picks and groups alike; nothing of the rules is
// written here, only the records in and out.

/** What a run's name is made from: its unit (a run folder's path, or a metrics file's of its
 * own name, `/` between its parts), and whether its path is known (`placed`) or it is a name
 * given alone (a file opened without its folder). */
export interface Unit {
  unit: string;
  placed: boolean;
}

/** The picked keys under a heading (the keys' text before their last `/`; "" first). */
export interface Section {
  heading: string;
  keys: string[];
}

/** A legend entry: a group of runs (`key` its group's key) or one run alone (`key` null);
 * `members` the indices of its runs. */
export interface Entry {
  key: string | null;
  members: number[];
}

/** A run's points of one metric: its steps and values (a null as NaN), in the file's order. */
export interface BandPoints {
  steps: ArrayLike<number>;
  values: ArrayLike<number>;
  length: number;
}

/** A group's band of one metric: per step (ascending), the mean and the population standard
 * deviation of its runs' last finite values there, and how many runs had one. */
export interface Band {
  steps: Float64Array;
  mean: Float64Array;
  std: Float64Array;
  count: Uint32Array;
}

export interface NamesApi {
  /** The order of two names: the numbers in them (runs of ASCII digits) compared as numbers
   * of any length, the rest by code point, a tie (`x01`, `x1`) by code point: a comparator
   * for `Array.prototype.sort`. */
  naturalCompare(a: string, b: string): number;
  /** The indices of `names` in their natural order. */
  naturalOrder(names: readonly string[]): number[];
  /** The names of runs from their units: each placed one its path below the folder the
   * placed ones have in common (`nest/exp1/seed1`, `nest/exp2/seed1`: `exp1/seed1`,
   * `exp2/seed1`; one alone: its last part), one not placed as given; names alike get
   * ` (2)`, ` (3)`... after the first. */
  runNames(units: readonly Unit[]): string[];
  /** What a run's name is made from, given its metrics file's path (`a/b/metrics.jsonl`, or a
   * lone file's name): its folder when the file is named one of `metricsNames`, else the
   * path itself. */
  unitOf(path: string, metricsNames: readonly string[]): string;
  /** Each text as a label shows it: whole up to `LABEL_CHARS` characters (code points), else
   * its first `LABEL_CHARS - 1` and an ellipsis. */
  labelsOf(texts: readonly string[]): string[];
  /** One text as a label shows it (`labelsOf`). */
  labelOf(text: string): string;
  /** The most characters of a label. */
  readonly LABEL_CHARS: number;
  /** The metric keys' patterns when none are given (`loss,eval_loss,learning_rate`). */
  readonly DEFAULT_PATTERNS: string;
  /** The globs of a text: split at commas, each trimmed, the empty ones dropped. */
  patternsOf(text: string): string[];
  /** The keys the globs pick, in their order: for each glob, the keys it matches (the core's
   * glob, fnmatch's rules, against the whole key) that no glob before it did, sorted by code
   * point; each key once. A glob the core refuses picks none. */
  pickKeys(globs: readonly string[], keys: Iterable<string>): string[];
  /** The picked keys under their headings: the keys without `/` first (heading ""), then each
   * prefix in the order its first key was picked; in each, the keys in the order picked. */
  sections(picked: readonly string[]): Section[];
  /** The legend's entries in the order shown, from each run's group key (null: alone, or no
   * groups at all: `keys` null): each group at its first run's place. */
  groupEntries(count: number, keys: readonly (string | null)[] | null): Entry[];
  /** A group's band from its runs' points (null: a run without the metric). A run counts at a
   * step with its last value there, when finite. */
  band(members: readonly (BandPoints | null)[]): Band;
}

export interface NamesExports {
  ob_natural_order(len: number): number;
  ob_natural_compare(len: number): number;
  ob_run_names(len: number): number;
  ob_unit(len: number): number;
  ob_labels(len: number): number;
  ob_patterns(len: number, defaults: number): number;
  ob_pick_keys(len: number): number;
  ob_sections(len: number): number;
  ob_entries(len: number): number;
  ob_band(len: number): number;
  ob_label_chars(): number;
}

/** The module's buffers as the glue reaches them. */
export interface NamesIo {
  /** `data` into the module's input; its length. */
  put(data: Uint8Array): number;
  /** What the last call wrote (valid until the next call). */
  output(): Uint8Array;
}

const TWO_32 = 4294967296;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Records written in one growing buffer: texts (a `u32` length and UTF-8), `u32`s, bytes. */
class Records {
  bytes = new Uint8Array(256);
  view = new DataView(this.bytes.buffer);
  length = 0;

  room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u32(value: number): void {
    this.room(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  text(text: string): void {
    this.room(4 + text.length * 3);
    const written = encoder.encodeInto(text, this.bytes.subarray(this.length + 4)).written;
    this.view.setUint32(this.length, written, true);
    this.length += 4 + written;
  }

  raw(data: Uint8Array): void {
    this.room(data.length);
    this.bytes.set(data, this.length);
    this.length += data.length;
  }

  get data(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/** A reader of the output's records. */
class Reading {
  readonly view: DataView;
  at = 0;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get more(): boolean {
    return this.at < this.bytes.length;
  }

  u32(): number {
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  text(size = this.u32()): string {
    const text = decoder.decode(this.bytes.subarray(this.at, this.at + size));
    this.at += size;
    return text;
  }
}

function textsOf(texts: Iterable<string>): Records {
  const records = new Records();
  for (const text of texts) records.text(text);
  return records;
}

export function bindNames(ex: NamesExports, io: NamesIo): NamesApi {
  /** `records` through `call`, its output read; an Error with the core's words when refused. */
  const ask = (records: Records, call: (len: number) => number): Reading => {
    const len = io.put(records.data);
    if (call(len) === 0) throw new Error(decoder.decode(io.output()));
    return new Reading(io.output());
  };

  function naturalCompare(a: string, b: string): number {
    const records = textsOf([a, b]);
    return ex.ob_natural_compare(io.put(records.data)) - 1;
  }

  function naturalOrder(names: readonly string[]): number[] {
    const reading = ask(textsOf(names), ex.ob_natural_order);
    return names.map(() => reading.u32());
  }

  function runNames(units: readonly Unit[]): string[] {
    const records = new Records();
    for (const { unit, placed } of units) {
      records.byte(placed ? 1 : 0);
      records.text(unit);
    }
    const reading = ask(records, ex.ob_run_names);
    return units.map(() => reading.text());
  }

  function unitOf(path: string, metricsNames: readonly string[]): string {
    const records = new Records();
    records.u32(metricsNames.length);
    for (const name of metricsNames) records.text(name);
    records.text(path);
    return ask(records, ex.ob_unit).text();
  }

  const LABEL_CHARS = ex.ob_label_chars();

  function labelsOf(texts: readonly string[]): string[] {
    // A text of fewer UTF-16 units than LABEL_CHARS has fewer characters: whole, unasked.
    if (texts.every((text) => text.length <= LABEL_CHARS)) return [...texts];
    const reading = ask(textsOf(texts), ex.ob_labels);
    return texts.map((text) => {
      const size = reading.u32();
      return size === 0 ? text : reading.text(size - 1);
    });
  }

  function labelOf(text: string): string {
    return labelsOf([text])[0]!;
  }

  function patternsOf(text: string): string[] {
    const reading = ask(textsOf([text]), (len) => ex.ob_patterns(len, 0));
    const found: string[] = [];
    while (reading.more) found.push(reading.text());
    return found;
  }

  const DEFAULT_PATTERNS = (() => {
    const reading = ask(new Records(), (len) => ex.ob_patterns(len, 1));
    const found: string[] = [];
    while (reading.more) found.push(reading.text());
    return found.join(",");
  })();

  function pickKeys(globs: readonly string[], keys: Iterable<string>): string[] {
    const given = [...keys];
    const records = new Records();
    records.u32(globs.length);
    for (const glob of globs) records.text(glob);
    for (const key of given) records.text(key);
    const reading = ask(records, ex.ob_pick_keys);
    const picked: string[] = [];
    while (reading.more) picked.push(given[reading.u32()]!);
    return picked;
  }

  function sections(picked: readonly string[]): Section[] {
    const reading = ask(textsOf(picked), ex.ob_sections);
    const found: Section[] = [];
    while (reading.more) {
      const heading = reading.text();
      const count = reading.u32();
      const keys: string[] = [];
      for (let i = 0; i < count; i += 1) keys.push(picked[reading.u32()]!);
      found.push({ heading, keys });
    }
    return found;
  }

  function groupEntries(count: number, keys: readonly (string | null)[] | null): Entry[] {
    const records = new Records();
    for (let index = 0; index < count; index += 1) {
      const key = keys === null ? null : (keys[index] ?? null);
      if (key === null) {
        records.u32(0);
        continue;
      }
      const encoded = encoder.encode(key);
      records.u32(encoded.length + 1);
      records.raw(encoded);
    }
    const reading = ask(records, ex.ob_entries);
    const found: Entry[] = [];
    while (reading.more) {
      const grouped = reading.u32() === 1;
      const size = reading.u32();
      const members: number[] = [];
      for (let i = 0; i < size; i += 1) members.push(reading.u32());
      found.push({ key: grouped && keys !== null ? keys[members[0]!]! : null, members });
    }
    return found;
  }

  function band(members: readonly (BandPoints | null)[]): Band {
    const records = new Records();
    for (const points of members) {
      if (points === null) continue;
      const count = points.length;
      records.u32(count);
      records.room(count * 16);
      for (let i = 0; i < count; i += 1) {
        // A step is a whole number from 0, exact below 2^53 in a double: its two words.
        const step = Math.max(0, Math.trunc(points.steps[i]!));
        records.view.setUint32(records.length, step % TWO_32, true);
        records.view.setUint32(records.length + 4, Math.floor(step / TWO_32), true);
        records.length += 8;
      }
      for (let i = 0; i < count; i += 1) {
        records.view.setFloat64(records.length, points.values[i]!, true);
        records.length += 8;
      }
    }
    const reading = ask(records, ex.ob_band);
    const size = reading.u32();
    const made: Band = {
      steps: new Float64Array(size),
      mean: new Float64Array(size),
      std: new Float64Array(size),
      count: new Uint32Array(size),
    };
    const { view } = reading;
    let at = reading.at;
    for (let i = 0; i < size; i += 1, at += 8) made.steps[i] = view.getUint32(at + 4, true) * TWO_32 + view.getUint32(at, true);
    for (let i = 0; i < size; i += 1, at += 8) made.mean[i] = view.getFloat64(at, true);
    for (let i = 0; i < size; i += 1, at += 8) made.std[i] = view.getFloat64(at, true);
    for (let i = 0; i < size; i += 1, at += 4) made.count[i] = view.getUint32(at, true);
    return made;
  }

  return {
    naturalCompare,
    naturalOrder,
    runNames,
    unitOf,
    labelsOf,
    labelOf,
    LABEL_CHARS,
    DEFAULT_PATTERNS,
    patternsOf,
    pickKeys,
    sections,
    groupEntries,
    band,
  };
}
