//! The module's allocator: the standard one (dlmalloc), its memory grown by an eighth of its
//! size at least, never by one 64 KiB page at a time.
//!
//! dlmalloc asks `memory.grow` for just the pages a request lacks. An engine pays for every
//! growth of a memory (V8 makes a new `ArrayBuffer`, tells its heap of the outside memory
//! and, past a few tens of MB, collects garbage), so a memory grown a page at a time to
//! hundreds of MB costs time quadratic in its size: a page holding thousands of runs'
//! digests spent most of its time there. Here, whenever a request made the memory grow,
//! room for an eighth more is asked for at once and given straight back: dlmalloc grows its
//! top by that much in one `memory.grow` and keeps it for the requests to come. The pages
//! are only reserved: an engine's memory is zero pages until written.

use std::alloc::{GlobalAlloc, Layout, System};
use std::arch::wasm32::memory_size;

const PAGE: usize = 64 * 1024;
/// Below this, the memory grows as dlmalloc asks (a small module stays small).
const SMALL: usize = 16 << 20;

pub struct Roomy;

impl Roomy {
    /// After a request that grew the memory from `before` pages: room for an eighth more.
    ///
    /// # Safety
    /// Called from the allocator's own methods only, with no allocation of ours under way.
    unsafe fn grown(before: usize) {
        let now = memory_size(0);
        if now <= before || now * PAGE < SMALL {
            return;
        }
        if let Ok(room) = Layout::from_size_align(now * PAGE / 8, 16) {
            let made = System.alloc(room);
            if !made.is_null() {
                System.dealloc(made, room);
            }
        }
    }
}

// SAFETY: every request goes to `System` unchanged (its pointers, sizes and alignments are
// those the caller gave); the room asked for in `grown` is a separate allocation, given back
// before the caller's pointer is returned.
unsafe impl GlobalAlloc for Roomy {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let before = memory_size(0);
        let made = System.alloc(layout);
        Self::grown(before);
        made
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let before = memory_size(0);
        let made = System.alloc_zeroed(layout);
        Self::grown(before);
        made
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let before = memory_size(0);
        let made = System.realloc(ptr, layout, new_size);
        Self::grown(before);
        made
    }
}
