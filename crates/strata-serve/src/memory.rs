//! Handing freed memory back to the system.
//!
//! glibc's allocator keeps the pages of freed small allocations in its arenas: after
//! thousands of MCP sessions closed, their memory was free inside the process (the next
//! thousand reused it) but the server's RSS stayed where the flood had taken it.
//! `malloc_trim` returns what is free at the top of each arena and whole free pages inside.

/// Returns the allocator's free memory to the system, where the allocator allows it.
pub fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; it takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}
