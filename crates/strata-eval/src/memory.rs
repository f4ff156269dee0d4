//! Peak resident memory of this process, from `/proc` (Linux). Elsewhere both functions do
//! nothing and the report says the peak is unknown.

/// Resets the peak (`VmHWM`) to the current resident size, so that the next reading is the
/// peak of what runs in between.
pub fn reset_peak() {
    // Writing 5 to clear_refs resets the peak RSS (Linux ≥ 4.0); failure only loses precision.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident memory in bytes since the start or the last [`reset_peak`].
pub fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
