//! The OCR page cache: a page OCR'd once is read from the cache after, in the same file or
//! in another one that holds it, and not when the page or the OCR settings differ.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use strata_core::Format;
use strata_ingest::read::pdf::ocr::{OcrOptions, PageCache};
use strata_ingest::read::{reader_with, Parsed};

use super::scan::{self, ocr_ready};
use super::{auto, corpus};

/// A cache in memory that counts the pages put in it.
#[derive(Default)]
struct Memory {
    pages: Mutex<HashMap<String, String>>,
    puts: AtomicUsize,
}

impl PageCache for Memory {
    fn get(&self, keys: &[String]) -> HashMap<String, String> {
        let pages = self.pages.lock().unwrap();
        keys.iter().filter_map(|k| pages.get(k).map(|v| (k.clone(), v.clone()))).collect()
    }

    fn put(&self, key: String, value: String) {
        self.puts.fetch_add(1, Ordering::Relaxed);
        self.pages.lock().unwrap().insert(key, value);
    }
}

impl Memory {
    /// Pages put since the last call.
    fn puts(&self) -> usize {
        self.puts.swap(0, Ordering::Relaxed)
    }
}

fn read(pdf: &[u8], options: &OcrOptions, cache: &Arc<Memory>) -> Parsed {
    let cache: Arc<dyn PageCache> = cache.clone();
    reader_with(Format::Pdf, options, Some(&cache)).unwrap().read(pdf).unwrap()
}

#[test]
fn ocr_cache_reads_a_page_once_and_finds_it_in_another_file() {
    let Some(dir) = corpus() else { return };
    if !ocr_ready() {
        return;
    }
    let source = dir.join("corpus/pdf/aosa-bash-chapter-no-outline.pdf");
    let three = scan::image_only(&source, 1..=3, 150);
    let cache = Arc::new(Memory::default());
    let first = read(&three, &auto(), &cache);
    assert_eq!(cache.puts(), 3, "each page OCR'd once");

    let again = read(&three, &auto(), &cache);
    assert_eq!(cache.puts(), 0, "a re-read OCRs nothing");
    assert_eq!(again.text, first.text);
    assert_eq!(again.ocr, first.ocr, "confidences as first read");
    let titles = |p: &Parsed| p.headings.iter().map(|h| h.title.clone()).collect::<Vec<_>>();
    assert_eq!(titles(&again), titles(&first));

    // Pages 2 and 3 inside another file are the same pages; page 4 is new.
    let other = scan::image_only(&source, 2..=4, 150);
    read(&other, &auto(), &cache);
    assert_eq!(cache.puts(), 1, "only page 4 is OCR'd");

    // What is read comes from the cache: a value changed there is what the reader sees.
    let marked = "Zyzzogeton";
    for value in cache.pages.lock().unwrap().values_mut() {
        if let Some(at) = value.find("[[\"") {
            value.insert_str(at + 3, marked);
        }
    }
    assert!(read(&three, &auto(), &cache).text.contains(marked));

    // Another resolution is another reading.
    let finer = OcrOptions { dpi: 200, ..auto() };
    read(&three, &finer, &cache);
    assert_eq!(cache.puts(), 3, "another dpi OCRs again");
}
