// Converts Debian-shipped HTML documentation into one Markdown file per page
// (git-doc) or per top-level section (Debian Reference), each starting with
// a "# Title" line, as a site author would feed them to vesper.
//
//   node convert.mjs git    SRC_DIR OUT_DIR PAGE.html...
//   node convert.mjs debref SRC_DIR OUT_DIR LANG
//
// No dependencies: the HTML of both sources is machine-generated (asciidoc,
// docbook-xsl) and regular enough for a tag stripper.
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', mdash: '—', ndash: '–', hellip: '…', copy: '©', rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“' };
// Sections shorter than this (after conversion) are navigation remnants.
const MIN_CHARS = 200;

function decode(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

// HTML fragment -> Markdown-ish plain text: headings become "##", list
// items "- ", table cells are joined with " | ", <pre> keeps its lines.
export function htmlToText(html) {
  let s = html
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  const pres = [];
  s = s.replace(/<pre\b[^>]*>([\s\S]*?)<\/pre>/gi, (m, body) => {
    pres.push(decode(body.replace(/<[^>]+>/g, '')).replace(/\s+$/, ''));
    return `\n\u0000${pres.length - 1}\u0000\n`;
  });
  s = s
    .replace(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi, (m, lvl, body) => `\n\n${'#'.repeat(Math.max(2, Number(lvl)))} ${body.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()}\n\n`)
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<\/t[dh]>\s*<t[dh]\b[^>]*>/gi, ' | ')
    .replace(/<(br|hr)\b[^>]*>/gi, '\n')
    .replace(/<\/?(p|div|tr|table|ul|ol|dl|dt|dd|blockquote|thead|tbody)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '');
  s = decode(s)
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\u0000(\d+)\u0000/g, (m, i) => '```\n' + pres[Number(i)] + '\n```');
  return s.trim();
}

const stripTags = (s) => decode(s.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ').trim();

// git-doc (asciidoc): the title is the NAME line ("git-add - Add file
// contents to the index", in the header); the body is div#content
// without the footer.
function convertGit(src, out, pages) {
  for (const page of pages) {
    const html = readFileSync(join(src, page), 'utf8');
    const content = html.slice(html.indexOf('<div id="content">'), html.lastIndexOf('<div id="footer">'));
    const nameMatch = html.match(/<h2>NAME<\/h2>\s*<div class="sectionbody">\s*<p>([\s\S]*?)<\/p>/i);
    const h1 = html.match(/<h1>([\s\S]*?)<\/h1>/i);
    const title = nameMatch ? stripTags(nameMatch[1]) : stripTags(h1?.[1] ?? page);
    const body = htmlToText(content);
    writeFileSync(join(out, page.replace(/\.html$/, '.md')), `# ${title}\n\n${body}\n`);
  }
}

// Debian Reference (docbook): one file per "N.M." section (<h2>), named
// chNN-MM.md; the chapter's table of contents before the first section is
// navigation and is dropped.
function convertDebref(src, out, lang) {
  const chapters = readdirSync(src).filter((f) => new RegExp(`^(ch\\d\\d|apa)\\.${lang}\\.html$`).test(f)).sort();
  for (const file of chapters) {
    const html = readFileSync(join(src, file), 'utf8');
    const end = html.indexOf('<div class="navfooter">');
    const body = html.slice(0, end < 0 ? html.length : end);
    const starts = [...body.matchAll(/<div class="section">\s*<div class="titlepage">\s*<div>\s*<div>\s*<h2 class="title"/g)].map((m) => m.index);
    starts.forEach((start, i) => {
      const part = body.slice(start, starts[i + 1] ?? body.length);
      const title = stripTags(part.match(/<h2 class="title"[^>]*>([\s\S]*?)<\/h2>/)[1]);
      const text = htmlToText(part).replace(/^## [^\n]*\n*/, '');
      if (text.length < MIN_CHARS) return;
      const chapter = file.slice(0, file.indexOf('.'));
      writeFileSync(join(out, `${chapter}-${String(i + 1).padStart(2, '0')}.md`), `# ${title}\n\n${text}\n`);
    });
  }
}

const [mode, src, out, ...rest] = process.argv.slice(2);
mkdirSync(out, { recursive: true });
if (mode === 'git') convertGit(src, out, rest);
else if (mode === 'debref') convertDebref(src, out, rest[0]);
else {
  console.error('usage: convert.mjs git|debref SRC OUT ...');
  process.exit(2);
}
