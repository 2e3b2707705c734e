// The page served by `overbrainer-contract serve`: what it asks the server, and nothing of what
// the runs mean. The server hands out bytes only: a listing of the runs (each file an id, its
// size and when it was written) and files' bytes from offsets, several files in one answer
// (`/api/parts`, at most 4 MiB an answer): the reads asked for while a request is under way
// go together in the next one, so that a sweep of thousands of runs costs a few hundred
// requests, not one a run. Every request carries the token of the page's address. What the
// bytes say is read by the core, as for a file opened from disk (main.js).

/** The requests for files' parts under way at most. */
const SENDING = 2;

/** A file of the listing: its id (bound by the server to that very file), name, size now and
 * when it was written (ms since the epoch).
 * @typedef {{ id: string, name: string, size: number, modified: number }} ServedFile */
/** A run of the listing: its name among the runs, how the command line names it, its metrics
 * file as the records name it, its files (null: none there now), why its metrics file is not
 * served (a symlink, a FIFO...), if so, and why a side file is not (`snapshot.json: a symlink,
 * not read`), if so.
 * @typedef {{ name: string, run: string, path: string, metrics: ServedFile | null,
 *   snapshot: ServedFile | null, request: ServedFile | null, problem: string | null,
 *   side_problem: string | null }} ServedRun */
/** The listing: the contract's version, the most files one request for parts may ask for
 * (`parts`), the runs, and the paths refused (why). Asked since an earlier listing (`since`:
 * its ETag), the runs changed since that one and the names (`run`) of the runs removed since;
 * `since` null: every run (the first listing, or one asked since a listing the server no
 * longer answers from: another server's, or older than the removals it keeps).
 * @typedef {{ contract: string, parts: number, since: string | null, runs: ServedRun[],
 *   removed: string[], refused: { path: string, why: string }[] }} Listing */

/** What a read of a file gave: its bytes from the offset and its size now; `end` when the
 * offset is at or past its end (`size` then tells whether it was cut shorter); `gone` when
 * the file is no longer at its path (the next listing names what is there).
 * @typedef {{ kind: "bytes", data: Uint8Array<ArrayBuffer>, size: number } | { kind: "end", size: number } | { kind: "gone" }} Read */

/** The server of this page, if it was served (the page's `<meta name="overbrainer-served">`,
 * the API's address relative to the page), with the token of the page's address.
 * @returns {Server | null} */
export function servedBy() {
  const meta = document.querySelector('meta[name="overbrainer-served"]');
  if (!(meta instanceof HTMLMetaElement)) return null;
  const token = new URLSearchParams(location.search).get("token") ?? "";
  return new Server(new URL(meta.content, location.href), token);
}

/** A read asked for and not answered yet.
 * @typedef {{ id: string, offset: number, resolve: (read: Read) => void, reject: (error: unknown) => void }} Asked */

const decoder = new TextDecoder();

/** The parts of an `/api/parts` answer: each a header line of JSON (`{id, kind, size,
 * length}`), then the `length` bytes it announces.
 * @param {Uint8Array<ArrayBuffer>} body
 * @returns {{ head: { id: string, kind: string, size?: number, length?: number }, data: Uint8Array<ArrayBuffer> }[]} */
function partsOf(body) {
  const parts = [];
  for (let at = 0; at < body.length; ) {
    const end = body.indexOf(10, at);
    if (end < 0) throw new Error("the server's answer ends inside a part's header");
    const head = JSON.parse(decoder.decode(body.subarray(at, end)));
    const length = Number(head.length ?? 0);
    if (end + 1 + length > body.length) throw new Error("the server's answer ends inside a part's bytes");
    parts.push({ head, data: body.subarray(end + 1, end + 1 + length) });
    at = end + 1 + length;
  }
  return parts;
}

export class Server {
  /** @type {string | null} the listing's ETag: an unchanged listing is answered 304 */
  #etag = null;
  /** @type {Asked[]} the reads to ask for in the next request */
  #asked = [];
  #sending = 0;
  /** the most files one request asks for: the listing says (no read is asked before it) */
  #many = 1;

  /** @param {URL} base @param {string} token */
  constructor(base, token) {
    this.base = base;
    this.token = token;
  }

  /** The most files one request asks for, as the last listing said (1 before any listing). */
  get many() {
    return this.#many;
  }

