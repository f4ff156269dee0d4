//! Tesseract through its C API (`capi.h`), loaded at run time from `libtesseract.so.5`.
//!
//! Loading at run time instead of linking keeps the binary building and running on a
//! machine without Tesseract (the demo, a fresh checkout): only OCR needs it, and its
//! absence is a message saying how to install it. The API used is small and stable since
//! Tesseract 4: create, init with languages, set an 8-bit gray image, recognize, then walk
//! the words with a result iterator for their text, box, baseline and confidence.

use std::ffi::{c_char, c_float, c_int, c_void, CStr, CString};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use libloading::Library;

/// The library names tried, in order.
const LIBRARIES: &[&str] =
    &["libtesseract.so.5", "libtesseract.so", "libtesseract.5.dylib", "libtesseract.dylib"];

/// `TessPageIteratorLevel`: `RIL_TEXTLINE` and `RIL_WORD`.
const RIL_TEXTLINE: c_int = 2;
const RIL_WORD: c_int = 3;
/// `PSM_AUTO`: page segmentation without orientation detection.
const PSM_AUTO: c_int = 3;

type Handle = *mut c_void;

/// The functions of the C API strata calls, resolved once.
struct Api {
    _lib: Library,
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    init3: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_psm: unsafe extern "C" fn(Handle, c_int),
    set_variable: unsafe extern "C" fn(Handle, *const c_char, *const c_char) -> c_int,
    set_image: unsafe extern "C" fn(Handle, *const u8, c_int, c_int, c_int, c_int),
    set_resolution: unsafe extern "C" fn(Handle, c_int),
    recognize: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    iterator: unsafe extern "C" fn(Handle) -> Handle,
    clear: unsafe extern "C" fn(Handle),
    it_delete: unsafe extern "C" fn(Handle),
    it_next: unsafe extern "C" fn(Handle, c_int) -> c_int,
    it_text: unsafe extern "C" fn(Handle, c_int) -> *mut c_char,
    it_confidence: unsafe extern "C" fn(Handle, c_int) -> c_float,
    it_page: unsafe extern "C" fn(Handle) -> Handle,
    bounding_box:
        unsafe extern "C" fn(Handle, c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    baseline: unsafe extern "C" fn(Handle, c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    delete_text: unsafe extern "C" fn(*const c_char),
    version: unsafe extern "C" fn() -> *const c_char,
    /// The progress monitor that carries a deadline (`ETEXT_DESC`), when the library has it.
    monitor: Option<Monitor>,
}

/// `TessMonitorCreate`, `TessMonitorDelete` and `TessMonitorSetDeadlineMSecs`.
struct Monitor {
    create: unsafe extern "C" fn() -> Handle,
    delete: unsafe extern "C" fn(Handle),
    set_deadline: unsafe extern "C" fn(Handle, c_int),
}

impl Api {
    /// Opens the library and resolves every symbol; `None` when either fails.
    fn load() -> Option<Api> {
        // libgomp reads its limit once, when it is loaded with Tesseract just below. A program
        // that did not call `limit_openmp_threads` at its start gets the limit here, where
        // other threads may be running (see there).
        super::limit_openmp_threads();
        // SAFETY: loading Tesseract runs its (C++) static initializers only.
        let lib = LIBRARIES.iter().find_map(|name| unsafe { Library::new(*name) }.ok())?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the signature is the one `capi.h` declares for this name.
                *unsafe { lib.get($name) }.ok()?
            };
        }
        Some(Api {
            create: sym!(b"TessBaseAPICreate\0"),
            delete: sym!(b"TessBaseAPIDelete\0"),
            init3: sym!(b"TessBaseAPIInit3\0"),
            set_psm: sym!(b"TessBaseAPISetPageSegMode\0"),
            set_variable: sym!(b"TessBaseAPISetVariable\0"),
            set_image: sym!(b"TessBaseAPISetImage\0"),
            set_resolution: sym!(b"TessBaseAPISetSourceResolution\0"),
            recognize: sym!(b"TessBaseAPIRecognize\0"),
            iterator: sym!(b"TessBaseAPIGetIterator\0"),
            clear: sym!(b"TessBaseAPIClear\0"),
            it_delete: sym!(b"TessResultIteratorDelete\0"),
            it_next: sym!(b"TessResultIteratorNext\0"),
            it_text: sym!(b"TessResultIteratorGetUTF8Text\0"),
            it_confidence: sym!(b"TessResultIteratorConfidence\0"),
            it_page: sym!(b"TessResultIteratorGetPageIterator\0"),
            bounding_box: sym!(b"TessPageIteratorBoundingBox\0"),
            baseline: sym!(b"TessPageIteratorBaseline\0"),
            delete_text: sym!(b"TessDeleteText\0"),
            version: sym!(b"TessVersion\0"),
            monitor: Monitor::load(&lib),
            _lib: lib,
        })
    }
}

