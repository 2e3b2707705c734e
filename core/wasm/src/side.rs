//! A run folder's side files for JavaScript (`overbrainer_core::side`): a status told with
//! its snapshot state, made by the core of the bytes of `snapshot.request` and
//! `snapshot.json` the page or the program read (each with its modification time).

use overbrainer_core::side::{snapshot_state, SideFile};

use crate::reports::status_report;

/// `present`'s bit for a request given.
const REQUEST: u32 = 1;
/// `present`'s bit for a proof given.
const PROOF: u32 = 2;

/// The status of run `id` at `now` as `ob_status_report` tells it, with its snapshot state:
/// the input holds the run's names (`run_len` and `name_len` bytes), then the request's
/// bytes (`request_len`, written at `request_mtime`, seconds since the epoch) and the
/// proof's (`proof_len`, at `proof_mtime`); `present` says which files are there (1: the
/// request, 2: the proof; a file not there gives no bytes). The output holds the
/// `StatusReport` as JSON, its `valid` false where the side files are not.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn ob_status_report_side(
    id: u32,
    run_len: usize,
    name_len: usize,
    now: f64,
    present: u32,
    request_len: usize,
    request_mtime: f64,
    proof_len: usize,
    proof_mtime: f64,
) -> u32 {
    status_report(id, run_len, name_len, now, |rest| {
        let request = rest.get(..request_len).unwrap_or(&[]);
        let proof_end = request_len.saturating_add(proof_len);
        let proof = rest.get(request_len..proof_end).unwrap_or(&[]);
        let found = |bit: u32, bytes, mtime| {
            if present & bit == 0 {
                SideFile::Absent
            } else {
                SideFile::Read { bytes, mtime }
            }
        };
        Some(snapshot_state(
            found(REQUEST, request, request_mtime),
            found(PROOF, proof, proof_mtime),
        ))
    })
}
