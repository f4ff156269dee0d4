#!/usr/bin/env python3
"""Writes the hostile inputs of issues 53 and 55 into a folder, one file each (no dependencies).

Usage: bombs.py DIR

- content-ops.pdf: one page, a line of text and then `q Q` 4,194,304 times, Flate-compressed
  (17 KB on disk, 16 MB inflated, 8.4M operators);
- image-huge.pdf: one page drawing an image XObject that declares 100000 x 100000 DeviceRGB
  over 1,000 zero bytes (no text layer: OCR renders it);
- page-huge.pdf: two image-only pages with MediaBox [0 0 7200 10800] (100 x 150 inches);
- speckles.pdf: one Letter page, an image of speckles (one pixel in seven dark, 2550 x 3300,
  300 dpi): Tesseract's page layout analysis takes minutes on it;
- headings.md: `# a` lines up to 60 MB (15.7M headings);
- outline.docx: 3.54M one-letter paragraphs at outline level 1;
- backticks.md: `T`, a blank line, then runs of 1 to 1,999 backticks (2 MB in one paragraph;
  issue 55: sentence splitting took the square of its length).
"""
import io
import sys
import zipfile
import zlib
from pathlib import Path


def pdf(objects):
    """A PDF file of `objects` (bytes bodies, numbered from 1; object 1 the catalog)."""
    out = io.BytesIO()
    out.write(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for o in offsets:
        out.write(b"%010d 00000 n \n" % o)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def stream(dictionary, data, compress=False):
    if compress:
        data = zlib.compress(data, 9)
        dictionary += b" /Filter /FlateDecode"
    return b"<< %s /Length %d >>\nstream\n" % (dictionary, len(data)) + data + b"\nendstream"


def pages(kids, box):
    refs = b" ".join(b"%d 0 R" % k for k in kids)
    return b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox %s >>" % (refs, len(kids), box)


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def content_ops():
    text = b"BT /F1 12 Tf 72 720 Td (A page whose text comes before four million saves.) Tj ET\n"
    body = text + b"q Q\n" * 4_194_304
    return pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        pages([3], b"[0 0 612 792]"),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        stream(b"", body, compress=True),
        FONT,
    ])


def image_huge():
    return letter_page_of(stream(b"/Type /XObject /Subtype /Image /Width 100000 /Height 100000 "
                                 b"/ColorSpace /DeviceRGB /BitsPerComponent 8", b"\0" * 1000))


def letter_page_of(image):
    """A PDF of one Letter page that draws `image` (an image XObject) over the whole page."""
    return pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        pages([3], b"[0 0 612 792]"),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /XObject << /Im0 5 0 R >> >> >>",
        stream(b"", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        image,
    ])


def page_huge():
    image = stream(b"/Type /XObject /Subtype /Image /Width 8 /Height 8 /ColorSpace /DeviceGray "
                   b"/BitsPerComponent 8", bytes(range(64)))
    page = b"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /XObject << /Im0 6 0 R >> >> >>"
    return pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        pages([3, 4], b"[0 0 7200 10800]"),
        page,
        page,
        stream(b"", b"q 7200 0 0 10800 0 0 cm /Im0 Do Q"),
        image,
    ])


def speckles():
    width, height, state, dark = 2550, 3300, 0x2545F491, bytearray()
    # The same xorshift as the speckle test in `ocr/tesseract.rs`, so both read one page.
    for _ in range(width * height):
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        dark.append(0 if state % 7 == 0 else 255)
    return letter_page_of(stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
                                 b"/BitsPerComponent 8" % (width, height), bytes(dark), compress=True))


def backticks():
    return b"T\n\n" + b"".join(b"`" * i + b" " for i in range(1, 2000))


def headings():
    return b"# a\n" * (60 * 1024 * 1024 // 4)


def outline_docx():
    paragraph = b'<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>a</w:t></w:r></w:p>'
    body = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
            + paragraph * 3_540_000 + b"</w:body></w:document>")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml",
                   '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                   '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
                   '<Default Extension="xml" ContentType="application/xml"/>'
                   '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
        z.writestr("_rels/.rels",
                   '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                   '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>')
        z.writestr("word/document.xml", body)
    return out.getvalue()


BOMBS = {
    "content-ops.pdf": content_ops,
    "image-huge.pdf": image_huge,
    "page-huge.pdf": page_huge,
    "speckles.pdf": speckles,
    "headings.md": headings,
    "outline.docx": outline_docx,
    "backticks.md": backticks,
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for name, make in BOMBS.items():
        data = make()
        (out / name).write_bytes(data)
        print(f"{name}: {len(data):,} bytes")


if __name__ == "__main__":
    main()