impl Monitor {
    /// The monitor's functions, `None` when the library lacks one (Tesseract before 4.1).
    fn load(lib: &Library) -> Option<Monitor> {
        // SAFETY: the signatures are the ones `capi.h` declares for these names.
        unsafe {
            Some(Monitor {
                create: *lib.get(b"TessMonitorCreate\0").ok()?,
                delete: *lib.get(b"TessMonitorDelete\0").ok()?,
                set_deadline: *lib.get(b"TessMonitorSetDeadlineMSecs\0").ok()?,
            })
        }
    }
}

fn api() -> Option<&'static Api> {
    static API: OnceLock<Option<Api>> = OnceLock::new();
    API.get_or_init(|| {
        let api = Api::load()?;
        quiet_leptonica();
        Some(api)
    })
    .as_ref()
}

/// Leptonica, Tesseract's image library, prints its errors (`Error in pixScanForForeground`
/// on a blank page) on stderr, through an ingest's progress bar; at its lowest severity it
/// prints none. strata reports what matters (a page OCR could not read) itself.
fn quiet_leptonica() {
    /// `L_SEVERITY_NONE` in leptonica's `environ.h`.
    const NONE: c_int = 6;
    for name in ["liblept.so.5", "libleptonica.so.6", "libleptonica.so"] {
        // SAFETY: leptonica is loaded already as Tesseract's dependency; this adds a
        // reference, kept for the life of the process (leaked) as Tesseract's is.
        let Ok(lib) = (unsafe { Library::new(name) }) else { continue };
        // SAFETY: `l_int32 setMsgSeverity(l_int32)`, as `allheaders.h` declares it.
        if let Ok(set) = unsafe { lib.get::<unsafe extern "C" fn(c_int) -> c_int>(b"setMsgSeverity\0") } {
            // SAFETY: sets a global threshold; called once, before any OCR worker runs.
            unsafe { set(NONE) };
        }
        std::mem::forget(lib);
        return;
    }
}

/// Tesseract's version, when the library loads.
pub(crate) fn version() -> Option<String> {
    let api = api()?;
    // SAFETY: TessVersion returns a static NUL-terminated string.
    let v = unsafe { CStr::from_ptr((api.version)()) };
    Some(v.to_string_lossy().into_owned())
}

/// A word Tesseract read, in pixels of the image (origin top left).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Word {
    pub text: String,
    /// Left, top, right, bottom of the word's box.
    pub bbox: [i32; 4],
    /// Top of the word's text line's box.
    pub line_top: i32,
    /// The line's baseline under the middle of the word.
    pub baseline: i32,
    /// Tesseract's confidence, 0 to 100.
    pub confidence: f32,
}

/// An 8-bit gray image, one byte per pixel, rows top down.
pub(crate) struct Gray {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

/// One Tesseract instance, initialized with its languages. Not shared between threads: each
/// OCR worker holds its own.
pub(crate) struct Engine {
    api: &'static Api,
    handle: Handle,
}

// SAFETY: a TessBaseAPI may move between threads; it is only never used by two at once,
// which `&mut self` on every call guarantees.
unsafe impl Send for Engine {}

/// Why Tesseract cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unavailable {
    /// The library is not installed.
    Missing,
    /// It is, but the languages are not (no `.traineddata`).
    Languages(String),
}

impl Engine {
    /// Loads Tesseract and initializes it for `languages` (`eng`, `eng+deu`).
    pub fn new(languages: &str) -> Result<Engine, Unavailable> {
        let api = api().ok_or(Unavailable::Missing)?;
        let langs = CString::new(languages).map_err(|_| Unavailable::Languages(languages.to_string()))?;
        // SAFETY: create returns an owned handle that Drop deletes.
        let engine = Engine { api, handle: unsafe { (api.create)() } };
        // SAFETY: a valid handle, a NUL-terminated language string, the default data path.
        if unsafe { (api.init3)(engine.handle, std::ptr::null(), langs.as_ptr()) } != 0 {
            return Err(Unavailable::Languages(languages.to_string()));
        }
        // SAFETY: valid handle; the variable names and values are NUL-terminated literals.
        unsafe {
            (api.set_psm)(engine.handle, PSM_AUTO);
            // Spaces between words come from their boxes; keep Tesseract from padding.
            (api.set_variable)(engine.handle, c"preserve_interword_spaces".as_ptr(), c"0".as_ptr());
            // Its notes ("Empty page!!", "Estimating resolution as …") are not for the user.
            (api.set_variable)(engine.handle, c"debug_file".as_ptr(), c"/dev/null".as_ptr());
        }
        Ok(engine)
    }

    /// Recognizes one page image at `dpi` within `deadline` and returns its words in
    /// Tesseract's reading order; the error says why it could not.
    pub fn words(&mut self, image: &Gray, dpi: u32, deadline: Duration) -> Result<Vec<Word>, String> {
        let started = Instant::now();
        let words = self.recognize(image, dpi, deadline);
        // Past the deadline the monitor stops recognition (Tesseract returns what it read, or
        // fails): either way the page is not read whole.
        if started.elapsed() >= deadline {
            return Err(format!(
                "Tesseract took more than {} s to read it ([ingest] ocr_recognize_seconds)",
                deadline.as_secs()
            ));
        }
        words.ok_or_else(|| "Tesseract could not read the page image".to_string())
    }

