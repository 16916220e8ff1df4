//! The allocator on Linux: mimalloc, not glibc's. A scan of 100,000 server folders makes
//! tens of millions of small allocations on its worker threads; glibc's allocator was a
//! seventh of its CPU time, and with mimalloc the scan takes about a fifth less wall time
//! (BENCHMARKS.md, "Seventh step"). Elsewhere the system allocator stays: the other
//! targets are type-checked from Linux, without a C cross compiler.

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Freed memory goes back to the OS at once, not after mimalloc's default delay of
/// 10 ms: a scan frees its discovery lists while its reports grow, and with the delay
/// the peak resident memory of 100,000 folders was about 10 MiB higher.
pub fn configure() {
    // SAFETY: sets one integer option; mimalloc reads its options when it uses them, so
    // a change at any time is allowed, and no memory is touched.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 0) }
}

/// `mi_option_purge_delay` in mimalloc 2's `mi_option_t` (include/mimalloc.h of the
/// version Cargo.lock pins), which libmimalloc-sys does not name: the option between the
/// two it names `eager_commit_delay` and `use_numa_nodes`.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_configured() {
        assert_eq!(
            PURGE_DELAY,
            libmimalloc_sys::mi_option_eager_commit_delay + 1
        );
        assert_eq!(libmimalloc_sys::mi_option_use_numa_nodes, PURGE_DELAY + 1);
        configure();
        // SAFETY: reads one integer option.
        assert_eq!(unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) }, 0);
    }
}