  /** @param {string} path @param {Record<string, string>} [headers] */
  #ask(path, headers = {}) {
    return fetch(new URL(path, this.base), {
      headers: { Authorization: `Bearer ${this.token}`, ...headers },
      cache: "no-store",
      credentials: "omit",
    });
  }

  /** The listing when it changed since the last one asked for (the runs changed since it);
   * null when it did not.
   * @returns {Promise<Listing | null>} */
  async listing() {
    const etag = this.#etag;
    const since = etag === null ? "runs" : `runs?since=${encodeURIComponent(etag.replace(/^"|"$/g, ""))}`;
    const answer = await this.#ask(since, etag === null ? {} : { "If-None-Match": etag });
    if (answer.status === 304) return null;
    if (!answer.ok) throw new Error(`the server's listing: ${answer.status} ${(await answer.text()).trim()}`);
    this.#etag = answer.headers.get("ETag");
    const listing = /** @type {Listing} */ (await answer.json());
    if (Number.isSafeInteger(listing.parts) && listing.parts > 0) this.#many = listing.parts;
    return listing;
  }

  /** A file's bytes from `offset` (at most what one answer holds): asked for with the other
   * reads asked meanwhile, in one request.
   * @param {string} id
   * @param {number} offset
   * @returns {Promise<Read>} */
  read(id, offset) {
    return new Promise((resolve, reject) => {
      this.#asked.push({ id, offset, resolve, reject });
      if (this.#sending < SENDING) {
        this.#sending += 1;
        // the reads asked in this turn of the page go in one request
        setTimeout(() => void this.#send(), 0);
      }
    });
  }

  async #send() {
    while (this.#asked.length > 0) {
      const batch = this.#asked.splice(0, this.#many);
      const query = batch.map(({ id, offset }) => `at=${encodeURIComponent(id)}:${offset}`).join("&");
      try {
        const answer = await this.#ask(`parts?${query}`);
        if (!answer.ok) throw new Error(`the server's files: ${answer.status} ${(await answer.text()).trim()}`);
        const parts = partsOf(new Uint8Array(await answer.arrayBuffer()));
        if (parts.length !== batch.length || parts.some(({ head }, at) => head.id !== batch[at].id)) {
          throw new Error("the server's answer is not of the files asked for");
        }
        parts.forEach(({ head, data }, at) => {
          const asked = batch[at];
          if (head.kind === "bytes") asked.resolve({ kind: "bytes", data, size: Number(head.size) });
          else if (head.kind === "end") asked.resolve({ kind: "end", size: Number(head.size) });
          else if (head.kind === "gone") asked.resolve({ kind: "gone" });
          else this.#asked.push(asked); // the answer was full: asked for again
        });
      } catch {
        // one file's trouble (cut shorter while it was written, say) is not the others': each
        // asked for alone, as its own answer
        for (const asked of batch) this.#readOne(asked.id, asked.offset).then(asked.resolve, asked.reject);
      }
    }
    this.#sending -= 1;
  }

  /** A file's bytes from `offset`, in an answer of its own (`Range: bytes=N-`).
   * @param {string} id
   * @param {number} offset
   * @returns {Promise<Read>} */
  async #readOne(id, offset) {
    const answer = await this.#ask(`files/${encodeURIComponent(id)}`, { Range: `bytes=${offset}-` });
    const range = answer.headers.get("Content-Range") ?? "";
    const size = Number(range.slice(range.lastIndexOf("/") + 1));
    if (answer.status === 404) return { kind: "gone" };
    if (answer.status === 416) return { kind: "end", size };
    if (answer.status !== 206) throw new Error(`a file of the server: ${answer.status} ${(await answer.text()).trim()}`);
    return { kind: "bytes", data: new Uint8Array(await answer.arrayBuffer()), size };
  }

  /** A side file (`snapshot.json`, `snapshot.request`) as a File: its bytes, its name, when it
   * was written; over `limit`, its size alone (the page says it is over its bound).
   * @param {ServedFile} file
   * @param {number} limit
   * @returns {Promise<File | null>} null when it is gone meanwhile */
  async sideFile(file, limit) {
    if (file.size > limit) {
      const over = { name: file.name, size: file.size, lastModified: file.modified, arrayBuffer: async () => new ArrayBuffer(0) };
      return /** @type {File} */ (/** @type {unknown} */ (over));
    }
    /** @type {Uint8Array<ArrayBuffer>[]} */
    const parts = [];
    for (let offset = 0; ; ) {
      const read = await this.read(file.id, offset);
      if (read.kind === "gone") return null;
      if (read.kind === "end") break;
      parts.push(read.data);
      offset += read.data.length;
      if (offset >= read.size) break;
    }
    return new File(parts, file.name, { lastModified: file.modified });
  }
}