    /// Recognizes one page, stopped at `deadline` when the library has a monitor.
    fn recognize(&mut self, image: &Gray, dpi: u32, deadline: Duration) -> Option<Vec<Word>> {
        let (w, h) = (c_int::try_from(image.width).ok()?, c_int::try_from(image.height).ok()?);
        if image.pixels.len() < image.width * image.height || w == 0 || h == 0 {
            return None;
        }
        let api = self.api;
        // SAFETY: the pixel buffer outlives the call (Tesseract copies it into its own image),
        // and width × height bytes of it are readable, one byte a pixel, `w` bytes a row.
        unsafe {
            (api.set_image)(self.handle, image.pixels.as_ptr(), w, h, 1, w);
            (api.set_resolution)(self.handle, dpi as c_int);
            let monitor = api.monitor.as_ref().map(|m| {
                let handle = (m.create)();
                let ms = c_int::try_from(deadline.as_millis()).unwrap_or(c_int::MAX);
                (m.set_deadline)(handle, ms);
                (m, handle)
            });
            let failed = (api.recognize)(self.handle, monitor.map_or(std::ptr::null_mut(), |(_, h)| h)) != 0;
            if let Some((m, handle)) = monitor {
                (m.delete)(handle);
            }
            if failed {
                (api.clear)(self.handle);
                return None;
            }
        }
        // SAFETY: the iterator belongs to us and is deleted below; the handle stays alive.
        let it = unsafe { (api.iterator)(self.handle) };
        let words = if it.is_null() { Vec::new() } else { self.walk(it) };
        // SAFETY: `it` came from GetIterator (or is null, which Delete accepts).
        unsafe {
            if !it.is_null() {
                (api.it_delete)(it);
            }
            (api.clear)(self.handle);
        }
        Some(words)
    }

    /// The words of a recognized page, from a result iterator at its first word.
    fn walk(&self, it: Handle) -> Vec<Word> {
        let api = self.api;
        let mut out = Vec::new();
        loop {
            // SAFETY: `it` is a live result iterator; the text it returns is ours to free.
            unsafe {
                let page = (api.it_page)(it);
                let text = (api.it_text)(it, RIL_WORD);
                if !text.is_null() {
                    let s = CStr::from_ptr(text).to_string_lossy().trim().to_string();
                    (api.delete_text)(text);
                    let mut b = [0; 4];
                    let mut line = [0; 4];
                    let mut base = [0; 4];
                    let boxed =
                        (api.bounding_box)(page, RIL_WORD, &mut b[0], &mut b[1], &mut b[2], &mut b[3]) != 0;
                    (api.bounding_box)(
                        page,
                        RIL_TEXTLINE,
                        &mut line[0],
                        &mut line[1],
                        &mut line[2],
                        &mut line[3],
                    );
                    let has_base = (api.baseline)(
                        page,
                        RIL_TEXTLINE,
                        &mut base[0],
                        &mut base[1],
                        &mut base[2],
                        &mut base[3],
                    ) != 0;
                    if boxed && !s.is_empty() {
                        let baseline = if has_base { at_x(base, (b[0] + b[2]) / 2) } else { b[3] };
                        out.push(Word {
                            text: s,
                            bbox: b,
                            line_top: line[1],
                            baseline,
                            confidence: (api.it_confidence)(it, RIL_WORD),
                        });
                    }
                }
                if (api.it_next)(it, RIL_WORD) == 0 {
                    break;
                }
            }
        }
        out
    }
}

/// The y of the line through `(x1, y1)` and `(x2, y2)` at `x`.
fn at_x([x1, y1, x2, y2]: [i32; 4], x: i32) -> i32 {
    if x2 == x1 {
        return y1.max(y2);
    }
    let t = (x - x1) as f64 / (x2 - x1) as f64;
    (y1 as f64 + t * (y2 - y1) as f64).round() as i32
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: the handle came from create and is deleted once (End is called by Delete).
        unsafe { (self.api.delete)(self.handle) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 53: recognition had no time bound. Tesseract's monitor carries the deadline,
    /// and a page past it is an error naming the setting, whatever Tesseract returned.
    #[test]
    fn regression_a_page_past_its_recognition_deadline_is_an_error() {
        let Ok(mut engine) = Engine::new("eng") else {
            assert!(std::env::var("STRATA_REQUIRE_OCR").is_err(), "Tesseract with eng is required");
            return eprintln!("skipping: Tesseract with eng is not installed");
        };
        assert!(engine.api.monitor.is_some(), "this Tesseract has no TessMonitorSetDeadlineMSecs");
        let blank = || Gray { width: 100, height: 100, pixels: vec![255; 10_000] };
        let err = engine.words(&blank(), 300, Duration::ZERO).unwrap_err();
        assert!(err.contains("[ingest] ocr_recognize_seconds"), "{err}");
        // The engine reads the next page as before.
        assert!(engine.words(&blank(), 300, Duration::from_secs(30)).is_ok());
    }

    #[test]
    fn baseline_is_interpolated_under_the_word() {
        assert_eq!(at_x([0, 100, 200, 110], 100), 105);
        assert_eq!(at_x([50, 100, 50, 104], 60), 104);
    }
}
