// A count written as the command line writes it (`{:,}`: digits grouped by three), for the
// snapshot row's words (snapshot.js), which the core makes once the package's status reads a
// run folder's side files. Every other number on the page is the core's (the package's
// `screen`, `cells` and `formatNumber`).

/** `f"{n:,}"` for an integer (a number or a bigint): digits grouped by three.
 * @param {number | bigint} n
 * @returns {string} */
export function thousands(n) {
  const text = String(n);
  const sign = text.startsWith("-") ? "-" : "";
  return sign + text.slice(sign.length).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
