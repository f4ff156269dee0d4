//! The fuzz budgets, measured: a counting allocator for the peak heap a read holds, and the
//! thread's CPU time for what it costs (the readers run on the calling thread). Every test
//! of the binary runs alone ([`alone`]), so that no other test's allocations count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Counts the bytes live on the heap and their peak.
pub struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALONE: Mutex<()> = Mutex::new(());

// SAFETY: every call is passed to `System` unchanged; only the counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(live, Relaxed);
}

/// What one input may cost: the fuzz runs' `-rss_limit_mb=256 -timeout=2` by default.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Heap bytes held at the peak, above what was live before the read.
    pub heap: usize,
    /// CPU time of the process.
    pub cpu: Duration,
}

impl Budget {
    pub const FUZZ: Budget = Budget { heap: 256 << 20, cpu: Duration::from_secs(2) };
}

/// What one read cost.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    pub heap: usize,
    pub cpu: Duration,
}

impl Cost {
    /// Why this cost is over `budget`, if it is.
    pub fn over(&self, budget: Budget) -> Option<String> {
        let mb = |b: usize| b as f64 / (1 << 20) as f64;
        if self.heap > budget.heap {
            return Some(format!(
                "peak heap {:.0} MB over its budget of {:.0} MB",
                mb(self.heap),
                mb(budget.heap)
            ));
        }
        if self.cpu > budget.cpu {
            return Some(format!(
                "{:.2} s of CPU over its budget of {:.2} s",
                self.cpu.as_secs_f64(),
                budget.cpu.as_secs_f64()
            ));
        }
        None
    }
}

/// Held by a test for as long as it runs: the tests of this binary run one at a time.
pub struct Alone(#[allow(dead_code)] MutexGuard<'static, ()>);

/// Waits until no other test of this binary runs.
pub fn alone() -> Alone {
    Alone(ALONE.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
}

/// Runs `work` (while the test holds [`alone`]) and says what it cost.
pub fn measure<T>(_alone: &Alone, work: impl FnOnce() -> T) -> (T, Cost) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let start = cpu_time();
    let out = work();
    let cpu = cpu_time().saturating_sub(start);
    let heap = PEAK.load(Relaxed).saturating_sub(base);
    (out, Cost { heap, cpu })
}

/// The CPU time the calling thread has used.
fn cpu_time() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write to; the clock id is a constant of the platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}
