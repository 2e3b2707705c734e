//! A run folder's side files for JavaScript (`overbrainer_core::side`): a status told with
//! its snapshot state, made by the core of what the page or the program found of
//! `snapshot.request` and `snapshot.json`: each file's bytes and modification time, or the
//! words of a file it refused unread.

use overbrainer_core::reports::FileKind;
use overbrainer_core::side::{over_limit, snapshot_state, SideFile};

use crate::reports::status_report;

/// `present`'s bit for a request there.
const REQUEST: u32 = 1;
/// `present`'s bit for a proof there.
const PROOF: u32 = 2;
/// `present`'s bit for a request refused unread: its bytes are the words why.
const REQUEST_REFUSED: u32 = 4;
/// `present`'s bit for a proof refused unread: its bytes are the words why.
const PROOF_REFUSED: u32 = 8;

/// What `present` says of one side file: there, refused unread.
struct Given {
    there: bool,
    refused: bool,
}

impl Given {
    /// The file as the core takes it: refused with the words given, absent, refused for its
    /// size (`over`), or read.
    fn file<'a>(
        &self,
        bytes: &'a [u8],
        mtime: f64,
        words: &'a str,
        over: Option<&'a str>,
    ) -> SideFile<'a> {
        match (self.refused, self.there, over) {
            (true, _, _) => SideFile::Refused(words),
            (false, false, _) => SideFile::Absent,
            (false, true, Some(over)) => SideFile::Refused(over),
            (false, true, None) => SideFile::Read { bytes, mtime },
        }
    }
}

/// The status of run `id` at `now` as `ob_status_report` tells it, with its snapshot state:
/// the input holds the run's names (`run_len` and `name_len` bytes), then the request's
/// bytes (`request_len`, written at `request_mtime`, seconds since the epoch) and the
/// proof's (`proof_len`, at `proof_mtime`). `present` says which files are there (1: the
/// request, 2: the proof) and which were refused unread (4, 8: their bytes are the words
/// why); a file not there gives no bytes. `request_size` and `proof_size`: each file's
/// size when only part of it was given (a file over the contract's `max_bytes` need not be
/// read whole to be refused). The output holds the `StatusReport` as JSON, its `valid`
/// false where the side files are not.
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
    request_size: f64,
    proof_len: usize,
    proof_mtime: f64,
    proof_size: f64,
) -> u32 {
    status_report(id, run_len, name_len, now, |rest| {
        let request = rest.get(..request_len).unwrap_or(&[]);
        let proof_end = request_len.saturating_add(proof_len);
        let proof = rest.get(request_len..proof_end).unwrap_or(&[]);
        let too_big = |kind, bytes: &[u8], size: f64| {
            // a size beyond usize is over any limit
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let size = if size >= usize::MAX as f64 {
                usize::MAX
            } else if size > 0.0 {
                size as usize
            } else {
                0
            };
            over_limit(kind, size.max(bytes.len()))
        };
        let request_over = too_big(FileKind::SnapshotRequest, request, request_size);
        let proof_over = too_big(FileKind::Snapshot, proof, proof_size);
        let refused = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let request_words = refused(request);
        let proof_words = refused(proof);
        let found = |there: u32, refused: u32| Given {
            there: present & there != 0,
            refused: present & refused != 0,
        };
        Some(snapshot_state(
            found(REQUEST, REQUEST_REFUSED).file(
                request,
                request_mtime,
                &request_words,
                request_over.as_deref(),
            ),
            found(PROOF, PROOF_REFUSED).file(
                proof,
                proof_mtime,
                &proof_words,
                proof_over.as_deref(),
            ),
        ))
    })
}
