#!/usr/bin/env bash
# Lays the seed corpora of the fuzz targets under fuzz/corpus/<target>/ (never committed):
#
# - small files of the shared test corpus (shared/data/corpus beside the repository, or
#   $STRATA_CORPUS): every file up to 300 KB for Markdown, HTML and plain text, the two
#   smallest up to 300 KB for DOCX and PDF;
# - a few tiny inputs made here (a one-page PDF, a one-paragraph DOCX, short markup), which
#   the fuzzer mutates much faster than whole documents. The PDF and DOCX ones need python3;
#   without it they are skipped.
#
# Files already there (found by the fuzzer) are kept. Run from anywhere.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="${STRATA_CORPUS:-$here/../../shared/data/corpus}"
out="$here/corpus"
max=$((300 * 1024))

[ -d "$src" ] || { echo "seed.sh: no corpus at $src (set STRATA_CORPUS)" >&2; exit 1; }

# copy DIR TARGET [LIMIT]: files of $src/DIR up to $max bytes, smallest first, at most LIMIT.
copy() {
    local dir=$1 target=$2 limit=${3:-1000000} n=0 size file
    mkdir -p "$out/$target"
    while read -r size file; do
        [ "$size" -le "$max" ] || continue
        [ "$n" -lt "$limit" ] || break
        install -m 0644 "$file" "$out/$target/"
        n=$((n + 1))
    done < <(find "$src/$dir" -maxdepth 1 -type f -printf '%s %p\n' | sort -n)
    echo "read_${target#read_}: $n file(s) from $dir"
}

copy markdown read_markdown
copy html read_html
copy txt read_text
copy docx read_docx 2
copy pdf read_pdf 2

printf '# Title\n\nSome *text*.\n\n## 1.2 Section\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n' \
    >"$out/read_markdown/tiny.md"
printf '<html><head><title>T</title></head><body><h1>One</h1><p>a &amp; b</p><h2>Two</h2><table><tr><td>x</td></tr></table><pre>p</pre></body></html>' \
    >"$out/read_html/tiny.html"
printf 'RFC 1234                 Title                  May 2020\n\n1.  Introduction\n\n   Body text.\n\n\f\n1.1.  More\n\n   Text [Page 2]\n' \
    >"$out/read_text/tiny.txt"

if command -v python3 >/dev/null; then
    python3 - "$out" <<'PY'
import io, sys, zipfile

out = sys.argv[1]

# A two-page PDF with a Type1 font, an outline and page labels; xref offsets computed.
contents = [b"BT /F1 18 Tf 72 720 Td (1. Introduction) Tj /F1 11 Tf 0 -20 Td (Some text.) Tj ET",
            b"BT /F1 11 Tf 72 720 Td [(More) -250 (text)] TJ T* (on page two) ' ET"]
objs = [
    b"<< /Type /Catalog /Pages 2 0 R /Outlines 8 0 R /PageLabels << /Nums [0 << /S /r >> 1 << /S /D >>] >> >>",
    b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 6 0 R /Resources << /Font << /F1 7 0 R >> >> >>",
    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(contents[0]), contents[0]),
    b"<< /Length %d >>\nstream\n%s\nendstream" % (len(contents[1]), contents[1]),
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    b"<< /Type /Outlines /First 9 0 R /Last 9 0 R /Count 1 >>",
    b"<< /Title (Introduction) /Parent 8 0 R /Dest [3 0 R /Fit] >>",
]
pdf = io.BytesIO()
pdf.write(b"%PDF-1.5\n")
offsets = []
for i, body in enumerate(objs, 1):
    offsets.append(pdf.tell())
    pdf.write(b"%d 0 obj\n%s\nendobj\n" % (i, body))
xref = pdf.tell()
pdf.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1))
for off in offsets:
    pdf.write(b"%010d 00000 n \n" % off)
pdf.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref))
open(f"{out}/read_pdf/tiny.pdf", "wb").write(pdf.getvalue())

# A DOCX package: a heading style, numbering, a footnote and a table.
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = 'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"'
parts = {
    "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    "_rels/.rels": f'<?xml version="1.0"?><Relationships {R}><Relationship Id="rId1" '
        'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    "word/_rels/document.xml.rels": f'<?xml version="1.0"?><Relationships {R}>'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>'
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>'
        '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>',
    "word/document.xml": f'<?xml version="1.0"?><w:document {W}><w:body>'
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>Scope</w:t></w:r></w:p>'
        '<w:p><w:r><w:t xml:space="preserve">Body text </w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r></w:p>'
        '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>'
        '<w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Details</w:t></w:r></w:p></w:body></w:document>',
    "word/styles.xml": f'<?xml version="1.0"?><w:styles {W}>'
        '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
        '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style></w:styles>',
    "word/numbering.xml": f'<?xml version="1.0"?><w:numbering {W}><w:abstractNum w:abstractNumId="0">'
        '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl></w:abstractNum>'
        '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>',
    "word/footnotes.xml": f'<?xml version="1.0"?><w:footnotes {W}><w:footnote w:id="2"><w:p><w:r><w:t>A note.</w:t></w:r></w:p></w:footnote></w:footnotes>',
}
with zipfile.ZipFile(f"{out}/read_docx/tiny.docx", "w", zipfile.ZIP_DEFLATED) as z:
    for name, xml in parts.items():
        z.writestr(name, xml)
PY
    echo "read_pdf, read_docx: tiny generated seeds"
else
    echo "seed.sh: python3 not found; no generated PDF and DOCX seeds" >&2
fi
