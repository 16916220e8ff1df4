//! The allocator on Linux: mimalloc, not glibc's. A scan of 100,000 server folders makes
//! tens of millions of small allocations on its worker threads; glibc's allocator was a
//! seventh of its CPU time, and with mimalloc the scan takes about a fifth less wall time
//! (docs/benchmarks-history.md, "Seventh step"). Elsewhere the system allocator stays:
//! the other targets are type-checked from Linux, without a C cross compiler.

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// While a command reads the logs, freed memory goes back to the OS after 10 ms
/// (mimalloc's default delay): reading 100,000 server folders frees and takes pages
/// again all the time, and giving each back at once (a system call, page faults, and a
/// TLB flush on every core when it is taken again) cost a sixth of the reading's time.
pub fn configure() {
    set_purge_delay(READING_PURGE_DELAY_MS);
}

/// From now on, freed memory goes back to the OS at once: `scan` calls this before it
/// makes its screen (its peak: the reports, their rows and the text), so the memory the
/// reading freed is given back first (with the delay, the peak of 100,000 folders was
/// about 15 MiB higher). `scan --json` does not: it writes a few rows at a time, below
/// the reading's peak, and giving each page back at once cost it a fifth of its writing.
pub fn give_back_at_once() {
    set_purge_delay(0);
}

const READING_PURGE_DELAY_MS: std::ffi::c_long = 10;

fn set_purge_delay(ms: std::ffi::c_long) {
    // SAFETY: sets one integer option; mimalloc reads its options when it uses them, so
    // a change at any time is allowed, and no memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms) }
}

/// `mi_option_purge_delay` in mimalloc 2's `mi_option_t` (include/mimalloc.h of the
/// version Cargo.lock pins), which libmimalloc-sys does not name: the option between the
/// two it names `eager_commit_delay` and `use_numa_nodes`.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_set() {
        assert_eq!(
            PURGE_DELAY,
            libmimalloc_sys::mi_option_eager_commit_delay + 1
        );
        assert_eq!(libmimalloc_sys::mi_option_use_numa_nodes, PURGE_DELAY + 1);
        // SAFETY: reads one integer option.
        let delay = || unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) };
        configure();
        assert_eq!(delay(), READING_PURGE_DELAY_MS);
        give_back_at_once();
        assert_eq!(delay(), 0);
    }
}
