//! The hostile inputs of issue 53 that reach a reader, made here as
//! `scripts/bench/bombs.py` makes them for the whole ingest (the PDF content stream is left
//! uncompressed: the reader sees the same operators).

use std::io::Write;

use strata_core::Format;

/// One hostile input and what reading it may cost at most (the targets, or the fuzz
/// budget when it set none).
pub struct Bomb {
    pub name: &'static str,
    pub format: Format,
    pub bytes: Vec<u8>,
    /// Peak heap in MB.
    pub heap_mb: usize,
    /// CPU seconds.
    pub cpu_secs: u64,
}

/// Every bomb, made anew. The large ones' budgets are the memory targets and about
/// twice the CPU time they take here.
pub fn all() -> Vec<Bomb> {
    vec![
        Bomb {
            name: "content-ops.pdf",
            format: Format::Pdf,
            bytes: content_ops(),
            heap_mb: 300,
            cpu_secs: 2,
        },
        Bomb { name: "image-huge.pdf", format: Format::Pdf, bytes: image_huge(), heap_mb: 256, cpu_secs: 2 },
        Bomb { name: "page-huge.pdf", format: Format::Pdf, bytes: page_huge(), heap_mb: 256, cpu_secs: 2 },
        Bomb {
            name: "headings.md",
            format: Format::Markdown,
            bytes: headings(),
            heap_mb: 1024,
            cpu_secs: 20,
        },
        Bomb {
            name: "outline.docx",
            format: Format::Docx,
            bytes: outline_docx(),
            heap_mb: 1024,
            cpu_secs: 20,
        },
    ]
}

/// A PDF of `objects` (bodies numbered from 1; object 1 the catalog), offsets computed.
fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.5\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        writeln!(out, "{} 0 obj", i + 1).unwrap();
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).unwrap();
    for o in offsets {
        writeln!(out, "{o:010} 00000 n ").unwrap();
    }
    write!(out, "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1)
        .unwrap();
    out
}

fn stream(dictionary: &str, data: &[u8]) -> Vec<u8> {
    let mut out = format!("<< {dictionary} /Length {} >>\nstream\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\nendstream");
    out
}

fn pages(kids: &[usize], media_box: &str) -> Vec<u8> {
    let refs: Vec<String> = kids.iter().map(|k| format!("{k} 0 R")).collect();
    format!("<< /Type /Pages /Kids [{}] /Count {} /MediaBox {media_box} >>", refs.join(" "), kids.len())
        .into_bytes()
}

const CATALOG: &[u8] = b"<< /Type /Catalog /Pages 2 0 R >>";
const FONT: &[u8] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// One page: a line of text, then `q Q` 4,194,304 times (8.4M operators).
fn content_ops() -> Vec<u8> {
    let mut body =
        b"BT /F1 12 Tf 72 720 Td (A page whose text comes before four million saves.) Tj ET\n".to_vec();
    body.extend_from_slice(&b"q Q\n".repeat(4_194_304));
    pdf(&[
        CATALOG.to_vec(),
        pages(&[3], "[0 0 612 792]"),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_vec(),
        stream("", &body),
        FONT.to_vec(),
    ])
}

/// One page drawing an image that declares 100000 × 100000 DeviceRGB over 1,000 bytes.
fn image_huge() -> Vec<u8> {
    let image = "/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8";
    pdf(&[
        CATALOG.to_vec(),
        pages(&[3], "[0 0 612 792]"),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >> >>"
            .to_vec(),
        stream("", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        stream(image, &[0; 1000]),
    ])
}

/// Two image-only pages of MediaBox `[0 0 7200 10800]`.
fn page_huge() -> Vec<u8> {
    let image =
        "/Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray /BitsPerComponent 8";
    let page = b"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /XObject << /Im0 6 0 R >> >> >>";
    pdf(&[
        CATALOG.to_vec(),
        pages(&[3, 4], "[0 0 7200 10800]"),
        page.to_vec(),
        page.to_vec(),
        stream("", b"q 7200 0 0 10800 0 0 cm /Im0 Do Q"),
        stream(image, &(0..64).collect::<Vec<u8>>()),
    ])
}

/// `# a` lines up to 60 MB (15.7M headings).
fn headings() -> Vec<u8> {
    b"# a\n".repeat(60 * 1024 * 1024 / 4)
}

/// 3.54M one-letter paragraphs at outline level 1, in a DOCX package.
fn outline_docx() -> Vec<u8> {
    const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
    const P: &str = "<w:p><w:pPr><w:outlineLvl w:val=\"0\"/></w:pPr><w:r><w:t>a</w:t></w:r></w:p>";
    let mut document = format!("<?xml version=\"1.0\"?><w:document xmlns:w=\"{W}\"><w:body>");
    document.push_str(&P.repeat(3_540_000));
    document.push_str("</w:body></w:document>");
    let types = "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
        <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
        <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
        <Override PartName=\"/word/document.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/></Types>";
    let rels = "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
        <Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" Target=\"word/document.xml\"/></Relationships>";
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in
        [("[Content_Types].xml", types), ("_rels/.rels", rels), ("word/document.xml", &document)]
    {
        zip.start_file(name, options).unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap().into_inner()
}
